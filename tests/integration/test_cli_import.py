"""``synapse-graph import`` as a person runs it (issue 33): Ctrl-C mid-import, and files of the other format.

The interrupted import runs in a real terminal (a pty), so its progress is shown as a person sees it;
SIGINT arrives while fact records are being written. The command must say what it imported and that
running it again finishes the import, and the second run must leave the scope exactly as one
uninterrupted import does.
"""

from __future__ import annotations

import json
import os
import pty
import re
import select
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from synapse_graph import Memory, Triple

ENTRY_POINT = Path(sys.executable).parent / "synapse-graph"
FACTS = 16_000
QUOTAS = ("--max-facts", "100000", "--max-entities", "100000")


def _env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if not k.startswith("SYNAPSE_") and k != "COLUMNS"}


def run(*args: str, code: int = 0) -> subprocess.CompletedProcess[str]:
    result = subprocess.run([str(ENTRY_POINT), *args], env=_env(), capture_output=True, text=True, timeout=300,
                            check=False, stdin=subprocess.DEVNULL)
    assert result.returncode == code, result
    return result


def write_export(path: Path, facts: int) -> None:
    """An export of a chain of entities (``entity i LINKS_TO entity i+1``), as ``synapse-graph export`` writes."""
    when = "2024-01-01T00:00:00+00:00"
    lines = [{"kind": "header", "format": "synapse-graph/2", "scope": "chain"}]
    lines += [{"kind": "entity", "name": f"Entity {i}", "key": f"entity {i}", "aliases": [], "type": None,
               "created_at": "2024-01-01T00:00:00Z", "updated_at": "2024-01-01T00:00:00Z"} for i in range(facts + 1)]
    lines += [{"kind": "fact", "id": f"f{i:024d}", "subject": f"entity {i}", "predicate": "LINKS_TO",
               "object": f"entity {i + 1}", "valid_at": when, "invalid_at": None, "recorded_at": when,
               "expired_at": None, "confidence": 1.0, "confirmations": 1, "source": "chain", "client": "test",
               "model": None, "session": None, "status": "believed", "flag": None, "confirmed_at": None,
               "pinned": False} for i in range(facts)]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")


def held(db: Path, scope: str) -> list[Any]:
    """The scope's entities, aliases, facts and observations, as its export holds them (audit left out)."""
    with Memory(str(db), scope=scope, create=False) as memory:
        kept = [json.loads(line) for line in memory.export()]
    return sorted((line for line in kept if line["kind"] in ("entity", "alias", "fact", "observation", "rules")),
                  key=lambda line: json.dumps(line, sort_keys=True))


def interrupt_in_a_terminal(args: list[str], when: re.Pattern[str]) -> tuple[int, str]:
    """Run the command in a pty, send SIGINT once its output matches ``when``; its exit code and output."""
    master, slave = pty.openpty()
    process = subprocess.Popen([str(ENTRY_POINT), *args], env={**_env(), "COLUMNS": "120"}, stdin=slave,
                               stdout=slave, stderr=slave, close_fds=True)
    os.close(slave)
    output, sent, deadline = b"", False, time.monotonic() + 240
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([master], [], [], 0.05)
            if ready:
                try:
                    chunk = os.read(master, 65536)
                except OSError:  # the command has exited and closed the terminal
                    break
                if not chunk:
                    break
                output += chunk
            if not sent and when.search(output.decode("utf-8", "replace")):
                process.send_signal(signal.SIGINT)
                sent = True
            if process.poll() is not None and not ready:
                break
        code = process.wait(timeout=120)
    finally:
        if process.poll() is None:
            process.kill()
        os.close(master)
    assert sent, output.decode("utf-8", "replace")[-2000:]
    return code, re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", output.decode("utf-8", "replace"))


def test_ctrl_c_says_what_was_imported_and_the_same_import_finishes_it(tmp_path: Path) -> None:
    export, db = tmp_path / "chain.jsonl", tmp_path / "memory.db"
    write_export(export, FACTS)
    run("import", str(export), "--db", str(db), "--scope", "whole", *QUOTAS)

    # Mid-way through the fact records: a percentage above 0 after "writing ... fact records".
    writing = re.compile(rf"writing {FACTS:,} fact records\s.*?\s(?:[1-9]|[1-8][0-9])%")
    code, shown = interrupt_in_a_terminal(["import", str(export), "--db", str(db), "--scope", "stopped", *QUOTAS],
                                          writing)
    assert code == 130, shown
    assert f"writing {FACTS + 1:,} entities" in shown, shown  # read and checked before, once
    said = re.search(r"interrupted: imported the ([\d,]+) entities and ([\d,]+) of ([\d,]+) fact records of (.+?) "
                     r"into scope 'stopped'; run the same import again to finish it", " ".join(shown.split()))
    assert said, shown
    written = int(said.group(2).replace(",", ""))
    assert said.group(1) == f"{FACTS + 1:,}" and said.group(3) == f"{FACTS:,}" and 0 < written < FACTS, shown
    assert "Traceback" not in shown
    with Memory(str(db), scope="stopped", create=False) as memory:
        assert memory.stats().facts == written  # exactly what it said: no write was left half-done

    finished = json.loads(run("import", str(export), "--db", str(db), "--scope", "stopped", "--json",
                              *QUOTAS).stdout)
    assert finished["created"] == FACTS - written
    assert held(db, "stopped") == held(db, "whole")


