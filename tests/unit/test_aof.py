"""The pure parts of reading the embedded store's append-only files (no server needed)."""

from __future__ import annotations

from pathlib import Path

import pytest

from synapse_graph.backends.aof import (
    AofFile,
    count_commands,
    damage,
    damage_in_log,
    manifest_text,
    read_manifest,
    rebuilt_manifest,
    shown,
)

REDIS8_MANIFEST = (
    "file appendonly.aof.2.base.rdb seq 2 type b\n"
    "file appendonly.aof.2.incr.aof seq 2 type i startoffset 20 endoffset 25\n"
    "file appendonly.aof.3.incr.aof seq 3 type i\n"
)


def command(*words: bytes) -> bytes:
    return b"*%d\r\n" % len(words) + b"".join(b"$%d\r\n%s\r\n" % (len(w), w) for w in words)


def test_a_manifest_reads_back_in_order() -> None:
    files = read_manifest(REDIS8_MANIFEST)
    assert files == [AofFile("appendonly.aof.2.base.rdb", 2, "b"), AofFile("appendonly.aof.2.incr.aof", 2, "i"),
                     AofFile("appendonly.aof.3.incr.aof", 3, "i")]
    assert read_manifest(manifest_text(files)) == files


@pytest.mark.parametrize("text", ["file x seq 1\n", "file x seq one type b\n", "file x seq 1 type z\n", "garbage\n"])
def test_a_malformed_manifest_line_is_named(text: str) -> None:
    with pytest.raises(ValueError, match="line 1"):
        read_manifest(text)


def test_commands_are_counted_up_to_a_partial_one() -> None:
    one = command(b"SELECT", b"0")
    two = command(b"GRAPH.EFFECT", b"synapse", b"\x00\r\n\x01binary")  # CRLF inside a bulk string
    assert count_commands(one + two) == (2, 0)
    assert count_commands(one + two[:-3]) == (1, len(two) - 3)
    assert count_commands(b"#TS:1700000000\r\n" + one) == (1, 0)  # annotations are not commands
    assert count_commands(one + b"garbage" + two) == (1, len(b"garbage" + two))
    assert count_commands(b"") == (0, 0)


def test_the_damage_line_of_a_server_log() -> None:
    log = (
        "13759:M 30 Nov 2026 12:28:29.762 * DB loaded from base file appendonly.aof.1.base.rdb: 0.000 seconds\n"
        "13759:M 30 Nov 2026 12:28:29.764 # Unexpected end of file reading the append only file "
        "appendonly.aof.1.incr.aof. You can: 1) Make a backup of your AOF file, then use ./redis-check-aof --fix "
        "<filename.manifest>. 2) Alternatively you can set the 'aof-load-truncated' configuration option to yes\n"
    )
    assert damage_in_log(log) == "Unexpected end of file reading the append only file appendonly.aof.1.incr.aof"
    assert damage_in_log("1:M 30 Nov 2026 12:28:29.762 # Module /x/y.so failed to load\n") is None


def _write(directory: Path, *names: str) -> None:
    directory.mkdir(exist_ok=True)
    for name in names:
        (directory / name).write_bytes(b"x")


def test_the_damage_redis_would_not_refuse(tmp_path: Path) -> None:
    aof = tmp_path / "x.db.aof"
    assert damage(aof) is None  # a store not written yet
    aof.mkdir()
    assert damage(aof) is None
    _write(aof, "appendonly.aof.1.base.rdb", "appendonly.aof.1.incr.aof")
    assert "manifest appendonly.aof.manifest is missing" in (damage(aof) or "")
    (aof / "appendonly.aof.manifest").write_text(REDIS8_MANIFEST)
    assert "appendonly.aof.2.base.rdb, appendonly.aof.2.incr.aof, appendonly.aof.3.incr.aof" in (damage(aof) or "")
    _write(aof, "appendonly.aof.2.base.rdb", "appendonly.aof.2.incr.aof", "appendonly.aof.3.incr.aof")
    assert damage(aof) is None
    (aof / "appendonly.aof.manifest").write_text("file x seq\n")
    assert "malformed" in (damage(aof) or "")


def test_a_manifest_is_rebuilt_only_when_the_files_tell_one_order(tmp_path: Path) -> None:
    aof = tmp_path / "x.db.aof"
    _write(aof, "appendonly.aof.2.base.rdb", "appendonly.aof.3.incr.aof", "appendonly.aof.2.incr.aof", "other")
    assert [f.name for f in rebuilt_manifest(aof)] == [
        "appendonly.aof.2.base.rdb", "appendonly.aof.2.incr.aof", "appendonly.aof.3.incr.aof"]
    _write(aof, "appendonly.aof.5.incr.aof")
    with pytest.raises(ValueError, match="not consecutive"):
        rebuilt_manifest(aof)
    (aof / "appendonly.aof.5.incr.aof").unlink()
    _write(aof, "appendonly.aof.1.base.rdb")
    with pytest.raises(ValueError, match="2 base files"):
        rebuilt_manifest(aof)


def test_a_path_that_is_not_utf8_can_be_shown() -> None:
    import os

    assert shown(os.fsdecode(b"/tmp/caf\xe9/x.db")) == "/tmp/caf\\xe9/x.db"


