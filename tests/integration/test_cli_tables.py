"""CLI tables in a narrow terminal never cut an id, a predicate or a name (issue 33).

The real ``synapse-graph`` runs with ``COLUMNS`` set, as in a terminal of that width: every fact
it shows has one line holding its subject, predicate and object whole (and, for ``pending``, its
id, so ``approve ID`` can be copied); a table row fits the width, dropping its low-value columns,
or the facts are shown one line each.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ENTRY_POINT = Path(sys.executable).parent / "synapse-graph"
BOX = "│┃|┏┡└┗━─╇"


class Shell:
    def __init__(self, db: Path) -> None:
        self.db = db

    def __call__(self, *args: str, columns: int | None = None) -> str:
        env = {k: v for k, v in os.environ.items() if not k.startswith("SYNAPSE_") and k != "COLUMNS"}
        if columns is not None:
            env["COLUMNS"] = str(columns)
        result = subprocess.run([str(ENTRY_POINT), *args, "--db", str(self.db), "--scope", "demo"], env=env,
                                capture_output=True, text=True, timeout=120, check=False, stdin=subprocess.DEVNULL)
        assert result.returncode == 0, result
        return result.stdout

    def json(self, *args: str) -> Any:
        return json.loads(self(*args, "--json"))


@pytest.fixture(scope="module")
def shell(tmp_path_factory: pytest.TempPathFactory) -> Shell:
    run = Shell(tmp_path_factory.mktemp("tables") / "memory.db")
    run("demo")
    run("add", "Dana Reyes", "WORKS_AT", "Initech", "--model", "extractor-1", "--confidence", "0.3")
    run("add", "Sam Okafor", "REPORTS_TO", "Dana Reyes", "--model", "extractor-1", "--confidence", "0.4")
    return run


def _rows_whole(shown: str, facts: list[dict[str, Any]], columns: int, *, with_id: bool = False) -> None:
    lines = shown.splitlines()
    for fact in facts:
        parts = [fact["subject"], fact["predicate"], fact["object"], *([fact["id"]] if with_id else [])]
        assert any(all(part in line for part in parts) for line in lines), (parts, shown)
    for line in lines:
        if line[:1] in BOX:  # a table line fits the terminal
            assert len(line) <= columns, (len(line), line)


@pytest.mark.parametrize("columns", [80, 60])
def test_fact_tables_keep_names_whole(shell: Shell, columns: int) -> None:
    history = shell.json("history", "Dana")
    assert len(history) >= 6
    _rows_whole(shell("history", "Dana", columns=columns), history, columns)
    everything = shell.json("facts", "--history")
    _rows_whole(shell("facts", "--history", columns=columns), everything, columns)
    near = shell.json("neighbourhood", "Dana", "--hops", "2")
    _rows_whole(shell("neighbourhood", "Dana", "--hops", "2", columns=columns), near, columns)
    recalled = shell.json("recall", "where does Dana work?")["facts"]
    _rows_whole(shell("recall", "where does Dana work?", columns=columns), recalled, columns)


@pytest.mark.parametrize("columns", [80, 60])
def test_pending_keeps_each_id_on_one_line_with_its_fact(shell: Shell, columns: int) -> None:
    waiting = shell.json("pending")
    assert len(waiting) == 2 and all(len(f["id"]) >= 20 for f in waiting)
    shown = shell("pending", columns=columns)
    _rows_whole(shown, waiting, columns, with_id=True)
    assert "approve one: synapse-graph approve ID" in shown


@pytest.mark.parametrize("columns", [80, 60])
def test_the_demo_reads_whole_words(shell: Shell, columns: int) -> None:
    shown = shell("demo", columns=columns)
    report = shell.json("demo")
    for answer in report["answers"]:
        _rows_whole(shown, answer["facts"], columns)
    _rows_whole(shown, report["history"], columns)
    for broken in ("WORKS_A\n", "Londo\n", "LIVES_I\n"):
        assert broken not in shown


def test_a_wide_terminal_keeps_the_full_table(shell: Shell) -> None:
    shown = shell("history", "Dana", columns=160)
    header = next(line for line in shown.splitlines() if "subject" in line)
    for column in ("predicate", "object", "valid from (UTC)", "valid until", "conf.", "seen"):
        assert column in header, header


def test_recall_shows_every_memory_it_returns(shell: Shell) -> None:
    """A fact found by its own words (no entity named, so no entry entity) and an observation are shown, in the
    order recall ranks them, as the JSON answer lists them."""
    shell("observe", "Sam Okafor", "Sam keeps a grey cat named Oliver at home.")
    answer = shell.json("recall", "who keeps a cat named Oliver?")
    assert answer["observations"], answer
    assert any(f["entry"] is None for f in answer["facts"]) or not answer["facts"], answer
    shown = shell("recall", "who keeps a cat named Oliver?", columns=120)
    assert "Sam keeps a grey cat named Oliver at home." in shown, shown
    found = shell.json("recall", "where do people work?")
    assert found["facts"] and all(f["entry"] is None for f in found["facts"]), found
    _rows_whole(shell("recall", "where do people work?", columns=100), found["facts"], 100)
