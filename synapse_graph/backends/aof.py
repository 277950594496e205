"""What the embedded server's append-only files (AOF) look like, and how to tell they are damaged.

A store ``x.db`` keeps its data in the directory ``x.db.aof``: a *base* file (a snapshot,
RDB format), *incr* files (every write since, as Redis commands), and a *manifest* that
lists them in order. Redis itself loads them; this module checks what Redis would not
refuse on its own (a missing manifest makes Redis start an empty store) and reads what
Redis says when it refuses the rest.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
from dataclasses import dataclass
from pathlib import Path

APPEND_FILENAME = "appendonly.aof"  # Redis's default appendfilename, which the server keeps
MANIFEST = APPEND_FILENAME + ".manifest"
_DATA_FILE = re.compile(rf"^{re.escape(APPEND_FILENAME)}\.(\d+)\.(base\.rdb|base\.aof|incr\.aof)$")

# What Redis (aof.c, rdb.c) and FalkorDB log when they refuse to load damaged files.
_DAMAGE = (
    "Unexpected end of file reading the append only file",
    "Bad file format reading the append only file",
    "Unrecoverable error reading the append only file",
    "can't open the append log file",
    "Error reading the RDB preamble of the AOF file",
    "Error reading the RDB base file",
    "while loading from disk",  # FalkorDB: "Diverged applying GRAPH.EFFECT on graph ... while loading from disk"
    "Short read or OOM loading DB",
    "Wrong signature trying to load DB",
    "Internal error in RDB reading",
    "AOF MANIFEST FILE ERROR",
    "Invalid AOF manifest file format",
    "Found an empty AOF manifest",
    "The AOF manifest file contains too long line",
    "reading the append only file",
)


def shown(path: str | os.PathLike[str]) -> str:
    """A path for messages: bytes that are not UTF-8 appear as ``\\xNN`` instead of failing to print."""
    return os.fsencode(path).decode("utf-8", "backslashreplace")


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


def damage(aof_dir: Path) -> str | None:
    """What is wrong with a store's files that Redis would not refuse itself; ``None`` if nothing is.

    A missing or empty directory is a store not written yet, not a damaged one.
    """
    if aof_dir.exists() and not aof_dir.is_dir():
        return f"{shown(aof_dir)} is not a directory"
    try:
        names = {p.name for p in aof_dir.iterdir()}
    except FileNotFoundError:
        return None
    if not names:
        return None
    if MANIFEST not in names:
        data = sorted(n for n in names if _DATA_FILE.match(n))
        return f"its AOF manifest {MANIFEST} is missing ({len(data)} data files are there: {', '.join(data)})"
    try:
        listed = read_manifest((aof_dir / MANIFEST).read_text(encoding="utf-8", errors="replace"))
    except ValueError as exc:
        return f"its AOF manifest {MANIFEST} is malformed: {exc}"
    if not any(f.kind in "bi" for f in listed):
        return f"its AOF manifest {MANIFEST} lists no data file"
    missing = [f.name for f in listed if f.kind in "bi" and f.name not in names]
    if missing:
        return f"its AOF manifest lists {', '.join(missing)}, which {'is' if len(missing) == 1 else 'are'} missing"
    return None


def damage_in_log(log: str) -> str | None:
    """The line of a server log that says its files are damaged, without its pid/time prefix."""
    for line in log.splitlines():
        if any(marker in line for marker in _DAMAGE):
            line = re.sub(r"^\d+:[A-Z] [^*#]*[*#.-] ", "", line)
            # Redis's own advice (redis-check-aof, aof-load-truncated) is not for our users: repair is.
            return re.split(r"\s+(?:You can:|make a backup)", line, maxsplit=1, flags=re.IGNORECASE)[0].strip(" .")
    return None


def rebuilt_manifest(aof_dir: Path) -> list[AofFile]:
    """The manifest a directory's data files imply: its one base, then its incr files in order.

    Raises ``ValueError`` (saying why) when the files do not tell one order for sure.
    """
    bases: list[AofFile] = []
    incrs: list[AofFile] = []
    for path in aof_dir.iterdir():
        found = _DATA_FILE.match(path.name)
        if found:
            entry = AofFile(path.name, int(found.group(1)), "b" if found.group(2).startswith("base") else "i")
            (bases if entry.kind == "b" else incrs).append(entry)
    if len(bases) != 1:
        raise ValueError(f"{len(bases)} base files ({', '.join(sorted(b.name for b in bases)) or 'none'}); "
                         "exactly one is needed to know where the history starts")
    incrs.sort(key=lambda f: f.seq)
    seqs = [f.seq for f in incrs]
    if seqs and seqs != list(range(seqs[0], seqs[0] + len(seqs))):
        raise ValueError(f"the incr files are not consecutive (numbers {seqs}): some writes are missing")
    return [bases[0], *incrs]


@dataclass(frozen=True)
class FileCheck:
    """What ``redis-check-aof`` found in one file: it is sound up to ``ok_up_to`` bytes of ``size``."""

    name: str
    size: int
    ok_up_to: int
    valid: bool
    detail: str


def check_file(server_binary: Path, path: Path) -> FileCheck:
    """Check one data file with Redis's own checker (the server binary run as ``redis-check-aof``)."""
    # The bundled server binary, run under the name of its checker (argv[0] selects the tool).
    done = subprocess.run(  # noqa: S603
        ["redis-check-aof", os.fsencode(path)],  # noqa: S607
        executable=server_binary, capture_output=True, check=False,
        stdin=subprocess.DEVNULL, timeout=3600,
    )
    output = done.stdout.decode("utf-8", "replace") + done.stderr.decode("utf-8", "replace")
    size = path.stat().st_size
    analyzed = re.findall(r"AOF analyzed: filename=.*?, size=(\d+), ok_up_to=(\d+),", output)
    ok_up_to = int(analyzed[-1][1]) if analyzed else 0
    valid = done.returncode == 0 and (not analyzed or ok_up_to == size)
    detail = ""
    if not valid:
        lines = [line.strip() for line in output.splitlines() if line.strip()]
        errors = [line for line in lines if "ERROR" in line or "rror" in line or "Expected" in line
                  or "not valid" in line]
        detail = "; ".join(errors[:3]) or (lines[-1] if lines else f"redis-check-aof exited {done.returncode}")
    return FileCheck(path.name, size, ok_up_to, valid, detail)


def count_commands(data: bytes) -> tuple[int, int]:
    """How many complete Redis commands (RESP arrays) ``data`` starts with, and how many bytes follow them."""
    position, complete = 0, 0
    while position < len(data):
        end = _command_end(data, position)
        if end is None:
            break
        complete += end[1]
        position = end[0]
    return complete, len(data) - position


def _command_end(data: bytes, start: int) -> tuple[int, int] | None:
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