# -- the ledger (aof_ledger) ---------------------------------------------------------------------------------


def test_a_file_is_recorded_up_to_its_last_complete_command_and_extended_as_it_grows(tmp_path: Path) -> None:
    from synapse_graph.backends.aof_ledger import checksum, extend

    one, two = command(b"SELECT", b"0"), command(b"GRAPH.EFFECT", b"synapse", b"\x00\r\n\x01" * 50)
    path = tmp_path / "appendonly.aof.1.incr.aof"
    path.write_bytes(one + two[:-4])  # a write in flight
    first = extend(path, None)
    assert first is not None and (first.size, first.commands) == (len(one), 1)
    path.write_bytes(one + two + b"#TS:1\r\n" + one)
    grown = extend(path, first)
    assert grown == extend(path, None)  # the same record, whether read at once or as it grew
    assert grown is not None and (grown.size, grown.commands) == (path.stat().st_size, 3)
    assert grown.crc32 == checksum(path, grown.size)
    assert extend(tmp_path / "gone.aof", None) is None


def test_a_command_many_blocks_long_is_recorded_whole(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """One write's effect can be tens of megabytes (FalkorDB's GRAPH.EFFECT of a statement that sets a property on
    every memory of a large scope: 79 MB at 1M facts). Such a command is recorded once, whole, however many of the
    ledger's read blocks it spans; while it is in flight the file is recorded up to where it starts."""
    from synapse_graph.backends import aof_ledger

    monkeypatch.setattr(aof_ledger, "_BLOCK", 64)  # a 10 KB command is then 160 blocks long
    one, big = command(b"SELECT", b"0"), command(b"GRAPH.EFFECT", b"synapse", bytes(range(256)) * 40)
    path = tmp_path / "appendonly.aof.1.incr.aof"
    path.write_bytes(one + big[: len(big) // 2])  # the long write in flight
    first = aof_ledger.extend(path, None)
    assert first is not None and (first.size, first.commands) == (len(one), 1)
    path.write_bytes(one + big + one)
    whole = aof_ledger.extend(path, first)
    assert whole is not None and (whole.size, whole.commands) == (path.stat().st_size, 3)
    assert whole == aof_ledger.extend(path, None) and whole.crc32 == aof_ledger.checksum(path, whole.size)


def test_a_file_shorter_or_changed_since_it_was_recorded_is_named(tmp_path: Path) -> None:
    from synapse_graph.backends.aof_ledger import mismatches, update_ledger

    aof = tmp_path / "x.db.aof"
    aof.mkdir()
    (aof / "appendonly.aof.manifest").write_text(
        "file appendonly.aof.1.base.rdb seq 1 type b\nfile appendonly.aof.1.incr.aof seq 1 type i\n")
    base, incr = aof / "appendonly.aof.1.base.rdb", aof / "appendonly.aof.1.incr.aof"
    base.write_bytes(b"REDIS0011" + b"\x00" * 40)
    incr.write_bytes(command(b"SELECT", b"0") * 3)
    assert update_ledger(aof) and not update_ledger(aof)  # recorded once; nothing new the second time
    files = read_manifest((aof / "appendonly.aof.manifest").read_text())
    assert mismatches(aof, files) == []
    incr.write_bytes(incr.read_bytes() + command(b"PING"))  # grown: fine
    assert mismatches(aof, files) == []
    incr.write_bytes(command(b"SELECT", b"0") * 2)  # cut at a command boundary
    (short,) = mismatches(aof, files)
    assert short.how == "short" and "shorter" in short.describe() and "held 3 commands" in short.describe()
    incr.write_bytes(command(b"SELECT", b"1") + command(b"SELECT", b"0") * 3)  # one byte changed
    (changed,) = mismatches(aof, files)
    assert changed.how == "changed" and changed.name == incr.name
    base.write_bytes(b"REDIS0011" + b"\x01" * 40)
    assert {m.name for m in mismatches(aof, files)} == {base.name, incr.name}
    assert {m.name for m in mismatches(aof, files, rdb_checksums=False)} == {incr.name}  # Redis checks its CRC


@pytest.mark.parametrize(("tail", "torn"), [
    (b"", True), (b"*3\r\n$12\r\nGRAPH.EF", True), (b"*3", True), (b"*3\r", True), (b"*3\r\n$1", True),
    (b"*1\r\n$4\r\nPING\r", True), (b"*2\r\n$3\r\nabc\r\n\x00\x00\x00", True),  # zeros after a cut: a crash
    (b"?3\r\n$4\r\nPING\r\n", False), (b"*1\r\n$4\r\nPING\r\n*1\r\n", False), (b"*1\r\n$x\r\n", False),
])
def test_a_torn_end_is_told_from_damage(tail: bytes, torn: bool) -> None:
    from synapse_graph.backends.aof_ledger import is_torn

    assert is_torn(tail) is torn


def test_the_commands_after_a_damaged_one_are_counted() -> None:
    from synapse_graph.backends.aof_ledger import commands_after

    damaged = b"?3\r\n$12\r\nGRAPH.EFFECT\r\n$1\r\nx\r\n$1\r\ny\r\n"
    assert commands_after(damaged + command(b"SELECT", b"0") * 4) == 4
    assert commands_after(damaged) == 0
