"""Offload: conversation turns -> (redacted) -> a model -> checked triples -> the memory.

:meth:`Offloader.submit` returns a job id at once; one worker thread runs the jobs in
order from a bounded queue. The turns stay in this process's memory until their job ran
and are never written anywhere; the job's outcome goes to a :class:`JobLog` that other
processes can read (``synapse-graph jobs``).
"""

from __future__ import annotations

import queue
import threading
import uuid
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from types import TracebackType
from typing import TYPE_CHECKING, Any, Literal, Protocol, Self

from synapse_graph.errors import ConflictingValuesError, InvalidInputError, OffloadQueueFullError
from synapse_graph.models import MemoryScope, Triple, WriteResult
from synapse_graph.offload.client import ChatClient
from synapse_graph.offload.grounding import ungrounded_user_facts
from synapse_graph.offload.jobs import KEEP_JOBS, FileJobLog, Job, JobLog, error_text, utcnow
from synapse_graph.offload.parse import MAX_PROBLEMS, parse_reply
from synapse_graph.offload.prompt import build_messages
from synapse_graph.offload.turns import Turn, TurnInput, as_turns, redacted
from synapse_graph.rules.text import USER_NAME

if TYPE_CHECKING:
    from synapse_graph.models import EntryEntity, ScopeRules

OFFLOAD_CLOSE_TIMEOUT_S = 120.0
"""How long closing a memory waits for its queued offload jobs to run."""


class OffloadTarget(Protocol):
    """What the offloader needs of a memory (``Memory`` is one; ``AsyncMemory`` lends one to its worker)."""

    @property
    def scope(self) -> str: ...

    @property
    def session(self) -> str | None: ...

    def rules(self) -> ScopeRules: ...

    def search_entities(self, text: str, *, limit: int = ...) -> list[EntryEntity]: ...

    def upsert(self, triples: Any, *, replace: bool = ..., valid_at: Any = ..., source: str | None = ...,
               model: str | None = ..., session: str | None = ..., memory_scope: MemoryScope | None = ...
               ) -> WriteResult: ...

LowConfidence = Literal["candidate", "drop"]
SOURCE = "extracted"
_SEARCH_CHARS = 3_000  # recall queries are limited to 4,000 characters
_KNOWN_LIMIT = 30


@dataclass
class _Pending:
    job: Job
    turns: list[Turn]
    reference: datetime
    done: threading.Event


