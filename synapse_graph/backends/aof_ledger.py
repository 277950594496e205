"""The ledger of a store's append-only files: each file's recorded length, CRC-32 and command count.

An AOF file cut exactly at a command boundary, or emptied, still reads as a sound (shorter)
history, and a byte changed inside a written value still parses: Redis would load either
without a word. The ledger, ``synapse-ledger.json`` in the store's AOF directory (outside
the files it describes; a copy of the directory carries it along), lets a start notice both:
every data file must be at least as long as recorded, and its recorded part must have the
recorded checksum.

The server's watchdog keeps it (:func:`update_ledger`): every poll, a few times a second,
and once more when the server has stopped, it reads only the bytes appended since the last
record, and only up to the last complete command, so a write in flight is never recorded half
way. An AOF rewrite starts new files, which are recorded as they appear; the files it retires
leave the ledger. The ledger is replaced atomically but not fsynced: after a power cut it may
be older than the files (a shorter record checks less), never ahead of a write that was
acknowledged under ``appendfsync always``. What it cannot vouch for: writes made in the last
poll before the watchdog itself was killed (``kill -9``), until the next server records them.

Standard library only: the watchdog runs as a script that imports nothing of the package.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shlex
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

APPEND_FILENAME = "appendonly.aof"  # Redis's default appendfilename, which the server keeps
MANIFEST = APPEND_FILENAME + ".manifest"
LEDGER = "synapse-ledger.json"
DATA_FILE = re.compile(rf"^{re.escape(APPEND_FILENAME)}\.(\d+)\.(base\.rdb|base\.aof|incr\.aof)$")
_BLOCK = 8 << 20  # bytes read at a time when a file is first recorded
_HEADER = 32  # longest header line of a command: "*" or "$" and a length


@dataclass(frozen=True)
class AofFile:
    """One data file the manifest lists: ``kind`` is ``b`` (base), ``i`` (incr) or ``h`` (history)."""

    name: str
    seq: int
    kind: str


def read_manifest(text: str) -> list[AofFile]:
    """The files a manifest lists, in its order; ``ValueError`` if a line is malformed."""
    files = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        words = shlex.split(line) if '"' in line else line.split()
        fields = dict(zip(words[::2], words[1::2], strict=False))
        if len(words) % 2 or not {"file", "seq", "type"} <= fields.keys() or not fields["seq"].isdigit() \
                or fields["type"] not in ("b", "i", "h"):
            raise ValueError(f"line {number} is not 'file NAME seq N type b|i|h': {line!r}")
        files.append(AofFile(fields["file"], int(fields["seq"]), fields["type"]))
    return files


def manifest_text(files: list[AofFile]) -> str:
    return "".join(f"file {f.name} seq {f.seq} type {f.kind}\n" for f in files)


def listed_data_files(aof_dir: Path) -> list[AofFile] | None:
    """The base and incr files the manifest lists, in order; ``None`` if there is no readable manifest."""
    try:
        return [f for f in read_manifest((aof_dir / MANIFEST).read_text("utf-8", "replace")) if f.kind in "bi"]
    except (OSError, ValueError):
        return None


# -- commands -------------------------------------------------------------------------------------------


def count_commands(data: bytes) -> tuple[int, int]:
    """How many complete Redis commands (RESP arrays) ``data`` starts with, and how many bytes follow them."""
    position, complete = 0, 0
    while position < len(data):
        end = command_end(data, position)
        if end is None:
            break
        complete += end[1]
        position = end[0]
    return complete, len(data) - position


def command_end(data: bytes, start: int) -> tuple[int, int] | None:
    """Where the command (or ``#`` annotation) at ``start`` ends, and 1 (0 for an annotation); None if it does not."""
    line_end = data.find(b"\r\n", start)
    if line_end < 0:
        return None
    head = data[start:line_end]
    if head.startswith(b"#"):  # an annotation (timestamps), not a command
        return line_end + 2, 0
    if not head.startswith(b"*") or not head[1:].isdigit():
        return None
    position = line_end + 2
    for _ in range(int(head[1:])):
        line_end = data.find(b"\r\n", position)
        if line_end < 0 or data[position : position + 1] != b"$" or not data[position + 1 : line_end].isdigit():
            return None
        position = line_end + 2 + int(data[position + 1 : line_end]) + 2
        if position > len(data) or data[position - 2 : position] != b"\r\n":
            return None
    return position, 1


def is_torn(data: bytes) -> bool:
    """True if ``data`` is one command cut short (a write in flight at a crash), perhaps followed by zeros."""
    data = data.rstrip(b"\0")
    if not data:
        return True
    end = data.find(b"\r\n")
    if end < 0:
        return _partial_header(data, b"*")
    if data[:1] != b"*" or not data[1:end].isdigit():
        return False
    position = end + 2
    for _ in range(int(data[1:end])):
        if position >= len(data):
            return True
        end = data.find(b"\r\n", position)
        if end < 0:
            return _partial_header(data[position:], b"$")
        if data[position : position + 1] != b"$" or not data[position + 1 : end].isdigit():
            return False
        position = end + 2 + int(data[position + 1 : end]) + 2
        if position > len(data):
            return True  # cut inside the value or its CRLF
        if data[position - 2 : position] != b"\r\n":
            return False
    return False  # a whole command, then more: not a command in flight


def _partial_header(field: bytes, mark: bytes) -> bool:
    field = field.removesuffix(b"\r")
    return field[:1] == mark and (len(field) == 1 or field[1:].isdigit())


def commands_after(data: bytes) -> int:
    """How many complete commands can be read in ``data`` after a damaged start: from the first one that parses."""
    position = 0
    while True:
        position = data.find(b"*", position + 1)
        if position < 0:
            return 0
        if data[position - 2 : position] == b"\r\n":
            complete, rest = count_commands(data[position:])
            if complete and not rest:
                return complete


# -- the ledger -----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Recorded:
    """A data file as last recorded: its first ``size`` bytes have CRC-32 ``crc32`` and hold ``commands``."""

    size: int
    crc32: int
    commands: int | None = None  # None for an RDB base, which is not made of commands


def read_ledger(aof_dir: Path) -> dict[str, Recorded]:
    """The recorded files (none if there is no ledger, or it cannot be read)."""
    try:
        data = json.loads((aof_dir / LEDGER).read_text("utf-8"))
        return {name: Recorded(int(f["size"]), int(f["crc32"]), None if f.get("commands") is None
                               else int(f["commands"])) for name, f in data["files"].items()}
    except (OSError, ValueError, TypeError, KeyError, AttributeError):
        return {}


def write_ledger(aof_dir: Path, files: dict[str, Recorded]) -> None:
    """Replace the ledger atomically (not fsynced: see the module's docstring)."""
    text = json.dumps({"format": 1, "files": {name: {"size": r.size, "crc32": r.crc32, "commands": r.commands}
                                              for name, r in sorted(files.items())}}, indent=1)
    temporary = aof_dir / (LEDGER + ".tmp")
    temporary.write_text(text + "\n", "utf-8")
    os.replace(temporary, aof_dir / LEDGER)


def extend(path: Path, recorded: Recorded | None) -> Recorded | None:
    """The record of ``path`` brought up to its end (an incr file: to its last complete command).

    ``None`` if the file is gone; the old record if the file is shorter than recorded (that is
    for a start to refuse, not for the ledger to forget).
    """
    commands = not path.name.endswith(".rdb")
    start = recorded or Recorded(0, 0, 0 if commands else None)
    try:
        with open(path, "rb") as handle:
            size = os.fstat(handle.fileno()).st_size
            if size <= start.size:
                return start
            if not commands:
                return Recorded(size, _crc_of(handle, start.size, size, start.crc32), None)
            crc, count, done = start.crc32, start.commands or 0, start.size
            while done < size:
                handle.seek(done)
                data = handle.read(min(_BLOCK, size - done))
                complete, rest = count_commands(data)
                if rest < len(data):  # whole commands (or annotations) start the block
                    crc = zlib.crc32(data[: len(data) - rest], crc)
                    count, done = count + complete, done + len(data) - rest
                    continue
                end = command_span(handle, done, size)  # one command longer than a block, or none
                if end is None:
                    break  # in flight, or unreadable bytes: recorded up to where they start
                crc, count, done = _crc_of(handle, done, end, crc), count + 1, end
    except FileNotFoundError:
        return None
    return Recorded(done, crc, count)


def command_span(handle: BinaryIO, start: int, size: int) -> int | None:
    """Where the command at ``start`` of a file of ``size`` bytes ends, from the lengths its headers declare (a
    write's effect can be tens of megabytes); None if the bytes there are not a command's or it is not all there."""
    handle.seek(start)
    head = _line(handle)
    if head is None or not head.startswith(b"*") or not head[1:].isdigit():
        return None
    position = start + len(head) + 2
    for _ in range(int(head[1:])):
        handle.seek(position)
        line = _line(handle)
        if line is None or not line.startswith(b"$") or not line[1:].isdigit():
            return None
        position += len(line) + 2 + int(line[1:]) + 2
        if position > size:
            return None
        handle.seek(position - 2)
        if handle.read(2) != b"\r\n":
            return None
    return position


def _line(handle: BinaryIO) -> bytes | None:
    """The header line at the handle's position, without its CRLF; None if none ends within a header's length."""
    data = handle.read(_HEADER)
    end = data.find(b"\r\n")
    return data[:end] if end >= 0 else None


def _crc_of(handle: BinaryIO, start: int, end: int, crc: int) -> int:
    """``crc`` extended over the bytes from ``start`` to ``end``, read a block at a time."""
    handle.seek(start)
    while start < end:
        block = handle.read(min(_BLOCK, end - start))
        if not block:
            break
        crc, start = zlib.crc32(block, crc), start + len(block)
    return crc


def update_ledger(aof_dir: Path) -> bool:
    """Record what the listed files hold now; True if the ledger changed."""
    files = listed_data_files(aof_dir)
    if files is None:
        return False
    old = read_ledger(aof_dir)
    new = {}
    for entry in files:
        recorded = extend(aof_dir / entry.name, old.get(entry.name))
        if recorded is not None:
            new[entry.name] = recorded
    if new == old:
        return False
    write_ledger(aof_dir, new)
    return True


def checksum(path: Path, size: int) -> int:
    """CRC-32 of the first ``size`` bytes of ``path``."""
    with open(path, "rb") as handle:
        return _crc_of(handle, 0, size, 0)


@dataclass(frozen=True)
class Mismatch:
    """A data file that is not what the ledger recorded: ``short`` (fewer bytes) or ``changed`` (other bytes)."""

    name: str
    how: str
    recorded: Recorded
    size: int

    def describe(self) -> str:
        if self.how == "short":
            held = f" and held {self.recorded.commands} commands" if self.recorded.commands is not None else ""
            return (f"{self.name} is {self.recorded.size - self.size} bytes shorter than when it was last written "
                    f"({self.size} bytes; it had {self.recorded.size}{held})")
        return f"{self.name} was changed within its first {self.recorded.size} bytes since it was written"


def mismatches(aof_dir: Path, files: list[AofFile], *, rdb_checksums: bool = True) -> list[Mismatch]:
    """The listed files that do not match the ledger (none if it records nothing about them).

    ``rdb_checksums=False`` checks only the length of an RDB base: Redis checks its own CRC-64 as it loads it.
    """
    ledger = read_ledger(aof_dir)
    found = []
    for entry in files:
        recorded = ledger.get(entry.name)
        path = aof_dir / entry.name
        if recorded is None or not path.is_file():
            continue
        size = path.stat().st_size
        if size < recorded.size:
            found.append(Mismatch(entry.name, "short", recorded, size))
        elif (rdb_checksums or not entry.name.endswith(".rdb")) and checksum(path, recorded.size) != recorded.crc32:
            found.append(Mismatch(entry.name, "changed", recorded, size))
    return found


def sizes(aof_dir: Path) -> tuple[int, int]:
    """Bytes in the base file and in the incr files the manifest lists."""
    base = incr = 0
    for entry in listed_data_files(aof_dir) or []:
        with contextlib.suppress(OSError):
            size = (aof_dir / entry.name).stat().st_size
            if entry.kind == "b":
                base += size
            else:
                incr += size
    return base, incr
