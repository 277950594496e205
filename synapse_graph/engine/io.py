"""How operations talk to a database without doing I/O themselves (sans I/O).

Every operation of the library (a read, a write, an import chunk) is a generator: it yields
requests (:class:`Read`, :class:`Write`, :class:`Embed`, :class:`Compute`) and receives their answers. The
same operation therefore runs on the synchronous :class:`~synapse_graph.Memory` (driven by
:func:`drive`) and on :class:`~synapse_graph.AsyncMemory` (driven by :func:`drive_async`);
only these drivers, and the backends under them, differ.

Writes run through :func:`run_write`/:func:`run_write_async`: the whole operation (read the
scope's state, plan, apply) runs while the backend holds the scope's write lock, so writers
of one scope queue instead of racing.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import itertools
import random
import time
from collections.abc import Callable, Generator, Iterator
from dataclasses import dataclass
from typing import Any, cast, overload

from synapse_graph.backends.base import AsyncBackend, AsyncStatementRunner, Backend, Params, Row, StatementRunner
from synapse_graph.catalogue import Q
from synapse_graph.embedding import Embedder
from synapse_graph.errors import (
    BackendError,
    BackendUnavailableError,
    ConcurrencyConflictError,
    ConfigurationError,
    ScopeBusyError,
)


@dataclass(frozen=True, slots=True)
class Read:
    """Run a read-only statement; the answer is its rows."""

    name: Q
    params: Params


@dataclass(frozen=True, slots=True)
class Reads:
    """Run independent read-only statements together (in one round trip where the backend can:
    a pipeline on FalkorDB, one session on Neo4j); the answer is the rows of each, in order."""

    requests: tuple[Read, ...]


@dataclass(frozen=True, slots=True)
class Write:
    """Run a writing statement; the answer is its rows."""

    name: Q
    params: Params
    last: bool = False
    """The operation makes no request after this one (whatever its answer): a runner that holds a scope's
    lock may release it in the same round trip."""


@dataclass(frozen=True, slots=True)
class Embed:
    """Embed texts with the memory's embedder; the answer is one vector per text."""

    texts: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Compute[T]:
    """Long pure work (e.g. scoring 100k names): the answer is ``work()``, run by the asyncio driver in a worker
    thread so that the event loop it shares (an inspector, an MCP server) keeps answering meanwhile."""

    work: Callable[[], T]


Request = Read | Reads | Write | Embed | Compute[object]
type Answer = object
"""What a driver sends back into an operation, typed ``object`` (never ``Any``): the rows of a :class:`Read` or
:class:`Write`, the rows of each read of a :class:`Reads`, the vectors of an :class:`Embed`, what a
:class:`Compute` returned. Operations receive it through the typed helpers below (:func:`read`, :func:`read_rows`,
:func:`read_each`, :func:`write`, :func:`embed`, :func:`compute`): each yields one request and returns its answer
typed, so an answer used as the wrong kind fails ``mypy --strict``."""
type Op[T] = Generator[Request, Answer, T]
"""An operation: yields requests, receives their answers, returns its result."""


@dataclass(frozen=True, slots=True)
class Projection[R]:
    """A statement whose rows have a declared shape (a ``TypedDict``, :mod:`~synapse_graph.engine.projections`);
    a test checks the rows each returns have exactly its keys."""

    statement: Q
    row: type[R]


@overload
def read(name: Q, params: Params) -> Op[list[Row]]: ...
@overload
def read[R](name: Projection[R], params: Params) -> Op[list[R]]: ...
def read(name: Q | Projection[Any], params: Params) -> Op[list[Any]]:
    """Run a read-only statement: ``rows = yield from read(Q.X, params)``; rows typed by their projection's
    shape when given one (``yield from read(projections.ENTITY_NAMES, params)``)."""
    statement = name.statement if isinstance(name, Projection) else name
    return cast(list[Any], (yield Read(statement, params)))


def read_rows(request: Read) -> Op[list[Row]]:
    """Run a read built beforehand (one that may also be sent in a :class:`Reads`): its rows."""
    return (yield from read(request.name, request.params))


def read_each(*requests: Read | None) -> Op[list[list[Row]]]:
    """Run independent reads together (see :class:`Reads`): the rows of each, in order. A request that is None
    (nothing to ask) is not sent and has no rows, and nothing is sent when none is asked: on Neo4j each statement
    of a :class:`Reads` is a round trip of its own."""
    asked = tuple(r for r in requests if r is not None)
    answers = iter(cast(list[list[Row]], (yield Reads(asked))) if asked else [])
    return [[] if r is None else next(answers) for r in requests]


def write(name: Q, params: Params, *, last: bool = False) -> Op[list[Row]]:
    """Run a writing statement (see :class:`Write`): its rows."""
    return cast(list[Row], (yield Write(name, params, last=last)))


def embed(texts: tuple[str, ...]) -> Op[list[list[float]]]:
    """Embed texts with the memory's embedder: one vector per text."""
    return cast(list[list[float]], (yield Embed(texts)))


def compute[T](work: Callable[[], T]) -> Op[T]:
    """Run long pure work (see :class:`Compute`): what it returns."""
    return cast(T, (yield Compute(work)))


class PlanOutdated(Exception):
    """The scope's version moved between planning and applying: plan again."""


ATTEMPTS = 8
"""A write is planned at most this often: more is only needed when the lock was lost (lease ran out)
or the database aborted the transaction (a deadlock), and each attempt waits a little longer."""


