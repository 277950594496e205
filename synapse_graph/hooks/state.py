"""How far each transcript was offloaded, so the same turns are never offloaded twice.

One small private file per transcript (named by a hash of its path) holds the line after
the last offloaded record and that record's uuid. An exclusive lock on the file is held
for a whole offload, so a PreCompact and a Stop hook of one session never both send the
same turns.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from synapse_graph.datadir import data_path
from synapse_graph.hooks.transcript import TranscriptTurn

STATE_ENV = "SYNAPSE_HOOK_STATE"


@dataclass(frozen=True)
class Position:
    line: int = 0
    """The first transcript line not yet offloaded."""
    uuid: str | None = None
    """The uuid of the last offloaded record (checks the file was not rewritten)."""


def state_dir() -> Path:
    """``$SYNAPSE_HOOK_STATE`` if set, else ``hook-state`` in the user data directory."""
    return data_path("hook-state", STATE_ENV)


class TranscriptState:
    """The offload position of one transcript."""

    def __init__(self, transcript: str | os.PathLike[str], directory: Path | None = None) -> None:
        self.transcript = str(Path(transcript).resolve())
        digest = hashlib.sha256(self.transcript.encode()).hexdigest()[:32]
        self.path = (directory or state_dir()) / f"{digest}.json"

    @contextlib.contextmanager
    def locked(self, *, blocking: bool = False) -> Iterator[bool]:
        """Hold the transcript's lock; yields False (without the lock) if another offload holds it."""
        self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        fd = os.open(self.path.with_suffix(".lock"), os.O_RDWR | os.O_CREAT, 0o600)
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | (0 if blocking else fcntl.LOCK_NB))
            except BlockingIOError:
                yield False
                return
            yield True
        finally:
            os.close(fd)

    def load(self) -> Position:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
            return Position(int(data["line"]), data.get("uuid"))
        except (FileNotFoundError, ValueError, KeyError, TypeError):
            return Position()

    def save(self, position: Position) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        fd, temp = tempfile.mkstemp(dir=self.path.parent, suffix=".tmp")
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump({"transcript": self.transcript, "line": position.line, "uuid": position.uuid}, handle)
        os.replace(temp, self.path)


def start_index(turns: list[TranscriptTurn], position: Position) -> int:
    """Index of the first turn after ``position``; if the file was rewritten, found again by uuid."""
    if position.uuid is not None:
        at_line = [i for i, t in enumerate(turns) if t.line == position.line - 1]
        if not (at_line and turns[at_line[0]].uuid == position.uuid):
            by_uuid = [i for i, t in enumerate(turns) if t.uuid == position.uuid]
            if by_uuid:
                return by_uuid[0] + 1
    return next((i for i, t in enumerate(turns) if t.line >= position.line), len(turns))


def window_start(turns: list[TranscriptTurn], keep_exchanges: int) -> int:
    """Index of the first turn of the last ``keep_exchanges`` exchanges (they are not offloaded yet)."""
    if keep_exchanges == 0:
        return len(turns)
    prompts = [i for i, t in enumerate(turns) if t.prompt]
    if len(prompts) <= keep_exchanges:
        return 0
    return prompts[-keep_exchanges]


def record_start(turns: list[TranscriptTurn], end: int) -> int:
    """``end`` moved back to the first turn of its record, so an offload never ends inside a record
    (the position saved is a line: the rest of a record split there would never be offloaded)."""
    while 0 < end < len(turns) and turns[end - 1].line == turns[end].line:
        end -= 1
    return end
