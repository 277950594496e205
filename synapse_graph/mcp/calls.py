"""Every call the MCP server makes to its memory, in one place.

:class:`~synapse_graph.Memory` is synchronous: each call runs on a worker thread, off the
event loop, one at a time (one ``Memory`` per server process, not used by two threads at
once). When the library's ``AsyncMemory`` arrives, this class is what changes: its methods
await that instead, and nothing else in the server needs to know.

Arguments pass through as the model gave them (times as strings included), so the
library's own validators and time parser judge them, as for every other caller.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from typing import TypeVar

import anyio
import anyio.to_thread

from synapse_graph.errors import ConcurrencyConflictError, ScopeBusyError
from synapse_graph.memory import Memory
from synapse_graph.models import EntryEntity, Fact, PurgeResult, Recall, RecalledFact, Triple, WriteResult

T = TypeVar("T")

WRITE_ATTEMPTS = 4
"""A write the store refused because another writer held the scope changed nothing, so it is tried again."""


class MemoryCalls:
    """The memory as the server uses it: awaitable, serialised, retried where retrying is safe."""

    def __init__(self, memory: Memory) -> None:
        self.memory = memory
        self._one_at_a_time = anyio.CapacityLimiter(1)

    @property
    def scope(self) -> str:
        return self.memory.scope

    async def _call(self, fn: Callable[..., T], *args: object, **kwargs: object) -> T:
        return await anyio.to_thread.run_sync(functools.partial(fn, *args, **kwargs), limiter=self._one_at_a_time)

    async def _write(self, fn: Callable[..., T], *args: object, **kwargs: object) -> T:
        # Only errors that guarantee nothing was written are retried: a busy scope and a lost version race.
        for attempt in range(WRITE_ATTEMPTS):
            try:
                return await self._call(fn, *args, **kwargs)
            except (ConcurrencyConflictError, ScopeBusyError):
                if attempt == WRITE_ATTEMPTS - 1:
                    raise
                await anyio.sleep(0.05 * 4**attempt)
        raise AssertionError("unreachable")  # pragma: no cover

    # -- writes ----------------------------------------------------------------------------------

    async def upsert(self, triples: Sequence[Triple], *, replace: bool, source: str | None) -> WriteResult:
        return await self._write(self.memory.upsert, list(triples), replace=replace, source=source)

    async def retract(self, subject: str, predicate: str, object: str | None, *, at: str | None) -> int:
        return await self._write(self.memory.retract, subject, predicate, object, at=at)

    async def feedback(self, fact_id: str, verdict: str) -> Fact:
        return await self._write(self.memory.feedback, fact_id, verdict)

    async def purge(self, entity: str) -> PurgeResult:
        return await self._write(self.memory.purge, entity)

    async def approve(self, fact_id: str) -> None:
        await self._write(self.memory.approve, fact_id)

    async def reject(self, fact_id: str, reason: str) -> None:
        await self._write(self.memory.reject, fact_id, reason)

    # -- reads -----------------------------------------------------------------------------------

    async def recall(self, query: str, *, as_of: str | None, known_at: str | None, hops: int, limit: int
                     ) -> Recall:
        return await self._call(self.memory.recall, query, as_of=as_of, known_at=known_at, hops=hops, limit=limit)

    async def facts(self, subject: str | None, predicate: str | None, object: str | None, *, as_of: str | None,
                    known_at: str | None, limit: int, include_history: bool = False) -> list[Fact]:
        return await self._call(self.memory.facts, subject, predicate, object, as_of=as_of, known_at=known_at,
                                limit=limit, include_history=include_history)

    async def search_entities(self, text: str, *, limit: int) -> list[EntryEntity]:
        return await self._call(self.memory.search_entities, text, limit=limit)

    async def subgraph(self, entities: Sequence[str], *, hops: int, as_of: str | None, known_at: str | None,
                       limit: int) -> list[RecalledFact]:
        return await self._call(self.memory.subgraph, list(entities), hops, as_of=as_of, known_at=known_at,
                                limit=limit)

    async def pending(self, *, limit: int) -> list[Fact]:
        return await self._call(self.memory.pending, limit=limit)


def now_iso() -> str:
    """The current UTC time, to the microsecond, as the string a cursor pins (parsed by the library like any time)."""
    return datetime.now(UTC).isoformat(timespec="microseconds")