def test_an_import_with_quotas_into_a_new_scope_brings_the_rejections_and_the_audit_log(tmp_path: Path) -> None:
    """--max-facts stores the new scope's rules before the import writes: the import must still bring all."""
    export, db = tmp_path / "reviewed.jsonl", tmp_path / "memory.db"
    with Memory(str(db), scope="reviewed") as memory:
        memory.upsert(Triple(subject="Dana", predicate="WORKS_AT", object="Globex", confidence=0.3), model="x")
        [candidate] = memory.pending()
        memory.reject(candidate, "Dana never worked there")
    run("export", "--db", str(db), "--scope", "reviewed", "--out", str(export))

    run("import", str(export), "--db", str(db), "--scope", "restored", *QUOTAS)
    run("import", str(export), "--db", str(db), "--scope", "restored", *QUOTAS)  # again: adds nothing

    exported = [json.loads(line) for line in export.read_text(encoding="utf-8").splitlines()]
    with Memory(str(db), scope="restored", create=False) as memory:
        restored = [json.loads(line) for line in memory.export()]
        memory.upsert(Triple(subject="Dana", predicate="WORKS_AT", object="Globex", confidence=0.3), model="x")
        [again] = memory.pending()  # a rejected fact written again comes back flagged
        assert "Dana never worked there" in (again.flag or "")
    rejections = [line for line in exported if line["kind"] == "rejection"]
    assert len(rejections) == 1 and [line for line in restored if line["kind"] == "rejection"] == rejections
    logged = [line["id"] for line in restored if line["kind"] == "audit"]
    assert len(logged) == len(set(logged))
    assert {line["id"] for line in exported if line["kind"] == "audit"} <= set(logged)
    assert next(line for line in restored if line["kind"] == "rules")["max_facts"] == 100_000


# -- the other format ----------------------------------------------------------------------------------------


REFERENCE = [
    {"type": "entity", "name": "Dana", "entityType": "person", "observations": ["Speaks Spanish"]},
    {"type": "relation", "from": "Dana", "to": "Acme", "relationType": "works_at"},
]


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    reference, ours, empty = tmp_path / "memory.jsonl", tmp_path / "export.jsonl", tmp_path / "empty.jsonl"
    reference.write_text("".join(json.dumps(line) + "\n" for line in REFERENCE), encoding="utf-8")
    write_export(ours, 2)
    empty.write_text("", encoding="utf-8")
    return {"reference": reference, "ours": ours, "empty": empty, "db": tmp_path / "memory.db"}


def one_error(result: subprocess.CompletedProcess[str]) -> str:
    lines = result.stderr.splitlines()
    assert result.stdout == "" and len(lines) == 1 and lines[0].startswith("error: "), result
    return lines[0]


def test_an_empty_file_is_refused_by_both_formats(files: dict[str, Path]) -> None:
    db = ["--db", str(files["db"])]
    run("init", *db)
    for fmt in ([], ["--format", "reference-memory"]):
        said = one_error(run("import", str(files["empty"]), *fmt, *db, code=2))
        assert "empty" in said and "nothing was written" in said, said
    assert json.loads(run("stats", *db, "--json").stdout)["entities"] == 0


def test_a_failing_import_into_a_new_store_path_creates_no_store(files: dict[str, Path], tmp_path: Path) -> None:
    """The file is checked whole before the store is opened: a refused import leaves no empty store behind."""
    bad, db = tmp_path / "bad.jsonl", tmp_path / "new.db"
    lines = files["ours"].read_text(encoding="utf-8").splitlines()
    fact = json.loads(lines[-1])
    lines[-1] = json.dumps({**fact, "invalid_at": fact["valid_at"]})  # a record that holds for no time
    bad.write_text("\n".join(lines) + "\n", encoding="utf-8")
    for refused in (bad, files["empty"], files["reference"]):
        said = one_error(run("import", str(refused), "--db", str(db), code=2))
        assert "nothing was written" in said or f"import line {len(lines)}:" in said, said
        assert sorted(tmp_path.glob("new.db*")) == []

    imported = json.loads(run("import", str(files["ours"]), "--db", str(db), "--json").stdout)
    assert imported["created"] == 2 and sorted(tmp_path.glob("new.db*"))


def test_a_reference_file_without_format_suggests_it(files: dict[str, Path]) -> None:
    db = ["--db", str(files["db"])]
    run("init", *db)
    said = one_error(run("import", str(files["reference"]), *db, code=2))
    assert "reference MCP memory server" in said and "--format reference-memory" in said, said
    imported = json.loads(run("import", str(files["reference"]), "--format", "reference-memory", *db,
                              "--json").stdout)
    assert imported["entities_created"] == 2 and imported["relations"] == 1 and imported["observations"] == 1


def test_our_export_given_as_reference_memory_says_what_it_is(files: dict[str, Path]) -> None:
    db = ["--db", str(files["db"])]
    run("init", *db)
    said = one_error(run("import", str(files["ours"]), "--format", "reference-memory", *db, code=2))
    assert "synapse-graph export" in said and "without --format" in said, said
    assert json.loads(run("stats", *db, "--json").stdout)["entities"] == 0
    assert json.loads(run("import", str(files["ours"]), *db, "--json").stdout)["created"] == 2
