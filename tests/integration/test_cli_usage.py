"""The command's own words through its real entry point: usage errors, --help, and commands that need an extra.

Every error the command line framework finds (a missing file, a value out of range, an unknown
option) is one ``error:`` line and exit 2, as every other expected error is; help names values
the usual way (``FILE``, ``[SUBJECT]``, ``--db TEXT``) and shows no type after a flag. A command
whose optional dependency is missing says which extra to install, in one line, exit 2: the test
hides the module from a real ``synapse-graph`` process with a meta-path blocker in ``sitecustomize``.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ENTRY_POINT = Path(sys.executable).parent / "synapse-graph"


def run(*args: str, env: dict[str, str] | None = None, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    base = {k: v for k, v in os.environ.items() if not k.startswith("SYNAPSE_") and k != "COLUMNS"}
    return subprocess.run([str(ENTRY_POINT), *args], env={**base, **(env or {})}, cwd=cwd, capture_output=True,
                          text=True, timeout=120, check=False, stdin=subprocess.DEVNULL)


@pytest.mark.parametrize(("args", "said"), [
    (("import", "no-such-file.jsonl"), "no-such-file.jsonl"),
    (("neighbourhood", "Dana", "--hops", "3"), "--hops"),
    (("facts", "--bogus"), "--bogus"),
    (("add", "Dana", "LIVES_IN"), "OBJECT"),
    (("no-such-command",), "no-such-command"),
])
def test_usage_errors_are_one_error_line_exit_2(args: tuple[str, ...], said: str, tmp_path: Path) -> None:
    result = run(*args, "--db", str(tmp_path / "m.db"), cwd=tmp_path)
    assert result.returncode == 2, result
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("error: ") and said in lines[0], lines[0]
    assert not any(ch in result.stderr for ch in "╭│╰"), result.stderr
    assert not (tmp_path / "m.db.aof").exists()  # nothing was opened


def test_help_names_values_the_usual_way() -> None:
    for command, usage in (("import", "Usage: synapse-graph import [OPTIONS] [FILE]"),
                           ("facts", "Usage: synapse-graph facts [OPTIONS] [SUBJECT]"),
                           ("add", "Usage: synapse-graph add [OPTIONS] SUBJECT PREDICATE OBJECT")):
        result = run(command, "--help", env={"COLUMNS": "100"})
        assert result.returncode == 0, result
        shown = result.stdout
        assert usage in shown, shown
        assert "<bool>" not in shown and "<str>" not in shown and "{" not in shown, shown
        assert "--json " in shown and "--db" in shown
    add_help = run("add", "--help", env={"COLUMNS": "100"}).stdout
    flag_line = next(line for line in add_help.splitlines() if "--replace" in line)
    assert "TEXT" not in flag_line and "BOOL" not in flag_line.upper().replace("--", ""), flag_line
    assert any("--valid-at" in line and "TEXT" in line for line in add_help.splitlines()), add_help
    top = run()
    assert top.returncode in (0, 2) and "Usage: synapse-graph" in top.stdout + top.stderr
    assert "error:" not in top.stdout + top.stderr  # no arguments: the help, not an error


BLOCKER = textwrap.dedent("""
    import importlib.abc, os, sys

    BLOCKED = set(os.environ["HIDE_MODULES"].split(","))

    class Hide(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path=None, target=None):
            if name.split(".")[0] in BLOCKED:
                raise ModuleNotFoundError(f"No module named {name!r}", name=name)
            return None

    sys.meta_path.insert(0, Hide())
""")


def without(modules: str, tmp_path: Path) -> dict[str, str]:
    """The environment of a process in which these top-level modules cannot be imported."""
    site = tmp_path / "site"
    site.mkdir(exist_ok=True)
    (site / "sitecustomize.py").write_text(BLOCKER, encoding="utf-8")
    return {"PYTHONPATH": str(site), "HIDE_MODULES": modules}


@pytest.mark.parametrize(("modules", "args", "extra"), [
    ("anyio", ("mcp",), "mcp"),
    ("mcp", ("mcp", "--http", "127.0.0.1:0"), "mcp"),
    ("neo4j", ("facts", "--db", "bolt://127.0.0.1:9"), "neo4j"),
    ("neo4j", ("add", "Dana", "LIKES", "tea", "--db", "neo4j://127.0.0.1:9"), "neo4j"),
    ("graphiti_core", ("import", "--format", "graphiti", "--from", "falkordb://127.0.0.1:9"), "graphiti"),
])
def test_a_command_without_its_extra_says_which_in_one_line(modules: str, args: tuple[str, ...], extra: str,
                                                            tmp_path: Path) -> None:
    env = {**without(modules, tmp_path), "SYNAPSE_DB": str(tmp_path / "m.db")}
    result = run(*args, env=env, cwd=tmp_path)
    assert result.returncode == 2, result
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and "Traceback" not in result.stderr, result.stderr
    assert lines[0].startswith("error: ") and f"'{extra}' extra" in lines[0], lines[0]
    assert f"pip install '.[{extra}]'" in lines[0] and "synapse-graph[" not in lines[0], lines[0]  # PyPI's is not ours
    if args[0] != "mcp":  # mcp has no --json
        as_json = run(*args, "--json", env=env, cwd=tmp_path)
        assert as_json.returncode == 2 and '"MissingExtraError"' in as_json.stderr, as_json
