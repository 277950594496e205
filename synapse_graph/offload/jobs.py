"""Offload jobs and the log that keeps their outcomes where another process can list them.

A job never holds its turns in the log: turns live only in the memory of the process that
queued them, until the job ran. The log keeps what happened (counts, reasons, the error).
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import tempfile
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from synapse_graph.datadir import data_path
from synapse_graph.rules.redaction import redact

JobStatus = Literal["queued", "running", "done", "failed", "cancelled"]
KEEP_JOBS = 200
JOBS_ENV = "SYNAPSE_OFFLOAD_JOBS"
MAX_ERROR_CHARS = 400


class Job(BaseModel):
    """One offload and its outcome."""

    model_config = ConfigDict(frozen=True)

    id: str
    scope: str
    session: str | None = None
    status: JobStatus = "queued"
    submitted_at: datetime
    started_at: datetime | None = None
    finished_at: datetime | None = None
    turns: int = 0
    model: str | None = None
    extracted: int = 0
    """Triples the reply held that passed the checks."""
    dropped: int = 0
    """Items the reply held that were not usable triples, or were dropped by the trust settings."""
    created: int = 0
    confirmed: int = 0
    candidates: int = 0
    """Stored as candidates (confidence below the memory's ``candidate_below``)."""
    redacted: list[str] = Field(default_factory=list)
    """Kinds of secrets removed from the turns before the model saw them."""
    problems: list[str] = Field(default_factory=list)
    error: str | None = None


class JobLog(Protocol):
    """Where job outcomes go so that any process can list them."""

    def record(self, job: Job) -> None:
        """Add the job, or replace the entry with the same id."""
        ...

    def recent(self, limit: int = KEEP_JOBS) -> list[Job]:
        """The most recent jobs, newest first."""
        ...


def default_job_log_path() -> Path:
    """``$SYNAPSE_OFFLOAD_JOBS``, else ``offload-jobs.jsonl`` in the user data directory."""
    return data_path("offload-jobs.jsonl", JOBS_ENV)


class FileJobLog:
    """A JSON Lines file of the last ``keep`` jobs: rewritten atomically, mode 0600, locked across processes."""

    def __init__(self, path: str | os.PathLike[str] | None = None, *, keep: int = KEEP_JOBS) -> None:
        self.path = Path(path) if path is not None else default_job_log_path()
        self.keep = keep

    def __repr__(self) -> str:
        return f"FileJobLog({str(self.path)!r})"

    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        fd = os.open(self.path.with_name(self.path.name + ".lock"), os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            yield
        finally:
            os.close(fd)  # closing releases the lock

    def _read(self) -> list[Job]:
        try:
            lines = self.path.read_text(encoding="utf-8").splitlines()
        except FileNotFoundError:
            return []
        jobs: list[Job] = []
        for line in lines:
            with contextlib.suppress(ValidationError, ValueError):
                jobs.append(Job.model_validate_json(line))  # a damaged line is skipped, not fatal
        return jobs

    def record(self, job: Job) -> None:
        with self._locked():
            jobs = [j for j in self._read() if j.id != job.id]
            jobs.append(job)
            jobs.sort(key=lambda j: j.submitted_at)
            text = "".join(json.dumps(j.model_dump(mode="json"), ensure_ascii=False) + "\n"
                           for j in jobs[-self.keep:])
            fd, temp = tempfile.mkstemp(dir=self.path.parent, prefix=self.path.name, suffix=".tmp")
            try:
                with os.fdopen(fd, "w", encoding="utf-8") as handle:  # mkstemp creates it 0600
                    handle.write(text)
                    handle.flush()
                    os.fsync(handle.fileno())
                os.replace(temp, self.path)
            except BaseException:
                with contextlib.suppress(OSError):
                    os.unlink(temp)
                raise

    def recent(self, limit: int = KEEP_JOBS) -> list[Job]:
        with self._locked():
            jobs = self._read()
        jobs.sort(key=lambda j: j.submitted_at, reverse=True)
        return jobs[:limit]


def error_text(exc: BaseException) -> str:
    """What a job log keeps of an error: its kind and message, on one line, redacted and short."""
    return redact(f"{type(exc).__name__}: {' '.join(str(exc).split())}"[:MAX_ERROR_CHARS]).text


def utcnow() -> datetime:
    return datetime.now(UTC)