class Offloader:
    """Extracts triples from conversation turns with a model and stores them, one job at a time.

    Args:
        memory: where the triples go (its scope, trust settings and secret policy apply).
        client: the model (:class:`~synapse_graph.offload.client.OpenAIChatClient` or any
            :class:`~synapse_graph.offload.client.ChatClient`).
        log: where job outcomes are kept for other processes (default: a :class:`FileJobLog`
            in the user data directory, or ``$SYNAPSE_OFFLOAD_JOBS``).
        max_queued: jobs waiting at most; :meth:`submit` raises ``OffloadQueueFullError`` beyond.
        low_confidence: triples below the memory's ``candidate_below`` are stored as
            candidates (``"candidate"``, the default) or left out (``"drop"``).
        default_confidence: confidence of a triple the model gave none for.

    Every stored triple records ``source="extracted"``, ``model=<client.model>`` and the
    job's ``session``. The worker thread calls ``memory``; share it only with callers that
    may use it from another thread.

    Example:
        >>> with Offloader(memory, OpenAIChatClient("http://127.0.0.1:8080", "qwen2.5")) as offloader:
        ...     job_id = offloader.submit([{"role": "user", "text": "I moved to Lyon last month"}])
        ...     offloader.wait(job_id).created
    """

    def __init__(
        self,
        memory: OffloadTarget,
        client: ChatClient,
        *,
        log: JobLog | None = None,
        max_queued: int = 16,
        low_confidence: LowConfidence = "candidate",
        default_confidence: float = 0.5,
    ) -> None:
        if low_confidence not in ("candidate", "drop"):
            raise InvalidInputError(f"low_confidence must be 'candidate' or 'drop', not {low_confidence!r}")
        if not 0.0 <= default_confidence <= 1.0:
            raise InvalidInputError(f"default_confidence must be between 0 and 1, got {default_confidence}")
        if max_queued < 1:
            raise InvalidInputError(f"max_queued must be at least 1, got {max_queued}")
        self.memory = memory
        self.client = client
        self.log: JobLog = log if log is not None else FileJobLog()
        self.low_confidence: LowConfidence = low_confidence
        self.default_confidence = default_confidence
        self._queue: queue.Queue[_Pending | None] = queue.Queue(maxsize=max_queued)
        self._pending: dict[str, _Pending] = {}
        self._lock = threading.Lock()
        self._worker: threading.Thread | None = None
        self._closed = False

    # -- public ------------------------------------------------------------------------------------

    def submit(self, turns: Iterable[TurnInput], *, session: str | None = None,
               reference: datetime | None = None, notes: Sequence[str] = ()) -> str:
        """Queue the turns for extraction and return the job id at once.

        ``reference`` is the time relative dates in the turns are resolved against
        (default: the last turn's time, else now); facts without a date of their own
        are recorded as valid from it. ``notes`` go first into the job's problems (what
        the caller left out of the turns, e.g.); like them, they must hold no turn text.
        """
        checked = as_turns(turns)
        if session is not None and (not isinstance(session, str) or not session.strip()):
            raise InvalidInputError("session must be a non-empty string or None")
        if reference is None:
            stamps = [t.at for t in checked if t.at is not None]
            reference = max(stamps) if stamps else utcnow()
        elif reference.tzinfo is None:
            reference = reference.replace(tzinfo=UTC)
        job = Job(id=uuid.uuid4().hex, scope=self.memory.scope, session=session, submitted_at=utcnow(),
                  turns=len(checked), model=self.client.model, problems=list(notes)[:MAX_PROBLEMS])
        pending = _Pending(job, checked, reference, threading.Event())
        with self._lock:
            if self._closed:
                raise InvalidInputError("this Offloader is closed; create a new one")
            try:
                self._queue.put_nowait(pending)
            except queue.Full:
                raise OffloadQueueFullError(
                    f"{self._queue.maxsize} offload jobs are already waiting; wait for them (Offloader.wait) "
                    "and offload again"
                ) from None
            self._pending[job.id] = pending
            # Logged under the lock: the worker takes the lock before logging "running", so the
            # "queued" entry can never land after it.
            self.log.record(job)
            if self._worker is None:
                self._worker = threading.Thread(target=self._run, name="synapse-offload", daemon=True)
                self._worker.start()
        return job.id

    def wait(self, job_id: str, timeout: float | None = None) -> Job:
        """The job once it finished (or its current state when ``timeout`` seconds passed first)."""
        with self._lock:
            pending = self._pending.get(job_id)
        if pending is None:
            found = self.job(job_id)
            if found is None:
                raise InvalidInputError(f"no offload job {job_id!r} in this process or the job log")
            return found
        pending.done.wait(timeout)
        return pending.job

    def job(self, job_id: str) -> Job | None:
        """A job of this process, or from the log."""
        with self._lock:
            pending = self._pending.get(job_id)
        if pending is not None:
            return pending.job
        return next((j for j in self.log.recent() if j.id == job_id), None)

    def close(self, *, wait: bool = True, timeout: float | None = None) -> None:
        """Stop taking jobs; with ``wait``, run the queued ones first, else cancel them."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            worker = self._worker
        if not wait:
            while True:
                try:
                    item = self._queue.get_nowait()
                except queue.Empty:
                    break
                if item is not None:
                    self._finish(item, item.job.model_copy(update={"status": "cancelled", "finished_at": utcnow(),
                                                                   "error": "cancelled when the offloader closed"}))
        if worker is not None:
            self._queue.put(None)
            worker.join(timeout)

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    # -- the worker --------------------------------------------------------------------------------

    def _run(self) -> None:
        while True:
            item = self._queue.get()
            if item is None:
                return
            with self._lock:
                running = item.job.model_copy(update={"status": "running", "started_at": utcnow()})
                item.job = running
            self.log.record(running)
            try:
                finished = self._extract_and_store(item, running)
            except Exception as exc:  # the worker must outlive any one job
                finished = running.model_copy(update={"status": "failed", "error": error_text(exc)})
            self._finish(item, finished.model_copy(update={"finished_at": utcnow()}))

    def _finish(self, item: _Pending, job: Job) -> None:
        item.job = job
        item.turns = []  # the turns are not kept once their job ran
        try:
            self.log.record(job)
        finally:
            item.done.set()
            with self._lock:  # a long-lived process keeps the last finished jobs only (the log has them too)
                finished = [k for k, p in self._pending.items() if p.done.is_set()]
                for key in finished[: max(0, len(finished) - KEEP_JOBS)]:
                    del self._pending[key]

    def _extract_and_store(self, item: _Pending, job: Job) -> Job:
        turns, kinds = redacted(item.turns)
        job = job.model_copy(update={"redacted": list(kinds)})
        rules = self.memory.rules()  # the scope's stored rules, read once per job
        messages = build_messages(turns, known_entities=self._known_entities(turns),
                                  single_valued=rules.single_valued, reference=item.reference)
        reply = self.client.complete(messages)
        parsed = parse_reply(reply)
        threshold = rules.candidate_below
        keep: list[Triple] = []
        dropped = parsed.dropped
        ungrounded = set(ungrounded_user_facts(parsed.triples, turns))
        for index, triple in enumerate(parsed.triples):
            if index in ungrounded:
                dropped += 1
                parsed.problem(f"extracted triple {index}: a fact about {USER_NAME} that the user's own turns do "
                               "not support (the conversation holds tool output); left out")
                continue
            confidence = self.default_confidence if triple.confidence is None else triple.confidence
            if confidence < threshold and self.low_confidence == "drop":
                dropped += 1
                continue
            keep.append(triple.model_copy(update={"confidence": confidence}))
        result, refused = self._store(keep, job, item.reference)
        stored = [t for i, t in enumerate(keep) if i not in refused]
        problems = [*job.problems, *parsed.problems,
                    *(f"triple {i} refused by the memory: {why}" for i, why in refused.items())]
        return job.model_copy(update={
            "status": "done",
            "extracted": len(parsed.triples),
            "dropped": dropped + len(refused),
            "created": result.created,
            "confirmed": result.confirmed,
            "candidates": sum(1 for t in stored if (t.confidence or 0.0) < threshold),
            "problems": problems[:MAX_PROBLEMS],
        })

    def _known_entities(self, turns: list[Turn]) -> list[str]:
        """Names of the scope's entities that the conversation's words match, so the model reuses them."""
        text = " ".join(t.text for t in turns)[-_SEARCH_CHARS:]
        found = [e.name for e in self.memory.search_entities(text, limit=_KNOWN_LIMIT)]
        return [USER_NAME, *found]

    def _store(self, triples: list[Triple], job: Job, reference: datetime) -> tuple[WriteResult, dict[int, str]]:
        """Write the batch in one transaction; if the memory refuses a triple, write them one by one.

        Returns what was written and, by index, the triples the memory refused (and the error's kind).
        """
        if not triples:
            return WriteResult(), {}

        # Turns of the session the memory is bound to become that session's private memory.
        into: MemoryScope = "session" if job.session is not None and job.session == self.memory.session else "durable"

        def write(batch: Triple | list[Triple]) -> WriteResult:
            return self.memory.upsert(batch, source=SOURCE, model=job.model, session=job.session, valid_at=reference,
                                      memory_scope=into)

        refused: dict[int, str] = {}
        try:
            return write(triples), {}
        except ConflictingValuesError as exc:
            # Two values of a single-valued predicate from one instant: the model contradicts itself, and
            # neither is written (the job's problems name the triples); the others go in as one batch.
            refused = {index: type(exc).__name__ for index in exc.indexes}
            rest = [t for i, t in enumerate(triples) if i not in refused]
            try:
                return (write(rest) if rest else WriteResult()), refused
            except InvalidInputError:
                pass
        except InvalidInputError:
            pass  # find the triples it refuses; the others still go in
        total = WriteResult()
        for index, triple in enumerate(triples):
            if index in refused:
                continue
            try:
                one = write(triple)
            except InvalidInputError as exc:
                refused[index] = type(exc).__name__
                continue
            for name in ("created", "confirmed", "closed", "entities_created", "aliases_merged"):
                setattr(total, name, getattr(total, name) + getattr(one, name))
        return total, refused
