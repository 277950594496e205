"""Every call the MCP server makes to its memory, in one place.

The server holds one :class:`~synapse_graph.AsyncMemory` per process, opened on the event loop
that serves. Calls run concurrently: reads need no coordination, and writes queue on the scope's
lock with every other writer of the store (other server processes included). Nothing is retried
here: the library already plans a write again when the scope moved under it, and when it could
not have the lock within its ``lock_timeout`` it raises :class:`~synapse_graph.errors.ScopeBusyError`,
which nothing was written for and which the server reports as a tool error saying to call again.
Retrying it here would only stretch, unseen, a wait the user configured and the client times.

Arguments pass through as the model gave them (times as strings included), so the
library's own validators and time parser judge them, as for every other caller.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime

from synapse_graph.aio import AsyncMemory
from synapse_graph.engine.operations import ObservationItem, on_session
from synapse_graph.errors import InvalidInputError
from synapse_graph.models import (
    Digest,
    Entity,
    EntityPage,
    EntryEntity,
    Fact,
    MemoryScope,
    Observation,
    Observed,
    PurgeResult,
    Recall,
    RecalledFact,
    ScopeRules,
    Triple,
    WriteResult,
)


class MemoryCalls:
    """The memory as the server uses it: one open :class:`AsyncMemory`, awaited."""

    def __init__(self, memory: AsyncMemory) -> None:
        self.memory = memory

    @property
    def scope(self) -> str:
        return self.memory.scope

    def reads_session(self, memory_scope: MemoryScope | None, *, default: MemoryScope) -> bool:
        """Whether a call with this ``memory_scope`` acts on the bound session's memory; a server bound to no
        session refuses ``memory_scope="session"`` in words that fit it (not the library's ``session=ID``)."""
        if memory_scope == "session" and self.memory.session is None:
            raise InvalidInputError("memory_scope='session' needs a server bound to a session (synapse-graph mcp "
                                    "--session SESSION); this one serves the durable memory only: leave it out")
        return on_session(self.memory.session, memory_scope, default=default)

    # -- writes ----------------------------------------------------------------------------------

    async def upsert(self, triples: Sequence[Triple], *, replace: bool, source: str | None,
                     memory_scope: MemoryScope | None = None) -> WriteResult:
        return await self.memory.upsert(list(triples), replace=replace, source=source, memory_scope=memory_scope)

    async def retract(self, subject: str, predicate: str, object: str | None, *, at: str | None) -> int:
        return await self.memory.retract(subject, predicate, object, at=at)

    async def feedback(self, fact_id: str, verdict: str) -> Fact:
        return await self.memory.feedback(fact_id, verdict)

    async def pin(self, fact_id: str, pinned: bool) -> Fact:
        return await (self.memory.pin(fact_id) if pinned else self.memory.unpin(fact_id))

    async def purge(self, entity: str) -> PurgeResult:
        return await self.memory.purge(entity)

    async def approve(self, fact_id: str) -> None:
        await self.memory.approve(fact_id)

    async def reject(self, fact_id: str, reason: str) -> None:
        await self.memory.reject(fact_id, reason)

    async def observe_many(self, items: Sequence[ObservationItem]) -> list[list[Observation]]:
        return await self.memory.observe_many(list(items))

    async def observe(self, entity: str, texts: Sequence[str], *, valid_at: str | None, source: str | None,
                      entity_type: str | None, memory_scope: MemoryScope | None = None) -> Observed:
        made = await self.memory.observe(entity, list(texts), valid_at=valid_at, source=source,
                                         entity_type=entity_type, memory_scope=memory_scope)
        return made if isinstance(made, Observed) else Observed(made)

    async def unobserve(self, entity: str, texts: Sequence[str]) -> int:
        return await self.memory.unobserve(entity, list(texts))

    # -- reads -----------------------------------------------------------------------------------

    async def recall(self, query: str, *, as_of: str | None, known_at: str | None, hops: int, limit: int,
                     min_score: float | None = None, max_tokens: int | None = None,
                     memory_scope: MemoryScope | None = None) -> Recall:
        return await self.memory.recall(query, as_of=as_of, known_at=known_at, hops=hops, limit=limit,
                                        min_score=min_score, max_tokens=max_tokens, memory_scope=memory_scope)

    async def facts(self, subject: str | None, predicate: str | None, object: str | None, *, as_of: str | None,
                    known_at: str | None, limit: int, include_history: bool = False,
                    memory_scope: MemoryScope | None = None) -> list[Fact]:
        return await self.memory.facts(subject, predicate, object, as_of=as_of, known_at=known_at, limit=limit,
                                       include_history=include_history, memory_scope=memory_scope)

    async def search_entities(self, text: str, *, limit: int) -> list[EntryEntity]:
        return await self.memory.search_entities(text, limit=limit)

    async def subgraph(self, entities: Sequence[str], *, hops: int, as_of: str | None, known_at: str | None,
                       limit: int) -> list[RecalledFact]:
        return await self.memory.subgraph(list(entities), hops, as_of=as_of, known_at=known_at, limit=limit)

    async def pending(self, *, limit: int) -> list[Fact]:
        return await self.memory.pending(limit=limit)

    async def digest(self, *, limit: int) -> Digest:
        return await self.memory.digest(limit=limit)

    async def rules(self) -> ScopeRules:
        return await self.memory.rules()

    async def entity(self, name: str) -> Entity | None:
        return await self.memory.entity(name)

    async def observations(self, entity: str | None, *, known_at: str | None, limit: int) -> list[Observation]:
        return await self.memory.observations(entity, known_at=known_at, limit=limit)

    async def entities(self, *, after: str | None, known_at: str | None, matching: str | None, limit: int,
                       with_facts: bool = False) -> EntityPage:
        return await self.memory.entities(after=after, known_at=known_at, matching=matching, limit=limit,
                                          with_facts=with_facts)


def now_iso() -> str:
    """The current UTC time, to the microsecond, as the string a cursor pins (parsed by the library like any time)."""
    return datetime.now(UTC).isoformat(timespec="microseconds")
