"""The facade: one short method per public call; the work happens in :mod:`synapse_graph.engine`."""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from datetime import datetime, timedelta
from types import TracebackType
from typing import TYPE_CHECKING, Any, Self, Unpack

from synapse_graph.backends import Backend, open_backend
from synapse_graph.engine import operations as ops
from synapse_graph.engine.inputs import TripleInput
from synapse_graph.engine.io import Op, drive, drive_pages
from synapse_graph.engine.operations import ObservationItem
from synapse_graph.engine.sessions import DEFAULT_TTL as DEFAULT_SESSION_TTL
from synapse_graph.engine.settings import MemoryOptions
from synapse_graph.engine.steps import WriteStep
from synapse_graph.engine.transfer import CheckedExport, import_chunks
from synapse_graph.engine.trust import AuditFilters
from synapse_graph.errors import ConfigurationError, NotFoundError
from synapse_graph.graphiti.facade import GraphitiImports
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
from synapse_graph.review import DuplicateReview
from synapse_graph.rules.recall import MAX_ENTRY_ENTITIES
from synapse_graph.time_questions import TimeQuestions

if TYPE_CHECKING:  # the offload's modules load with the first offload: most processes (hooks, CLI reads) never do
    from synapse_graph.offload.jobs import Job
    from synapse_graph.offload.turns import TurnInput


