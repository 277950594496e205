"""``AsyncMemory``: the asyncio twin of :class:`~synapse_graph.Memory`, on the official async clients.

The operations are the same objects the synchronous memory runs (:mod:`synapse_graph.engine`);
only the I/O differs: ``neo4j.AsyncDriver`` and ``redis.asyncio`` (FalkorDB, the embedded
server included). Nothing runs in a thread pool but the embedded server's start and stop, which
wait on file locks, and the embedder's CPU work.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Coroutine, Iterable, Iterator
from datetime import datetime, timedelta
from types import TracebackType
from typing import Any, Self, Unpack

from synapse_graph.backends import AsyncBackend, open_async_backend
from synapse_graph.engine import operations as ops
from synapse_graph.engine.inputs import TripleInput
from synapse_graph.engine.io import Op, drive_async
from synapse_graph.engine.operations import ObservationItem
from synapse_graph.engine.sessions import DEFAULT_TTL as DEFAULT_SESSION_TTL
from synapse_graph.engine.settings import MemoryOptions
from synapse_graph.engine.steps import WriteStep
from synapse_graph.engine.transfer import CheckedExport, import_chunks
from synapse_graph.engine.trust import AuditFilters
from synapse_graph.errors import ConfigurationError, NotFoundError
from synapse_graph.graphiti.facade import AsyncGraphitiImports
from synapse_graph.growth import Growth
from synapse_graph.models import (
    AliasResult,
    AuditEntry,
    Digest,
    Entity,
    EntityPage,
    EntryEntity,
    Fact,
    MemoryScope,
    Observation,
    Period,
    PurgeResult,
    Recall,
    RecalledFact,
    ScopeRules,
    Session,
    Stats,
    TimeInput,
    WriteResult,
)
from synapse_graph.offload.jobs import Job
from synapse_graph.offload.offloader import OFFLOAD_CLOSE_TIMEOUT_S, Offloader
from synapse_graph.offload.turns import TurnInput
from synapse_graph.review import AsyncDuplicateReview
from synapse_graph.rules.recall import MAX_ENTRY_ENTITIES
from synapse_graph.time_questions import AsyncTimeQuestions


class AsyncMemory(AsyncDuplicateReview, MemoryOptions, AsyncGraphitiImports, AsyncTimeQuestions):
    """The asyncio twin of :class:`~synapse_graph.Memory`: the same methods, awaited.

    The constructor only checks its arguments; ``await memory.open()`` (or ``async with``)
    connects. See :class:`~synapse_graph.Memory` for what each method does.

    Example:
        >>> async with AsyncMemory("/tmp/demo.db", scope="demo") as memory:
        ...     await memory.upsert(Triple(subject="Dana", predicate="LIVES_IN", object="Paris"))
        ...     await memory.facts("Dana")
    """

    _backend: AsyncBackend | None = None

    async def open(self) -> Self:
        """Connect (start or join the embedded server), create the schema, check the scope's rules."""
        if self._backend is not None:
            return self
        backend = await open_async_backend(self._location, auth=self._auth, database=self._database,
                                           create=self._create)
        self._backend = backend
        try:
            self._schema_ready(await backend.ensure_schema(self._ctx.dimensions), backend.cosines_in_process)
            if ops.needs_opening(await self._read(ops.state(self._ctx)), self._asked):
                await self._write(ops.open_scope(self._ctx, self._asked))
        except BaseException:
            self._backend = None
            await backend.close()
            raise
        return self

    @property
    def backend(self) -> AsyncBackend:
        """The database connection (for tools and tests; prefer the methods here)."""
        if self._backend is None:
            raise ConfigurationError("this AsyncMemory is not open: await memory.open() or use 'async with'")
        return self._backend

    @property
    def location(self) -> str:
        """Where the store is: the file of the embedded database, or the server's URL."""
        return self.backend.location

    async def close(self) -> None:
        """Finish queued offload jobs, close the connection (and the embedded server after its last user)."""
        if self._offloader is not None:
            offloader, self._offloader = self._offloader, None
            await asyncio.to_thread(offloader.close, wait=True, timeout=OFFLOAD_CLOSE_TIMEOUT_S)
        if self._backend is not None:
            backend, self._backend = self._backend, None
            await backend.close()

    async def __aenter__(self) -> Self:
        return await self.open()

    async def __aexit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                        tb: TracebackType | None) -> None:
        await self.close()

    def __repr__(self) -> str:
        return f"AsyncMemory({self._location!r}, scope={self.scope!r})"

    async def _read[T](self, op: Op[T]) -> T:
        return await drive_async(op, self.backend, self.embedder)

    async def _write[T](self, step: WriteStep[T]) -> T:
        return await ops.run_steps_async(self.backend, step, timeout=self.lock_timeout, embedder=self.embedder)

    async def rules(self) -> ScopeRules:
        """See :meth:`Memory.rules`."""
        return (await self._read(ops.state(self._ctx))).rules

    async def set_rules(self, *, max_facts: int | None = None, max_entities: int | None = None,
                        max_candidates: int | None = None, single_valued: Iterable[str] | None = None,
                        candidate_below: float | None = None, merge_duplicates_above: float | None = None
                        ) -> ScopeRules:
        """See :meth:`Memory.set_rules`."""
        return await self._write(ops.set_rules(self._ctx, max_facts=max_facts, max_entities=max_entities,
                                               max_candidates=max_candidates, single_valued=single_valued,
                                               candidate_below=candidate_below,
                                               merge_duplicates_above=merge_duplicates_above))

    async def upsert(self, triples: TripleInput | Iterable[TripleInput], *, replace: bool = False,
                     valid_at: TimeInput | None = None, source: str | None = None, model: str | None = None,
                     session: str | None = None, memory_scope: MemoryScope | None = None) -> WriteResult:
        """See :meth:`Memory.upsert`."""
        at = ops.scoped(self._ctx, memory_scope, default="durable")
        return await self._write(ops.upsert(at, triples, replace=replace, valid_at=valid_at, source=source,
                                            model=model, session=session))

    async def retract(self, subject: str, predicate: str, object: str | None = None, *,
                      at: TimeInput | None = None) -> int:
        """See :meth:`Memory.retract`."""
        return await self._write(ops.retract(self._ctx, subject, predicate, object, at))

    async def alias(self, canonical: str, alias: str) -> AliasResult:
        """See :meth:`Memory.alias`."""
        return await self._write(ops.alias(self._ctx, canonical, alias))

    async def observe(self, entity: str, texts: Iterable[str], *, source: str | None = None,
                      session: str | None = None, memory_scope: MemoryScope | None = None,
                      entity_type: str | None = None, valid_at: TimeInput | None = None) -> list[Observation]:
        """See :meth:`Memory.observe`."""
        at = ops.scoped(self._ctx, memory_scope, default="durable")
        return await self._write(ops.observe(at, entity, texts, source, session, entity_type, valid_at))

    async def observe_many(self, items: Iterable[ObservationItem], *, source: str | None = None,
                           session: str | None = None, memory_scope: MemoryScope | None = None
                           ) -> list[list[Observation]]:
        """See :meth:`Memory.observe_many`."""
        at = ops.scoped(self._ctx, memory_scope, default="durable")
        return await self._write(ops.observe_many(at, items, source, session))

    async def unobserve(self, entity: str, texts: Iterable[str]) -> int:
        """See :meth:`Memory.unobserve`."""
        return await self._write(ops.unobserve(self._ctx, entity, texts))

    async def observations(self, entity: str | None = None, *, known_at: TimeInput | None = None,
                           include_history: bool = False, limit: int | None = None) -> list[Observation]:
        """See :meth:`Memory.observations`."""
        return await self._read(ops.observations_of(self._ctx, entity, known_at, include_history, limit))

    async def purge(self, entity: str | None = None, *, scope: str | None = None) -> PurgeResult:
        """See :meth:`Memory.purge`."""
        return await self._write(ops.purge(self._ctx, entity, scope))

    async def facts(self, subject: str | None = None, predicate: str | None = None, object: str | None = None, *,
                    as_of: TimeInput | None = None, known_at: TimeInput | None = None,
                    include_history: bool = False, limit: int | None = None, include_candidates: bool = False,
                    include_disputed: bool = False, memory_scope: MemoryScope | None = None,
                    during: Period | None = None, throughout: Period | None = None) -> list[Fact]:
        """See :meth:`Memory.facts`."""
        at = ops.scoped(self._ctx, memory_scope, default="durable")
        return await self._read(ops.facts(at, subject, predicate, object, as_of=as_of, known_at=known_at,
                                          include_history=include_history, limit=limit, during=during,
                                          throughout=throughout, include_candidates=include_candidates,
                                          include_disputed=include_disputed))

    async def history(self, subject: str, predicate: str | None = None, *, known_at: TimeInput | None = None
                      ) -> list[Fact]:
        """See :meth:`Memory.history`."""
        return await self.facts(subject, predicate, include_history=True, known_at=known_at)

    async def neighbourhood(self, entity: str, hops: int = 1, *, as_of: TimeInput | None = None,
                            known_at: TimeInput | None = None, limit: int = 200) -> list[Fact]:
        """See :meth:`Memory.neighbourhood`."""
        return await self._read(ops.neighbourhood(self._ctx, entity, hops, as_of, known_at, limit))

    async def entity(self, name: str) -> Entity | None:
        """See :meth:`Memory.entity`."""
        return await self._read(ops.entity(self._ctx, name))

    async def entities(self, *, after: str | None = None, limit: int = 100, known_at: TimeInput | None = None,
                       matching: str | None = None, with_facts: bool = False) -> EntityPage:
        """See :meth:`Memory.entities`."""
        return await self._read(ops.entities(self._ctx, after=after, limit=limit, known_at=known_at,
                                             matching=matching, with_facts=with_facts))

    async def stats(self) -> Stats:
        """See :meth:`Memory.stats`."""
        return await self._read(ops.stats(self._ctx))

    async def register_session(self, session: str | None = None, *, ttl: timedelta = DEFAULT_SESSION_TTL
                               ) -> Session:
        """See :meth:`Memory.register_session`."""
        return await self._write(ops.register_session(self._ctx, ops.session_id(self._ctx, session), ttl))

    async def sessions(self) -> list[Session]:
        """See :meth:`Memory.sessions`."""
        return await self._read(ops.list_sessions(self._ctx))

    async def revoke_session(self, session: str) -> PurgeResult:
        """See :meth:`Memory.revoke_session`."""
        mark, erase = ops.revoke_session(self._ctx, session)
        await self._write(mark)
        return await self._write(erase)

    async def promote(self, facts: Iterable[Fact | str], *, session: str | None = None) -> WriteResult:
        """See :meth:`Memory.promote`."""
        chosen = ops.session_id(self._ctx, session)
        found = await self._read(ops.session_facts(self._ctx, chosen, facts))
        return await self._write(ops.promote(self._ctx, chosen, found))

    async def offload(self, turns: Iterable[TurnInput], *, session: str | None = None) -> str:
        """See :meth:`Memory.offload`. The offload worker is a thread (the model call blocks for seconds); its
        reads and writes run on this memory's event loop."""
        if self.offload_model is None:
            raise ConfigurationError("no offload model: open the AsyncMemory with offload_model=...")
        if self._offloader is None:
            self._offloader = Offloader(_LoopTarget(self, asyncio.get_running_loop()), self.offload_model)
        return self._offloader.submit(turns, session=session if session is not None else self.session)

    async def offload_job(self, job_id: str, *, wait: float | None = 0.0) -> Job:
        """See :meth:`Memory.offload_job`."""
        if self._offloader is None:
            raise NotFoundError(f"no offload job {job_id!r}: this memory offloaded nothing")
        return await asyncio.to_thread(self._offloader.wait, job_id, wait)

    async def pending(self, *, limit: int | None = None, include_disputed: bool = False) -> list[Fact]:
        """See :meth:`Memory.pending`."""
        return await self._read(ops.pending(self._ctx, limit, include_disputed))

    async def approve(self, fact: Fact | str) -> None:
        """See :meth:`Memory.approve`."""
        await self._write(ops.approve(self._ctx, fact))

    async def reject(self, fact: Fact | str, reason: str) -> None:
        """See :meth:`Memory.reject`."""
        await self._write(ops.reject(self._ctx, fact, reason))

    async def feedback(self, fact: Fact | str, verdict: str) -> Fact:
        """See :meth:`Memory.feedback`."""
        return await self._write(ops.feedback(self._ctx, fact, verdict))

    async def pin(self, fact: Fact | str) -> Fact:
        """See :meth:`Memory.pin`."""
        return await self._write(ops.pin(self._ctx, fact, True))

    async def unpin(self, fact: Fact | str) -> Fact:
        """See :meth:`Memory.unpin`."""
        return await self._write(ops.pin(self._ctx, fact, False))

    async def digest(self, *, limit: int = 20, as_of: TimeInput | None = None) -> Digest:
        """See :meth:`Memory.digest`."""
        return await self._read(ops.digest(self._ctx, limit, as_of))

    async def audit(self, entity: str | None = None, *, limit: int = 100, brief: int | None = None,
                    **filters: Unpack[AuditFilters]) -> list[AuditEntry]:
        """See :meth:`Memory.audit`."""
        return await self._read(ops.audit(self._ctx, entity, limit, brief, **filters))

    async def growth(self, *, steps: int = 60, since: TimeInput | None = None, until: TimeInput | None = None
                     ) -> Growth:
        """See :meth:`Memory.growth`."""
        return await self._read(ops.growth(self._ctx, steps, since, until))

    async def last_write(self) -> datetime | None:
        """See :meth:`Memory.last_write`."""
        return await self._read(ops.last_write(self._ctx))

    async def recall(self, query: str, *, as_of: TimeInput | None = None, known_at: TimeInput | None = None,
                     hops: int = 1, limit: int = 25, min_score: float | None = None, max_tokens: int | None = None,
                     reference_time: TimeInput | None = None, memory_scope: MemoryScope | None = None) -> Recall:
        """See :meth:`Memory.recall`."""
        at = ops.scoped(self._ctx, memory_scope, default="session")
        return await self._read(ops.recall_facts(at, query, as_of=as_of, known_at=known_at, hops=hops, limit=limit,
                                                 min_score=min_score, max_tokens=max_tokens,
                                                 reference_time=reference_time))

    async def search_entities(self, text: str, *, limit: int = MAX_ENTRY_ENTITIES) -> list[EntryEntity]:
        """See :meth:`Memory.search_entities`."""
        return await self._read(ops.search_entities(self._ctx, text, limit))

    async def subgraph(self, entities: Iterable[str], hops: int = 1, *, as_of: TimeInput | None = None,
                       known_at: TimeInput | None = None, limit: int = 100) -> list[RecalledFact]:
        """See :meth:`Memory.subgraph`."""
        return await self._read(ops.subgraph(self._ctx, entities, hops, as_of=as_of, known_at=known_at,
                                             limit=limit))

    async def reindex_embeddings(self, batch_size: int = 256) -> int:
        """See :meth:`Memory.reindex_embeddings`."""
        return await self._read(ops.reindex_embeddings(self._ctx, batch_size))

    async def export(self, *, scope: str | None = None) -> Iterator[str]:
        """See :meth:`Memory.export` (the lines are read a page at a time, then given together)."""
        lines: list[str] = []
        for page in ops.export(self._ctx, scope):
            lines += await self._read(page)
        return iter(lines)

    async def import_(self, lines: Iterable[str] | str | os.PathLike[str] | CheckedExport, *,
                      batch_size: int = 2_000, progress: Any = None) -> WriteResult:
        """See :meth:`Memory.import_`."""
        file, chunks = import_chunks(self._ctx, lines, batch_size)
        created, version = await self._write(ops.import_names(self._ctx, file))
        result = WriteResult(entities_created=created)
        report = progress or (lambda records: None)
        report(0)  # the entities are written
        for chunk in chunks:
            written, version = await self._write(ops.import_records(self._ctx, chunk, version))
            result.created += written.created
            report(len(chunk))
        return result


class _LoopTarget:
    """An ``AsyncMemory`` as the offload worker thread uses it: each call runs on the memory's event loop."""

    def __init__(self, memory: AsyncMemory, loop: asyncio.AbstractEventLoop) -> None:
        self._memory, self._loop = memory, loop

    def _run[T](self, coroutine: Coroutine[Any, Any, T]) -> T:
        return asyncio.run_coroutine_threadsafe(coroutine, self._loop).result()

    @property
    def scope(self) -> str:
        return self._memory.scope

    @property
    def session(self) -> str | None:
        return self._memory.session

    def rules(self) -> ScopeRules:
        return self._run(self._memory.rules())

    def search_entities(self, text: str, *, limit: int = MAX_ENTRY_ENTITIES) -> list[EntryEntity]:
        return self._run(self._memory.search_entities(text, limit=limit))

    def upsert(self, triples: Any, **options: Any) -> WriteResult:
        return self._run(self._memory.upsert(triples, **options))
