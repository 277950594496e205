"""Which command creates a store, and what it says (issue 33), through the real ``synapse-graph``.

A write to a path with no store creates one and says so on stderr; a write to a path whose folder
does not exist (a mistyped ``--db``) is an error that creates nothing, and ``init`` is the command
that creates folders. Reads never create a store, the default location included (its folder in the
user data directory is pointed at a temporary one with ``XDG_DATA_HOME``).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ENTRY_POINT = Path(sys.executable).parent / "synapse-graph"


def run(*args: str, home: Path, code: int = 0) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SYNAPSE_") and k != "COLUMNS"}
    env["XDG_DATA_HOME"] = str(home / "data")
    result = subprocess.run([str(ENTRY_POINT), *args], env=env, capture_output=True, text=True, timeout=120,
                            check=False, stdin=subprocess.DEVNULL)
    assert result.returncode == code, result
    return result


def test_a_write_to_a_new_path_says_it_created_a_store(tmp_path: Path) -> None:
    store = tmp_path / "work.db"
    first = run("add", "Dana", "LIKES", "tea", "--db", str(store), home=tmp_path)
    assert f"created a new store at {store}" in first.stderr, first
    second = run("add", "Dana", "LIKES", "coffee", "--db", str(store), home=tmp_path)
    assert "created" not in second.stderr, second
    as_json = run("add", "Sam", "LIKES", "tea", "--db", str(tmp_path / "other.db"), "--json", home=tmp_path)
    assert json.loads(as_json.stderr) == {"notice": f"created a new store at {tmp_path / 'other.db'}",
                                          "location": str(tmp_path / "other.db")}
    assert json.loads(as_json.stdout)["created"] == 1


def test_a_mistyped_folder_is_an_error_and_only_init_creates_folders(tmp_path: Path) -> None:
    store = tmp_path / "projcets" / "acme" / "memory.db"
    export = tmp_path / "export.jsonl"  # a good file: the import checks its file first, then the store's folder
    run("add", "Sam", "LIKES", "tea", "--db", str(tmp_path / "other.db"), home=tmp_path)
    run("export", "--out", str(export), "--db", str(tmp_path / "other.db"), home=tmp_path)
    for args in (("add", "Dana", "LIKES", "tea"), ("observe", "Dana", "Speaks Spanish"), ("import", str(export))):
        failed = run(*args, "--db", str(store), home=tmp_path, code=2)
        lines = failed.stderr.splitlines()
        assert len(lines) == 1 and lines[0].startswith("error: "), failed.stderr
        assert f"the folder {store.parent} does not exist" in lines[0] and "synapse-graph init" in lines[0]
        assert not (tmp_path / "projcets").exists()
    made = run("init", "--db", str(store), home=tmp_path)
    assert f"created a new store at {store}" in made.stderr and "store ready" in made.stdout
    assert run("facts", "--db", str(store), "--json", home=tmp_path).stdout.strip() == "[]"
    run("add", "Dana", "LIKES", "tea", "--db", str(store), home=tmp_path)


def test_an_export_to_a_file_never_creates_the_store_it_reads(tmp_path: Path) -> None:
    store = tmp_path / "typo.db"
    failed = run("export", "--out", str(tmp_path / "out.jsonl"), "--db", str(store), home=tmp_path, code=2)
    assert "no store" in failed.stderr and not list(tmp_path.glob("typo.db*")), failed.stderr


def test_a_failed_export_leaves_the_file_it_would_replace_as_it_was(tmp_path: Path) -> None:
    backup = tmp_path / "backup.jsonl"
    run("add", "Dana", "LIKES", "tea", "--db", str(tmp_path / "work.db"), home=tmp_path)
    run("export", "--out", str(backup), "--db", str(tmp_path / "work.db"), home=tmp_path)
    kept = backup.read_text(encoding="utf-8")
    assert '"Dana"' in kept
    run("export", "--out", str(backup), "--db", str(tmp_path / "typo.db"), home=tmp_path, code=2)
    assert backup.read_text(encoding="utf-8") == kept
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("backup")) == ["backup.jsonl"]


def test_reads_never_create_a_store_at_the_default_location(tmp_path: Path) -> None:
    data = tmp_path / "data" / "synapse-graph"
    for args in (("facts",), ("stats",), ("history", "Dana"), ("export",)):
        failed = run(*args, home=tmp_path, code=2)
        assert "no store" in failed.stderr and str(data / "memory.db") in failed.stderr, failed.stderr
        assert not data.exists()
    written = run("add", "Dana", "LIKES", "tea", home=tmp_path)  # the default folder is ours to create
    assert f"created a new store at {data / 'memory.db'}" in written.stderr
    assert json.loads(run("facts", "--json", home=tmp_path).stdout)[0]["object"] == "tea"
