"""An import a person watches and may stop: progress through each phase, and Ctrl-C between two writes.

An import reads and checks the whole file, writes the entities, then the fact records chunk by chunk,
each write one transaction. The first Ctrl-C asks it to stop after the write in progress (nothing is
left half-written, and the counts said are exact); a second one quits at once.
"""

from __future__ import annotations

import signal
import sys
from collections.abc import Iterator, Sequence
from types import FrameType, TracebackType
from typing import Any

from rich.console import Console
from rich.progress import Progress

INTERRUPTED_EXIT = 130
"""Exit code of a command stopped by Ctrl-C (128 + SIGINT), as shells expect."""

_READ_STEP = 1_000
"""Lines read between two updates of the progress bar."""


class Interrupted(Exception):
    """The person asked the import to stop; raised between two writes."""


class ImportProgress:
    """Progress of one import, and the Ctrl-C that stops it between two writes (a context manager)."""

    def __init__(self, lines: Sequence[str] | None, entities: int, facts: int, console: Console, *, show: bool
                 ) -> None:
        """``lines``: those the import reads (shown as they are read), or None for an export read and checked
        already (:func:`~synapse_graph.check_export`), where what is left is writing."""
        self._lines, self.entities, self.facts = lines or [], entities, facts
        self._bar = Progress(console=console, transient=True, disable=not show)
        if lines is None:
            self._task = self._bar.add_task(f"writing {entities:,} entities", total=None)
            self.phase = "entities"
        else:
            self._task = self._bar.add_task(f"reading {len(lines):,} lines", total=len(lines))
            self.phase = "reading"
        self.facts_written = 0
        self.stop_asked = False
        self._previous: Any = None

    def __enter__(self) -> ImportProgress:
        self._previous = signal.signal(signal.SIGINT, self._interrupt)
        self._bar.start()
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        self._bar.stop()
        signal.signal(signal.SIGINT, self._previous)

    def _interrupt(self, number: int, frame: FrameType | None) -> None:
        self.stop_asked = True
        signal.signal(signal.SIGINT, signal.default_int_handler)  # a second Ctrl-C quits at once
        self._bar.update(self._task, description="stopping after the write in progress (Ctrl-C again: at once)")

    def _check(self) -> None:
        if self.stop_asked:
            raise Interrupted

    def lines(self) -> Iterator[str]:
        """The file's lines, counted as the import reads them."""
        for number, line in enumerate(self._lines, start=1):
            if number % _READ_STEP == 0:
                self._check()
                self._bar.update(self._task, completed=number)
            yield line
        self._check()
        self.phase = "entities"
        self._bar.update(self._task, description=f"writing {self.entities:,} entities", total=None, completed=0)

    def written(self, records: int) -> None:
        """``Memory.import_``'s progress: 0 once the entities are written, then each chunk's records."""
        if self.phase == "entities":
            self.phase = "facts"
            self._bar.update(self._task, description=f"writing {self.facts:,} fact records", total=self.facts,
                             completed=0)
        self.facts_written += records
        self._bar.update(self._task, completed=self.facts_written)
        self._check()

    def said(self, file: str, scope: str) -> str:
        """What an interrupted import did, and how to finish it."""
        if self.phase == "reading":
            return f"interrupted while reading {file}: nothing was imported"
        return (f"interrupted: imported the {self.entities:,} entities and {self.facts_written:,} of "
                f"{self.facts:,} fact records of {file} into scope {scope!r}; run the same import again to "
                "finish it (what is already there is skipped)")


def interrupted_exit(message: str, as_json: bool, console: Console) -> None:
    """Say what an interrupted command did (JSON under --json) on stderr; the caller exits 130."""
    if as_json:
        import json

        print(json.dumps({"error": "Interrupted", "message": message}, ensure_ascii=False), file=sys.stderr)
    else:
        console.print(message, soft_wrap=True)
