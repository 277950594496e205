"""What the benchmark harnesses record of the trees and stores they are given names no machine folder: a tree by
its commit (``git rev-parse`` of it), a store relative to the repository, ``<tmp>/`` or ``~/``."""

from __future__ import annotations

import json
import subprocess
import tempfile
from pathlib import Path
from typing import Any

import pytest

from benchmarks import batch_python, hook_phases, warm_open
from benchmarks.measure import REPO, shown_path, tree_commit


def _strings(value: Any) -> list[str]:
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in (str(k), *_strings(v))]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return [value] if isinstance(value, str) else []


def _machine_free(recorded: dict[str, Any], *given: Path) -> None:
    text = json.dumps(recorded)
    for value in _strings(recorded):
        assert not value.startswith("/"), value
    for path in (*given, REPO, Path.home()):
        assert str(path.resolve()) not in text, (path, text)


def _checkout(folder: Path) -> str:
    """A git checkout of one commit in ``folder``: its short commit."""
    def git(*args: str) -> str:
        return subprocess.run(["git", "-C", str(folder), *args], capture_output=True, text=True,
                              check=True).stdout.strip()

    folder.mkdir(parents=True)
    git("init", "-q")
    (folder / "README").write_text("old code\n")
    git("add", "README")
    git("-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "old")
    return git("rev-parse", "--short", "HEAD")


def test_a_harness_records_the_trees_it_compares_by_commit_and_its_store_without_machine_folders(
        tmp_path: Path) -> None:
    old = tmp_path / "old-src"
    commit = _checkout(old)
    store = tmp_path / "stores" / "store.db"
    recorded = {"batch_python": batch_python.sources(old, REPO),
                "hook_phases": hook_phases.described(store, old),
                "warm_open": warm_open.described(store, old)}
    _machine_free(recorded, tmp_path, old, store)
    assert recorded["batch_python"]["old_src"] == commit
    assert recorded["hook_phases"]["before_src"] == commit == recorded["warm_open"]["baseline_src"]


@pytest.mark.parametrize("name", ["results/x.json", "stores/big/store.db"])
def test_a_path_is_shown_relative_to_the_repository_or_the_temporary_folder(tmp_path: Path, name: str) -> None:
    assert shown_path(REPO / name) == name
    temporary = Path(tempfile.gettempdir()).resolve()
    if tmp_path.resolve().is_relative_to(temporary):  # pytest's, unless --basetemp
        assert shown_path(tmp_path / name) == f"<tmp>/{(tmp_path / name).resolve().relative_to(temporary)}"
    assert not shown_path(Path("/srv/data") / name).startswith("/")


def test_a_folder_that_is_no_checkout_is_named_without_its_machine_folders(tmp_path: Path) -> None:
    _machine_free({"tree": tree_commit(tmp_path / "snapshot")}, tmp_path)
    (tmp_path / "archived").mkdir()
    (tmp_path / "archived" / "SNAPSHOT").write_text("abc1234\n")
    assert tree_commit(tmp_path / "archived") == "abc1234"