def drive[T](op: Op[T], runner: StatementRunner, embedder: Embedder | None) -> T:
    """Run an operation's requests on a synchronous runner (the cyclic collector held off meanwhile)."""
    with collector_paused():
        return _drive(op, runner, embedder)


def _drive[T](op: Op[T], runner: StatementRunner, embedder: Embedder | None) -> T:
    answer: Answer = None
    try:
        while True:
            request = op.send(answer)
            if isinstance(request, Read):
                answer = runner.read(request.name, request.params)
            elif isinstance(request, Reads):
                answer = runner.read_many([(r.name, r.params) for r in request.requests])
            elif isinstance(request, Write):
                answer = (runner.write_last if request.last else runner.write)(request.name, request.params)
            elif isinstance(request, Compute):
                answer = request.work()
            else:
                answer = _embedder(embedder).embed(list(request.texts))
    except StopIteration as done:
        return cast(T, done.value)


def drive_pages[T](pages: Iterator[Op[list[T]]], runner: StatementRunner, embedder: Embedder | None) -> Iterator[T]:
    """Run a paged operation: its first page now (its errors raise here), each later one once the items
    before it are consumed."""
    first = drive(next(pages), runner, embedder)
    return itertools.chain(first, (item for page in pages for item in drive(page, runner, embedder)))


async def drive_async[T](op: Op[T], runner: AsyncStatementRunner, embedder: Embedder | None) -> T:
    """Run an operation's requests on an asyncio runner (embedding runs in a worker thread; the cyclic
    collector held off meanwhile)."""
    with collector_paused():
        return await _drive_async(op, runner, embedder)


async def _drive_async[T](op: Op[T], runner: AsyncStatementRunner, embedder: Embedder | None) -> T:
    answer: Answer = None
    try:
        while True:
            request = op.send(answer)
            if isinstance(request, Read):
                answer = await runner.read(request.name, request.params)
            elif isinstance(request, Reads):
                answer = await runner.read_many([(r.name, r.params) for r in request.requests])
            elif isinstance(request, Write):
                answer = await (runner.write_last if request.last else runner.write)(request.name, request.params)
            elif isinstance(request, Compute):
                answer = await asyncio.to_thread(request.work)
            else:
                answer = await asyncio.to_thread(_embedder(embedder).embed, list(request.texts))
    except StopIteration as done:
        return cast(T, done.value)


def _embedder(embedder: Embedder | None) -> Embedder:
    if embedder is None:
        raise ConfigurationError("no embedder configured: open the Memory with embedder=...")
    return embedder


def _again(exc: Exception, attempt: int) -> float | None:
    """Seconds to wait before planning again after ``exc``, or None to give up and raise it.

    Planning again helps when the plan was outdated or the database aborted the transaction
    (a deadlock, a concurrent creation of the same entity); not when the database is gone (the
    driver already retried the connection) nor when the lock was not had in time.
    """
    retry = isinstance(exc, PlanOutdated) or (
        isinstance(exc, BackendError) and exc.is_retryable()
        and not isinstance(exc, ScopeBusyError | BackendUnavailableError))
    if not retry or attempt == ATTEMPTS - 1:
        return None
    return random.uniform(0, 0.01 * 2**attempt)


def _outdated(scope: str) -> ConcurrencyConflictError:
    return ConcurrencyConflictError(
        f"scope {scope!r} kept changing under {ATTEMPTS} attempts to write (writers that do not take the "
        "scope's lock?); retry later")


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    """Python's cyclic garbage collector held off while an operation runs, and let run again after (if it ran
    before).

    A batch makes tens of thousands of short-lived objects (records, rows, parameter text) that reference
    counting frees; the collector, counting allocations, still ran some 40 times per batch of 1,000 and
    walked the process's long-lived objects, a quarter of the batch's Python time (benchmarks/README.md,
    issue 34). Reads too: a recall set off ~14 collections, and one in ten walked the whole heap (~60 ms in a
    process holding a 100k scope's duplicate scan, ~200 ms in the inspector). Collection resumes when the
    operation ends: nothing it leaves behind escapes it."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def run_write[T](backend: Backend, scope: str, init: Params, make: Callable[[], Op[T]], *,
              timeout: float, embedder: Embedder | None) -> T:
    """Run a write operation holding the scope's lock, planning again if the scope moved under it."""
    for attempt in range(ATTEMPTS):
        try:
            with backend.locked(scope, init, timeout) as runner:
                return drive(make(), runner, embedder)
        except (PlanOutdated, BackendError) as exc:
            pause = _again(exc, attempt)
            if pause is None:
                if isinstance(exc, PlanOutdated):
                    raise _outdated(scope) from exc
                raise
            time.sleep(pause)
    raise AssertionError("unreachable")  # pragma: no cover


async def run_write_async[T](backend: AsyncBackend, scope: str, init: Params, make: Callable[[], Op[T]], *,
                          timeout: float, embedder: Embedder | None) -> T:
    """The asyncio twin of :func:`run_write`."""
    for attempt in range(ATTEMPTS):
        try:
            async with backend.locked(scope, init, timeout) as runner:
                return await drive_async(make(), runner, embedder)
        except (PlanOutdated, BackendError) as exc:
            pause = _again(exc, attempt)
            if pause is None:
                if isinstance(exc, PlanOutdated):
                    raise _outdated(scope) from exc
                raise
            await asyncio.sleep(pause)
    raise AssertionError("unreachable")  # pragma: no cover