class Memory(DuplicateReview, MemoryOptions, GraphitiImports, TimeQuestions):
    """A temporal knowledge-graph memory bound to one scope.

    Args:
        location: a file path (embedded FalkorDB, started and stopped by the library), a FalkorDB URL
            (``redis://``, ``falkordb://``), a Neo4j URL (``bolt://``, ``neo4j://``, ``neo4j+s://``), or
            ``None`` for ``memory.db`` in the user's data directory (or ``$SYNAPSE_DB``).
        scope: tenant/repo this memory reads and writes, e.g. ``"acme/web"`` (a session's own: ``session``).
        max_facts, max_entities, max_candidates, single_valued, candidate_below: the scope's rules
            (:class:`~synapse_graph.models.ScopeRules`). They are stored with the scope and every client enforces
            them: given here, they are stored in a scope that has none, and a scope that stores others raises
            :class:`~synapse_graph.errors.ScopeRulesConflictError`. Change them with :meth:`set_rules`.
        secrets: ``"redact"`` replaces secrets in names and sources by placeholders; ``"reject"`` refuses
            them with :class:`~synapse_graph.errors.SecretRejectedError`.
        client: provenance recorded on every fact this memory writes.
        embedder: a local :class:`~synapse_graph.embedding.Embedder` for recall's vector leg.
        lock_timeout: seconds a write waits for the scope's write lock (other writers of the scope
            go first, in turn) before :class:`~synapse_graph.errors.ScopeBusyError`.
        create: with ``False``, a file path where no store exists raises
            :class:`~synapse_graph.errors.NotFoundError` instead of creating one (for readers).
        session: bind the memory to an agent session (see :meth:`register_session`): its recall
            reads the session's private memory by default, and its writes record the session.
        offload_model: the model :meth:`offload` extracts facts with (an OpenAI-compatible
            endpoint: :class:`~synapse_graph.offload.client.OpenAIChatClient`).

    Example:
        >>> with Memory("/tmp/demo.db", scope="demo") as memory:
        ...     memory.upsert(Triple(subject="Dana", predicate="LIVES_IN", object="Paris"))
        ...     memory.facts("Dana")
    """

    def _connect(self) -> None:
        self._backend: Backend = open_backend(self._location, auth=self._auth, database=self._database,
                                              create=self._create)
        try:
            self._schema_ready(self._backend.ensure_schema(self._ctx.dimensions), self._backend.cosines_in_process)
            if ops.needs_opening(self._read(ops.state(self._ctx)), self._asked):
                self._write(ops.open_scope(self._ctx, self._asked))
        except BaseException:
            self._backend.close()
            raise

    # -- lifecycle and plumbing ----------------------------------------------------------------------
    @property
    def backend(self) -> Backend:
        """The database connection (for tools and tests; prefer the methods here)."""
        return self._backend

    @property
    def location(self) -> str:
        """Where the store is: the file of the embedded database, or the server's URL."""
        return self._backend.location

    def close(self) -> None:
        """Finish queued offload jobs, close the connection (and the embedded server after its last user)."""
        try:
            self._close_offloader()
        finally:
            self._backend.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"Memory({self.location!r}, scope={self.scope!r})"

    def _read[T](self, op: Op[T]) -> T:
        return drive(op, self._backend, self.embedder)

    def _write[T](self, step: WriteStep[T]) -> T:
        return ops.run_steps(self._backend, step, timeout=self.lock_timeout, embedder=self.embedder)

    # -- the scope's rules ------------------------------------------------------------------------------

    def rules(self) -> ScopeRules:
        """The rules this scope's writes obey (stored with the scope, else the defaults)."""
        return self._read(ops.state(self._ctx)).rules

    def set_rules(self, *, max_facts: int | None = None, max_entities: int | None = None,
                  max_candidates: int | None = None, single_valued: Iterable[str] | None = None,
                  candidate_below: float | None = None, merge_duplicates_above: float | None = None) -> ScopeRules:
        """Change the scope's rules for every client (recorded in the audit log); returns them."""
        return self._write(ops.set_rules(
            self._ctx, max_facts=max_facts, max_entities=max_entities, max_candidates=max_candidates,
            single_valued=single_valued, candidate_below=candidate_below, merge_duplicates_above=merge_duplicates_above
        ))

    # -- writes -----------------------------------------------------------------------------------------
    def upsert(self, triples: TripleInput | Iterable[TripleInput], *, replace: bool = False,
               valid_at: TimeInput | None = None, source: str | None = None, model: str | None = None,
               session: str | None = None, memory_scope: MemoryScope | None = None) -> WriteResult:
        """Write one or many facts in one transaction (all or nothing).

        A fact already valid over the given interval is confirmed (``confirmations`` + 1, highest
        confidence kept); one whose interval overlaps or touches a stored interval of the same fact
        is merged with it. With ``replace=True``, or for a single-valued predicate (a scope rule),
        the subject's other values of the predicate that hold at the new ``valid_at`` are closed
        there, and a late-arriving value ends where the next known value begins. ``valid_at``
        defaults to now. ``SAME_AS`` triples record aliases (see :meth:`alias`) in the same transaction.
        Writes go to the durable scope unless ``memory_scope="session"`` (the bound session's own scope)."""
        at = ops.scoped(self._ctx, memory_scope, default="durable")
        return self._write(ops.upsert(at, triples, replace=replace, valid_at=valid_at, source=source,
                                      model=model, session=session))

    def retract(self, subject: str, predicate: str, object: str | None = None, *, at: TimeInput | None = None) -> int:
        """End the validity of matching facts at ``at`` (default now); history keeps them. Returns how many."""
        return self._write(ops.retract(self._ctx, subject, predicate, object, at))

    def alias(self, canonical: str, alias: str) -> AliasResult:
        """Record ``alias`` as another name of ``canonical``; says whether anything changed and what merged.

        If the alias names an entity of its own, that entity is merged into the canonical one:
        the result is the store as if its facts had been written to the canonical entity in the
        first place (history kept; single-valued values resolved; candidates, disputes and
        rejections kept). Idempotent; chains resolve to the end (C -> B -> A); :meth:`unmerge` undoes it."""
        return self._write(ops.alias(self._ctx, canonical, alias))

    def observe(self, entity: str, texts: Iterable[str], *, source: str | None = None,
                session: str | None = None, memory_scope: MemoryScope | None = None,
                entity_type: str | None = None, valid_at: TimeInput | None = None) -> list[Observation]:
        """Record free-text observations about an entity (created if new, typed ``entity_type``); returns the new
        ones (an ``Observed`` list: also a new entity's possible duplicates, and near-identical texts held already,
        confirmed instead of stored twice). ``valid_at``: when what they tell happened or held. Observations are
        found by :meth:`recall`, count toward the fact quota, move in a merge and are erased by :meth:`purge`."""
        at = ops.scoped(self._ctx, memory_scope, default="durable")
        return self._write(ops.observe(at, entity, texts, source, session, entity_type, valid_at))

    def observe_many(self, items: Iterable[ObservationItem], *, source: str | None = None,
                     session: str | None = None, memory_scope: MemoryScope | None = None) -> list[list[Observation]]:
        """:meth:`observe` for many entities, all or nothing: ``(entity, texts)``, ``(entity, texts, entity_type)`` or
        ``(entity, texts, entity_type, valid_at)`` items, in one transaction; returns each item's new ones."""
        at = ops.scoped(self._ctx, memory_scope, default="durable")
        return self._write(ops.observe_many(at, items, source, session))

    def unobserve(self, entity: str, texts: Iterable[str]) -> int:
        """Forget observations of an entity (they expire; history keeps them); returns how many."""
        return self._write(ops.unobserve(self._ctx, entity, texts))

    def observations(self, entity: str | None = None, *, known_at: TimeInput | None = None,
                     include_history: bool = False, limit: int | None = None) -> list[Observation]:
        """Observations about an entity (or every entity), as believed at ``known_at``, oldest first."""
        return self._read(ops.observations_of(self._ctx, entity, known_at, include_history, limit))

    def purge(self, entity: str | None = None, *, scope: str | None = None) -> PurgeResult:
        """Hard-delete an entity with all its facts, aliases and log entries, or (``scope=``) the whole scope.

        Unlike :meth:`retract` nothing is kept in history: use it for erasure requests.
        ``scope`` must be this memory's own scope."""
        return self._write(ops.purge(self._ctx, entity, scope))

    # -- reads ------------------------------------------------------------------------------------------
    def facts(self, subject: str | None = None, predicate: str | None = None, object: str | None = None, *,
              as_of: TimeInput | None = None, known_at: TimeInput | None = None, include_history: bool = False,
              limit: int | None = None, include_candidates: bool = False, include_disputed: bool = False,
              memory_scope: MemoryScope | None = None, during: Period | None = None,
              throughout: Period | None = None) -> list[Fact]:
        """Facts valid at ``as_of`` (default now; half-open: not when ``invalid_at == as_of``), as the store
        believed them at ``known_at`` (default now); ``during=(start, end)``: at some moment of the period,
        ``throughout``: at every moment; ``include_history``: every interval. Each says what it ``replaces``
        and was ``replaced_by``. Only believed facts unless ``include_candidates``/``include_disputed``; an
        unknown name gives []. ``memory_scope="session"``: the bound session's own scope."""
        at = ops.scoped(self._ctx, memory_scope, default="durable")
        return self._read(ops.facts(at, subject, predicate, object, as_of=as_of, known_at=known_at,
                                    include_history=include_history, limit=limit, during=during, throughout=throughout,
                                    include_candidates=include_candidates, include_disputed=include_disputed))

    def history(self, subject: str, predicate: str | None = None, *, known_at: TimeInput | None = None
                ) -> list[Fact]:
        """Every validity interval of the subject's facts, oldest first."""
        return self.facts(subject, predicate, include_history=True, known_at=known_at)

    def neighbourhood(self, entity: str, hops: int = 1, *, as_of: TimeInput | None = None,
                      known_at: TimeInput | None = None, limit: int = 200) -> list[Fact]:
        """Facts valid at ``as_of`` around an entity: its own, and with ``hops=2`` its neighbours' too.

        Its own facts first, then its neighbours' (each group oldest first), at most ``limit``. Hop 2 shares
        what is left equally among the neighbours (a share one leaves unused goes to the others)."""
        return self._read(ops.neighbourhood(self._ctx, entity, hops, as_of, known_at, limit))

    def entity(self, name: str) -> Entity | None:
        """The entity a name or alias refers to, or None if unknown."""
        return self._read(ops.entity(self._ctx, name))

    def entities(self, *, after: str | None = None, limit: int = 100, known_at: TimeInput | None = None,
                 matching: str | None = None, with_facts: bool = False) -> EntityPage:
        """The scope's entities, a page at a time (one query each), oldest first, at most ``limit``, with
        their aliases and (``page.observations[key]``) the observations they held at ``known_at``.

        Pass ``page.next`` as ``after`` for the next page (None: the last). ``known_at``: those that existed then.
        ``matching``: those whose name, alias, type or an observation holds it (any case). ``with_facts``: facts too."""
        return self._read(ops.entities(self._ctx, after=after, limit=limit, known_at=known_at, matching=matching,
                                       with_facts=with_facts))

    def stats(self) -> Stats:
        """Counts of entities, aliases and facts in this scope."""
        return self._read(ops.stats(self._ctx))

    # -- sessions -------------------------------------------------------------------------------------
    def register_session(self, session: str | None = None, *, ttl: timedelta = DEFAULT_SESSION_TTL) -> Session:
        """Register a session (default: the bound one): a private scope that takes writes for ``ttl`` (7 days)
        after registration. Registering it again returns it unchanged: reconnecting does not extend it."""
        return self._write(ops.register_session(self._ctx, ops.session_id(self._ctx, session), ttl))

    def sessions(self) -> list[Session]:
        """The sessions this scope registered, oldest first."""
        return self._read(ops.list_sessions(self._ctx))

    def revoke_session(self, session: str) -> PurgeResult:
        """Block further writes to a session and erase its memory; returns what was erased."""
        mark, erase = ops.revoke_session(self._ctx, session)
        self._write(mark)
        return self._write(erase)

    def promote(self, facts: Iterable[Fact | str], *, session: str | None = None) -> WriteResult:
        """Copy facts of a session (default: the bound one) into the durable scope, each recording the session."""
        chosen = ops.session_id(self._ctx, session)
        return self._write(ops.promote(self._ctx, chosen, self._read(ops.session_facts(self._ctx, chosen, facts))))

    def offload(self, turns: Iterable[TurnInput], *, session: str | None = None) -> str:
        """Queue conversation turns for extraction by ``offload_model``; returns the job id at once.

        One worker sends the turns (secrets redacted first) to the model with the scope's entity names and
        rules, parses its reply defensively and stores the triples (``source="extracted"``, the model's
        name; candidates below ``candidate_below``), in the session's private memory when there is one.
        ``synapse-graph jobs`` lists the last 200 jobs."""
        if self.offload_model is None:
            raise ConfigurationError("no offload model: open Memory with offload_model=OpenAIChatClient(url, model)")
        if self._offloader is None:
            from synapse_graph.offload.offloader import Offloader
            self._offloader = Offloader(self, self.offload_model)
        return self._offloader.submit(turns, session=session if session is not None else self.session)

    def offload_job(self, job_id: str, *, wait: float | None = 0.0) -> Job:
        """An offload job of this process (waiting up to ``wait`` seconds for it to finish; None: until it
        does), or from the job log."""
        if self._offloader is None:
            raise NotFoundError(f"no offload job {job_id!r}: this memory offloaded nothing")
        return self._offloader.wait(job_id, timeout=wait)

    # -- trust: review, feedback, audit -------------------------------------------------------------------
    def pending(self, *, limit: int | None = None, include_disputed: bool = False) -> list[Fact]:
        """Candidates waiting for review (recorded, not believed), oldest first, flagged if rejected before;
        with ``include_disputed``, disputed facts too (feedback said stale or wrong)."""
        return self._read(ops.pending(self._ctx, limit, include_disputed))

    def approve(self, fact: Fact | str) -> None:
        """Believe a candidate: it joins its timeline as if written now (closing single-valued values)."""
        self._write(ops.approve(self._ctx, fact))

    def reject(self, fact: Fact | str, reason: str) -> None:
        """Refuse a candidate; the same fact written again comes back as a candidate flagged with this reason."""
        self._write(ops.reject(self._ctx, fact, reason))

    def feedback(self, fact: Fact | str, verdict: str) -> Fact:
        """Say whether a fact was ``helpful``, ``stale`` or ``wrong``; returns the updated fact.

        Helpful raises its confidence (and ends a dispute); stale or wrong lower it and mark it
        disputed, which hides it from default reads."""
        return self._write(ops.feedback(self._ctx, fact, verdict))

    def pin(self, fact: Fact | str) -> Fact:
        """Pin a fact: it comes first in :meth:`digest`, whatever else the scope holds. Returns it."""
        return self._write(ops.pin(self._ctx, fact, True))

    def unpin(self, fact: Fact | str) -> Fact:
        """Unpin a fact. Returns it."""
        return self._write(ops.pin(self._ctx, fact, False))

    def digest(self, *, limit: int = 20, as_of: TimeInput | None = None) -> Digest:
        """What an agent should just know at the start of a session: pinned facts first, then the most
        confirmed and recent facts about the user and the most connected entities (believed, valid at
        ``as_of``, each once, at most ``limit``; the same store always gives the same digest)."""
        return self._read(ops.digest(self._ctx, limit, as_of))

    def audit(self, entity: str | None = None, *, limit: int = 100, brief: int | None = None,
              **filters: Unpack[AuditFilters]) -> list[AuditEntry]:
        """The audit log, newest first, narrowed by ``entity`` (entries that touched it) and filters: ``action``
        (``"feedback"``: every verdict), ``client``, ``session``, ``since`` <= at < ``until``, ``after=`` (a page).
        ``brief=n``: each entry's first n entities and records and their counts (``AuditEntry.brief``)."""
        return self._read(ops.audit(self._ctx, entity, limit, brief, **filters))

    def growth(self, *, steps: int = 60, since: TimeInput | None = None, until: TimeInput | None = None) -> Growth:
        """The scope's counts at ``steps`` instants from ``since`` (default: its first write) to ``until`` (now)."""
        return self._read(ops.growth(self._ctx, steps, since, until))

    def last_write(self) -> datetime | None:
        """When anything in this scope last changed (a write, a review, a purge); None if nothing ever did."""
        return self._read(ops.last_write(self._ctx))

    # -- recall -----------------------------------------------------------------------------------------
    def recall(self, query: str, *, as_of: TimeInput | None = None, known_at: TimeInput | None = None,
               hops: int = 1, limit: int = 25, min_score: float | None = None, max_tokens: int | None = None,
               reference_time: TimeInput | None = None, memory_scope: MemoryScope | None = None) -> Recall:
        """The memories (facts valid at ``as_of``, default now, and observations) that answer a question in
        words, most relevant first, at most ``limit`` in all (``max_tokens``: as many as fit that budget).

        Four legs, fused: the memories' words (full-text, BM25), their meaning (with an ``embedder``), the facts
        ``hops`` (1 or 2) around the entities the question names, the time it names ("last May", relative to
        ``reference_time``, default ``as_of``; "when" prefers dated memories). Small talk never reaches the
        database. ``min_score`` (0..1) leaves out memories answering less of it (``Recall.abstained``).
        ``memory_scope``: ``"session"`` (the default when bound to one) or ``"durable"``."""
        at = ops.scoped(self._ctx, memory_scope, default="session")
        return self._read(ops.recall_facts(at, query, as_of=as_of, known_at=known_at, hops=hops, limit=limit,
                                           min_score=min_score, max_tokens=max_tokens, reference_time=reference_time))

    def search_entities(self, text: str, *, limit: int = MAX_ENTRY_ENTITIES) -> list[EntryEntity]:
        """Recall's entry step alone: entities matching the text, fused from the search legs."""
        return self._read(ops.search_entities(self._ctx, text, limit))

    def subgraph(self, entities: Iterable[str], hops: int = 1, *, as_of: TimeInput | None = None,
                 known_at: TimeInput | None = None, limit: int = 100) -> list[RecalledFact]:
        """Recall's expansion step alone: facts valid at ``as_of`` around the named entities."""
        return self._read(ops.subgraph(self._ctx, entities, hops, as_of=as_of, known_at=known_at, limit=limit))

    def reindex_embeddings(self, batch_size: int = 256) -> int:
        """Embed what lacks a vector of this memory's embedder (entity names, observations, facts) and record it as
        the scope's embedder, also when the scope held another's (``synapse-graph reembed``); returns how many."""
        return self._read(ops.reindex_embeddings(self._ctx, batch_size))

    # -- export and import --------------------------------------------------------------------------------
    def export(self, *, scope: str | None = None) -> Iterator[str]:
        """The scope as JSON Lines (header, rules, entities, aliases, fact records, observations, sessions, rejections,
        audit log), streamed a page at a time; a write to the scope meanwhile raises ConcurrencyConflictError."""
        return drive_pages(ops.export(self._ctx, scope), self._backend, self.embedder)

    def import_(self, lines: Iterable[str] | str | os.PathLike[str] | CheckedExport, *, batch_size: int = 2_000,
                progress: Any = None) -> WriteResult:
        """Restore an export (a path or an iterable of JSON lines) into this memory's scope, losslessly.

        Every line is checked first (:class:`InvalidImportError` names a line that could make the store lie); an
        export :func:`~synapse_graph.check_export` checked for this scope is imported without being read again.
        Records keep their ids and times. A scope holding anything but (part of) this export is refused (see
        docs/import.md); importing again completes or repeats it. ``progress(0)`` after the entities, then
        ``progress(n)`` after each chunk of ``batch_size`` records (one transaction each)."""
        file, chunks = import_chunks(self._ctx, lines, batch_size)
        created, version = self._write(ops.import_names(self._ctx, file))
        result = WriteResult(entities_created=created)
        (report := progress or (lambda records: None))(0)  # the entities are written
        for chunk in chunks:
            written, version = self._write(ops.import_records(self._ctx, chunk, version))
            result.created += written.created
            report(len(chunk))
        return result
