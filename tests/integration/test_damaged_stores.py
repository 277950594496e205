"""Damaged embedded stores: refused at open, never opened short, and repaired only as far as it is honest.

Every store is damaged at rest (its server stopped), as a crash, a disk or a bad copy would leave it.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from synapse_graph import Memory
from synapse_graph.backends.aof import count_commands
from synapse_graph.errors import StoreDamagedError
from tests.integration.embedded_processes import CLI, add, aof_files, facts_of, incr_file, populate

pytestmark = [pytest.mark.integration, pytest.mark.usefixtures("lingering")]


def test_a_store_without_its_manifest_is_refused_then_repaired(store_dir: Path) -> None:
    from synapse_graph.backends.repair import repair_store

    db = store_dir / "manifest.db"
    expected = populate(db)
    (manifest,) = db.with_name(db.name + ".aof").glob("*.manifest")
    manifest.unlink()
    before = aof_files(db)
    for _ in range(2):  # refused every time, and the refusal changes nothing
        with pytest.raises(StoreDamagedError) as raised:
            Memory(db, scope="s")
        message = str(raised.value)
        assert "manifest" in message and "synapse-graph repair" in message, message
        assert aof_files(db) == before
    report = repair_store(db)
    assert report.damaged and report.dropped_bytes == 0 and report.dropped_commands == 0
    assert any("manifest" in action for action in report.actions), report
    assert report.backup is not None and Path(report.backup).is_dir()
    assert facts_of(db) == expected  # nothing was lost: the data files were all there
    add(db, ("new", "fact"))
    assert facts_of(db) == expected | {("new", "fact")}


def test_a_truncated_append_only_file_is_refused_then_repaired(store_dir: Path) -> None:
    from synapse_graph.backends.repair import repair_store

    db = store_dir / "truncated.db"
    expected = populate(db)
    incr = incr_file(db)
    data = incr.read_bytes()
    cut = data.index(b"*3\r\n$12\r\nGRAPH.EFFECT", len(data) // 2) + 30  # in the middle of a command
    with incr.open("r+b") as handle:
        handle.truncate(cut)
    with pytest.raises(StoreDamagedError) as raised:
        Memory(db, scope="s")
    message = str(raised.value)
    assert incr.name in message and "synapse-graph repair" in message, message
    assert incr.read_bytes() == data[:cut]  # refusing to open changed nothing

    report = repair_store(db)
    torn = data.rindex(b"*3\r\n$12\r\nGRAPH.EFFECT", 0, cut)  # the command cut in two starts there
    assert report.damaged and report.dropped_bytes == len(data) - torn, report  # what the ledger recorded
    assert report.dropped_commands == count_commands(data[torn:])[0] and not report.partial_command, report
    assert str(report.dropped_bytes) in report.summary()
    assert report.backup is not None and (Path(report.backup) / incr.name).read_bytes() == data[:cut]
    assert incr.read_bytes().startswith(data[:torn])  # the sound part is untouched (a start may append)
    found = facts_of(db)
    assert found < expected and found  # the first part of the history, nothing made up
    complete = {s for s, _ in found}
    assert all({(s, f"o{s[1:]}-{k}") for k in range(3)} <= found for s in complete)  # whole batches only
    assert facts_of(db) == found
    assert not repair_store(db).damaged  # repaired for good


def test_a_damaged_base_file_is_not_repaired_as_if_it_were_fine(store_dir: Path) -> None:
    from synapse_graph.backends.repair import repair_store

    db = store_dir / "base.db"
    populate(db, batches=3)
    (base,) = db.with_name(db.name + ".aof").glob("*.base.*")
    with base.open("r+b") as handle:
        handle.truncate(base.stat().st_size // 2)
    before = aof_files(db)
    with pytest.raises(StoreDamagedError):
        Memory(db, scope="s")
    with pytest.raises(StoreDamagedError) as raised:
        repair_store(db)
    assert base.name in str(raised.value)
    assert aof_files(db) == before


def test_repair_of_a_healthy_store_changes_nothing(store_dir: Path) -> None:
    from synapse_graph.backends.repair import repair_store

    db = store_dir / "healthy.db"
    expected = populate(db, batches=5)
    before = aof_files(db)
    report = repair_store(db)
    assert not report.damaged and report.backup is None and report.dropped_bytes == 0
    after = aof_files(db)  # repair proves the store opens, and an open may append to the incr file
    assert after.keys() == before.keys()
    assert all(after[name].startswith(before[name]) for name in before if not name.endswith((".manifest", ".json")))
    assert facts_of(db) == expected


def test_repair_command(store_dir: Path) -> None:
    db = store_dir / "cli.db"
    expected = populate(db)
    incr = incr_file(db)
    with incr.open("r+b") as handle:
        handle.truncate(incr.stat().st_size - 7)
    done = subprocess.run([str(CLI), "repair", "--db", str(db), "--json"], capture_output=True, text=True,
                          timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["damaged"] and report["dropped_bytes"] > 0
    assert facts_of(db) <= expected
    missing = subprocess.run([str(CLI), "repair", "--db", str(store_dir / "nothing.db")], capture_output=True,
                             text=True, timeout=300, check=False)
    assert missing.returncode == 2 and "nothing.db" in missing.stderr
    assert not (store_dir / "nothing.db.aof").exists()


def test_a_write_in_flight_at_a_crash_is_cut_and_counted(store_dir: Path) -> None:
    from synapse_graph.backends.repair import repair_store

    db = store_dir / "torn.db"
    expected = populate(db)
    incr = incr_file(db)
    data = incr.read_bytes()
    partial = b"*3\r\n$12\r\nGRAPH.EFFECT\r\n$7\r\nsynapse\r\n$900\r\n\x02\t\x00"  # never finished, never recorded
    incr.write_bytes(data + partial)
    with pytest.raises(StoreDamagedError):
        Memory(db, scope="s")
    report = repair_store(db)
    assert (report.dropped_bytes, report.dropped_commands, report.partial_command) == (len(partial), 0, True), report
    assert incr.read_bytes().startswith(data)  # (a start may append)
    assert facts_of(db) == expected  # every recorded write is there


def _command_starts(data: bytes) -> list[int]:
    starts, position = [], 0
    while True:
        position = data.find(b"*", position)
        if position < 0:
            return starts
        if count_commands(data[:position])[1] == 0:
            starts.append(position)
        position += 1


def test_damage_in_the_middle_of_the_last_file_is_refused_with_what_follows(store_dir: Path) -> None:
    from synapse_graph.backends.repair import repair_store

    db = store_dir / "middle.db"
    populate(db)
    incr = incr_file(db)
    data = incr.read_bytes()
    starts = [s for s in _command_starts(data) if data[s:].startswith(b"*3\r\n$12\r\nGRAPH.EFFECT")]
    damaged = starts[len(starts) // 2]
    after = count_commands(data[starts[starts.index(damaged) + 1]:])[0]
    assert after > 5
    incr.write_bytes(data[:damaged] + b"?" + data[damaged + 1:])  # one byte: a command's header
    before = aof_files(db)
    with pytest.raises(StoreDamagedError):
        Memory(db, scope="s")
    with pytest.raises(StoreDamagedError) as raised:
        repair_store(db)
    message = str(raised.value)
    assert incr.name in message and f"{after + 1} " in message, message  # the damaged command and those after it
    assert aof_files(db) == before  # refused: nothing cut, no write dropped


@pytest.mark.parametrize("how", ["boundary", "emptied"])
def test_a_file_cut_at_a_command_boundary_or_emptied_is_refused(store_dir: Path, how: str) -> None:
    from synapse_graph.backends.repair import repair_store

    db = store_dir / f"short-{how}.db"
    expected = populate(db)
    incr = incr_file(db)
    data = incr.read_bytes()
    starts = _command_starts(data)
    keep = 0 if how == "emptied" else starts[len(starts) // 2]
    lost = count_commands(data[keep:])[0]
    with incr.open("r+b") as handle:
        handle.truncate(keep)
    for _ in range(2):  # refused each time, and the refusal changes nothing
        with pytest.raises(StoreDamagedError) as raised:
            Memory(db, scope="s")
        message = str(raised.value)
        assert incr.name in message and "shorter" in message and "synapse-graph repair" in message, message
        assert incr.read_bytes() == data[:keep]
    report = repair_store(db)  # the loss is accepted explicitly, and counted exactly
    assert report.damaged and report.dropped_bytes == len(data) - keep and report.dropped_commands == lost, report
    assert f"{lost} complete command" in report.summary()
    found = facts_of(db)
    assert found < expected
    assert not repair_store(db).damaged


def test_a_byte_changed_inside_a_written_value_is_refused(store_dir: Path) -> None:
    db = store_dir / "flipped.db"
    expected = populate(db)
    incr = incr_file(db)
    data = incr.read_bytes()
    assert data.count(b"o20-1")
    incr.write_bytes(data.replace(b"o20-1", b"o20-7"))  # an object's name (and key), inside the writes' values
    with pytest.raises(StoreDamagedError) as raised:
        opened = Memory(db, scope="s")
        found = {(f.subject, f.object) for f in opened.facts(limit=100_000)}
        opened.close()
        assert found == expected, "a changed byte was loaded as a different fact"
    assert incr.name in str(raised.value)
