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
import subprocess
from dataclasses import dataclass
from pathlib import Path

from synapse_graph.backends.aof_ledger import (
    DATA_FILE,
    MANIFEST,
    AofFile,
    count_commands,
    manifest_text,
    mismatches,
    read_manifest,
)

__all__ = ["MANIFEST", "AofFile", "FileCheck", "check_file", "count_commands", "damage", "damage_in_log",
           "manifest_text", "read_manifest", "rebuilt_manifest", "shown"]

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


def damage(aof_dir: Path) -> str | None:
    """What is wrong with a store's files that Redis would not refuse itself; ``None`` if nothing is.

    That is a missing or malformed manifest, a listed file missing, and a file that is not what
    the ledger recorded (shorter, or changed; see ``aof_ledger``). A missing or empty directory
    is a store not written yet, not a damaged one.
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
        data = sorted(n for n in names if DATA_FILE.match(n))
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
    changed = mismatches(aof_dir, [f for f in listed if f.kind in "bi"], rdb_checksums=False)
    return "; ".join(m.describe() for m in changed) or None


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
        found = DATA_FILE.match(path.name)
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
