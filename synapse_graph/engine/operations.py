"""Every public operation, written once for :class:`~synapse_graph.Memory` and :class:`~synapse_graph.AsyncMemory`.

Each function checks its input at once (so bad input is refused before any query runs) and
returns either a read operation (:data:`~.io.Op`) or a write step (:class:`~.steps.WriteStep`: its context
and its plan) that the facade runs under the lock of the step's scope with :func:`write`.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import replace
from datetime import datetime
from functools import partial
from typing import Any

from synapse_graph.backends.base import AsyncBackend, Backend
from synapse_graph.embedding import Embedder
from synapse_graph.engine import digest as digests
from synapse_graph.engine import (
    duplicates,
    embeddings,
    erasure,
    inputs,
    migrations,
    observations,
    planning,
    projections,
    reads,
    recall,
    recalling,
    scope_rules,
    sessions,
    transfer,
    trust,
)
from synapse_graph.engine.context import Context
from synapse_graph.engine.import_lines import ImportFile
from synapse_graph.engine.io import Op, collector_paused, read, run_write, run_write_async
from synapse_graph.engine.reads import FactQuery
from synapse_graph.engine.scope import ScopeState, lock_init, read_state
from synapse_graph.engine.sessions import on_session as on_session
from synapse_graph.engine.sessions import scoped as scoped
from synapse_graph.engine.sessions import session_id as session_id
from synapse_graph.engine.steps import WriteStep, no_mutation
from synapse_graph.engine.view import View
from synapse_graph.engine.writes import Mutation, apply
from synapse_graph.errors import InvalidInputError
from synapse_graph.growth import Growth
from synapse_graph.instants import to_datetime
from synapse_graph.models import (
    AliasResult,
    AuditEntry,
    Digest,
    Entity,
    EntityPage,
    EntryEntity,
    Fact,
    Observation,
    Observed,
    PurgeResult,
    Recall,
    RecalledFact,
    ScopeRules,
    Session,
    Stats,
    TimeInput,
    Triple,
    WriteResult,
)
from synapse_graph.rules.numbers import confidence as checked_confidence
from synapse_graph.rules.numbers import count as whole_number
from synapse_graph.rules.predicates import check_predicate
from synapse_graph.rules.recall import MAX_ENTRY_ENTITIES, content_terms
from synapse_graph.rules.timeline import Provenance, Record
from synapse_graph.rules.timeparse import now_micros
from synapse_graph.rules.trust import check_verdict, reading_states

DEFAULT_LIMIT = 100_000


def write[T](step: WriteStep[T]) -> Op[T]:
    """Read the scope's state, plan, check quotas and apply: one write, run holding the lock of the step's scope.

    A write to a session's scope first checks the session is still open.
    """
    ctx = step.ctx
    yield from sessions.check_open(ctx)
    reads = None if step.ahead is None else step.ahead(now_micros())
    if reads is None:
        state = yield from read_state(ctx)
        view = View(ctx, state, state.clock())
    else:
        view = yield from View.read_ahead(ctx, reads)
        state = view.state
    embeddings.check(ctx, state)
    mutation, result = yield from step.plan(view)
    if mutation is not None:
        yield from apply(ctx, state, mutation, view.now)
    return result


# -- opening ---------------------------------------------------------------------------------------------


def open_scope(ctx: Context, asked: dict[str, Any]) -> WriteStep[None]:
    """Bring an older store format up to date and store the rules the memory was opened with."""
    def plan(view: View) -> Op[tuple[Mutation | None, None]]:
        yield from migrations.upgrade(ctx, view.state)
        return scope_rules.open_with(view, asked), None
    return WriteStep(ctx, plan)


def needs_opening(state: ScopeState, asked: dict[str, Any]) -> bool:
    """True if opening must write: an older format, or rules that differ from the effective ones."""
    return migrations.needed(state) or any(getattr(state.rules, k) != v for k, v in asked.items())


def state(ctx: Context) -> Op[ScopeState]:
    return read_state(ctx)


def last_write(ctx: Context) -> Op[datetime | None]:
    """When the scope last changed: every write, review and purge moves it (a scope never written: None)."""
    found = yield from read_state(ctx)
    return to_datetime(found.updated_at) if found.version > 0 and found.updated_at else None


# -- writes ---------------------------------------------------------------------------------------------


def upsert(ctx: Context, triples: object, *, replace: bool, valid_at: TimeInput | None, source: str | None,
           model: str | None, session: str | None) -> WriteStep[WriteResult]:
    with collector_paused():  # checking a batch makes thousands of short-lived objects too
        checked = inputs.batch(ctx, triples, replace=replace, valid_at=valid_at, source=source, model=model,
                               session=session)
    return _upsert(ctx, checked)


def _upsert(ctx: Context, batch: inputs.Batch) -> WriteStep[WriteResult]:
    def plan(view: View) -> Op[tuple[Mutation | None, WriteResult]]:
        merged = yield from duplicates.merge_above(view, batch)
        result = yield from planning.upsert(view, batch)
        result.possible_duplicates = merged or (yield from duplicates.warnings(view, view.entities.created,
                                                                               batch.triples))
        result.aliases_merged += len(merged)
        detail = {"merged_duplicates": [p.model_dump(include={"canonical_key", "other_key", "score"}) for p in merged]}
        return Mutation.of(view, "upsert", batch.provenance, secrets=batch.secrets,
                           detail=detail if merged else {}), result
    return WriteStep(ctx, plan, ahead=lambda now: planning.ahead(batch, now))


def retract(ctx: Context, subject: str, predicate: str, obj: str | None, at: TimeInput | None) -> WriteStep[int]:
    subject_name = inputs.name(ctx, subject, "subject")
    checked = check_predicate(predicate)
    object_name = None if obj is None else inputs.name(ctx, obj, "object")
    when = inputs.time(at, "at")

    def plan(view: View) -> Op[tuple[Mutation | None, int]]:
        ended = yield from planning.retract(view, subject_name, checked, object_name, when)
        return Mutation.of(view, "retract", inputs.provenance(ctx, None, None, None)), ended
    return WriteStep(ctx, plan)


def alias(ctx: Context, canonical: str, other: str) -> WriteStep[AliasResult]:
    canonical_name, alias_name = inputs.name(ctx, canonical, "canonical"), inputs.name(ctx, other, "alias")

    def plan(view: View) -> Op[tuple[Mutation | None, AliasResult]]:
        result = yield from planning.alias_name(view, canonical_name, alias_name)
        if not result.changed:
            return None, result
        return Mutation.of(view, "alias", inputs.provenance(ctx, None, None, None)), result
    return WriteStep(ctx, plan)


def purge(ctx: Context, entity: str | None, scope: str | None) -> WriteStep[PurgeResult]:
    if entity is None and scope is None:
        raise InvalidInputError("purge needs an entity name, or scope=<this memory's scope> to erase everything")
    if entity is not None and scope is not None:
        raise InvalidInputError("purge takes an entity or a scope, not both")
    if scope is not None:
        own_scope(ctx, scope)
        return _purging_scope(ctx)
    name = inputs.name(ctx, entity, "entity")
    return WriteStep(ctx, lambda view: no_mutation(erasure.purge_entity(view, name)))


def _purging_scope(ctx: Context, so_far: PurgeResult | None = None) -> WriteStep[PurgeResult]:
    """A page of the scope's purge, followed by the next one as long as a page finds anything to delete."""
    so_far = so_far or PurgeResult(entities=0, facts=0, records=0, aliases=0)
    found = [False]  # set by the run that committed: the step follows only a run whose transaction did

    def plan(view: View) -> Op[tuple[Mutation | None, PurgeResult]]:
        purged, found[0] = yield from erasure.purge_scope(view, so_far)
        return None, purged
    return WriteStep(ctx, plan, then=lambda purged: _purging_scope(ctx, purged) if found[0] else None)


def run_steps[T](backend: Backend, step: WriteStep[T], *, timeout: float, embedder: Embedder | None) -> T:
    """Run a write step holding its scope's lock (see :func:`write`), then each step that follows it, each in a
    transaction of its own: the last one's result."""
    while True:
        done = run_write(backend, step.scope, lock_init(), partial(write, step), timeout=timeout, embedder=embedder)
        if step.then is None or (following := step.then(done)) is None:
            return done
        step = following


async def run_steps_async[T](backend: AsyncBackend, step: WriteStep[T], *, timeout: float,
                            embedder: Embedder | None) -> T:
    """The asyncio twin of :func:`run_steps`."""
    while True:
        done = await run_write_async(backend, step.scope, lock_init(), partial(write, step), timeout=timeout,
                                     embedder=embedder)
        if step.then is None or (following := step.then(done)) is None:
            return done
        step = following


def own_scope(ctx: Context, scope: str | None) -> str:
    from synapse_graph.errors import InvalidScopeError

    if scope is not None and scope != ctx.scope:
        raise InvalidScopeError(f"this memory is bound to scope {ctx.scope!r} and cannot act on scope {scope!r}; "
                                f"open Memory(..., scope={scope!r}) instead")
    return ctx.scope


def observe(ctx: Context, entity: str, texts: Iterable[str], source: str | None, session: str | None,
            entity_type: str | None = None, valid_at: TimeInput | None = None) -> WriteStep[list[Observation]]:
    checked, written_by = _observation_items(ctx, [(entity, texts, entity_type, valid_at)], source, session)

    def plan(view: View) -> Op[tuple[Mutation | None, list[Observation]]]:
        mutation, [made], confirmed = yield from observations.observe(view, checked, written_by)
        return mutation, Observed(made, (yield from duplicates.warnings(view, view.entities.created)), confirmed)
    return WriteStep(ctx, plan)


type ObservationItem = (tuple[str, Iterable[str]] | tuple[str, Iterable[str], str | None]
                        | tuple[str, Iterable[str], str | None, TimeInput | None])
"""What ``observe_many`` takes per entity: ``(entity, texts)``, ``(entity, texts, entity_type)`` or
``(entity, texts, entity_type, valid_at)``."""


def observe_many(ctx: Context, items: object, source: str | None, session: str | None
                 ) -> WriteStep[list[list[Observation]]]:
    """Observations about several entities, checked whole before the write that records them all."""
    checked, written_by = _observation_items(ctx, items, source, session)

    def plan(view: View) -> Op[tuple[Mutation | None, list[list[Observation]]]]:
        mutation, made, _ = yield from observations.observe(view, checked, written_by)
        return mutation, made
    return WriteStep(ctx, plan)


def _observation_items(ctx: Context, items: object, source: str | None, session: str | None
                       ) -> tuple[list[observations.Observed], Provenance]:
    if isinstance(items, str | bytes | Mapping) or not isinstance(items, Iterable):
        raise InvalidInputError("observations must be a list of (entity, texts) items, optionally with an entity "
                                "type and a valid_at: e.g. [('Dana', ['Speaks fluent Spanish'])]")
    checked: list[observations.Observed] = []
    for item in items:
        if not isinstance(item, tuple | list) or len(item) not in (2, 3, 4):
            raise InvalidInputError(f"an observation item is (entity, texts), (entity, texts, entity_type) or "
                                    f"(entity, texts, entity_type, valid_at), not {str(item)[:70]!r}")
        entity, texts, *more = item
        kind, valid_at = (*more, None, None)[:2]
        checked.append((inputs.name(ctx, entity, "entity"), _observation_texts(ctx, texts),
                        inputs.text(ctx, kind, "entity type", inputs.MAX_TYPE_LENGTH),
                        inputs.time(valid_at, "valid_at")))
    return checked, inputs.provenance(ctx, source, None, session)


def unobserve(ctx: Context, entity: str, texts: Iterable[str]) -> WriteStep[int]:
    name = inputs.name(ctx, entity, "entity")
    checked = _observation_texts(ctx, texts)
    return WriteStep(ctx, lambda view: observations.unobserve(view, name, checked))


def _observation_texts(ctx: Context, texts: Iterable[str]) -> list[str]:
    if isinstance(texts, str):
        raise InvalidInputError("texts must be a list of observations, e.g. ['Speaks fluent Spanish'], not a string")
    checked = [inputs.text(ctx, t, "observation", observations.MAX_OBSERVATION_LENGTH) for t in texts]
    if any(t is None for t in checked):
        raise InvalidInputError("an observation is empty; give some text, e.g. 'Speaks fluent Spanish'")
    return [t for t in checked if t is not None]


def observations_of(ctx: Context, entity: str | None, known_at: TimeInput | None, include_history: bool,
                    limit: int | None) -> Op[list[Observation]]:
    return observations.observations(
        ctx, None if entity is None else inputs.name(ctx, entity, "entity"), known_at=inputs.time(known_at, "known_at"),
        history=include_history, limit=inputs.limit(limit, DEFAULT_LIMIT))


# -- sessions ------------------------------------------------------------------------------------------


def register_session(ctx: Context, session: str, ttl: object) -> WriteStep[Session]:
    checked, lasts = sessions.check_id(session), sessions.check_ttl(ttl)
    return WriteStep(ctx, lambda view: sessions.register(view, checked, lasts))


def revoke_session(ctx: Context, session: str) -> tuple[WriteStep[Session], WriteStep[PurgeResult]]:
    """Revoking is two writes: mark the session revoked (no more writes), then erase its scope."""
    checked = sessions.check_id(session)
    # The erasure runs in the session's scope without the open-session check: the session is revoked by then.
    inside = replace(sessions.context_of(ctx, checked), registry=None)
    return (WriteStep(ctx, lambda view: sessions.revoke(view, checked)),
            _purging_scope(inside))


def list_sessions(ctx: Context) -> Op[list[Session]]:
    return sessions.sessions(ctx, None)


def session_facts(ctx: Context, session: str, facts: Iterable[object]) -> Op[list[Fact]]:
    """The session's current facts with these ids (what promote copies)."""
    if isinstance(facts, str):
        raise InvalidInputError("facts must be a list of facts or fact ids, not a string")
    ids = [inputs.fact_id(f) for f in facts]
    inside = sessions.context_of(ctx, sessions.check_id(session))

    def op() -> Op[list[Fact]]:
        found: list[Fact] = []
        for fact_id in ids:
            found.append((yield from fact_by_id(inside, fact_id)))
        return found
    return op()


def promote(ctx: Context, session: str, facts: list[Fact]) -> WriteStep[WriteResult]:
    """Copy session facts into the durable scope, each recording the session it came from and keeping its trust
    state and model: a candidate stays a candidate (it closes no believed value until approved)."""
    triples = [Triple(subject=f.subject, predicate=f.predicate, object=f.object, valid_at=f.valid_at,
                      invalid_at=f.invalid_at, confidence=f.confidence) for f in facts]
    batch = inputs.batch(replace(ctx, session=session), triples, replace=False, valid_at=None,
                         source=f"promoted from session {session}", model=None, session=session)
    kept = tuple(replace(t, status=f.status, provenance=replace(batch.provenance, model=f.model))
                 for t, f in zip(batch.triples, facts, strict=True))
    return _upsert(ctx, replace(batch, triples=kept))


def set_rules(ctx: Context, **given: Any) -> WriteStep[ScopeRules]:
    asked = scope_rules.requested(**given)

    def plan(view: View) -> Op[tuple[Mutation | None, ScopeRules]]:
        yield from ()
        return scope_rules.change(view, asked)
    return WriteStep(ctx, plan)


# -- trust ----------------------------------------------------------------------------------------------


def approve(ctx: Context, fact: object) -> WriteStep[None]:
    fact_id = inputs.fact_id(fact)
    return WriteStep(ctx, lambda view: trust.approve(view, fact_id))


def reject(ctx: Context, fact: object, reason: str) -> WriteStep[None]:
    fact_id = inputs.fact_id(fact)
    why = inputs.text(ctx, reason, "reason", 500)
    if not why:
        raise InvalidInputError("a rejection needs a reason, e.g. reject(fact, 'the user corrected this')")
    return WriteStep(ctx, lambda view: trust.reject(view, fact_id, why))


def feedback(ctx: Context, fact: object, verdict: str) -> WriteStep[Fact]:
    fact_id, judged = inputs.fact_id(fact), check_verdict(verdict)
    return WriteStep(ctx, lambda view: trust.feedback(view, fact_id, judged))


def pin(ctx: Context, fact: object, pinned: bool) -> WriteStep[Fact]:
    fact_id = inputs.fact_id(fact)
    return WriteStep(ctx, lambda view: trust.pin(view, fact_id, pinned))


def digest(ctx: Context, limit: int, as_of: TimeInput | None) -> Op[Digest]:
    return digests.digest(ctx, inputs.limit(limit, 20), inputs.time(as_of, "as_of"))


def fact_by_id(ctx: Context, fact_id: str) -> Op[Fact]:
    _, found = yield from trust.record_by_id(ctx, fact_id)
    return found


def pending(ctx: Context, limit: int | None, include_disputed: bool = False) -> Op[list[Fact]]:
    return trust.pending(ctx, inputs.limit(limit, DEFAULT_LIMIT), ["candidate", "disputed"] if include_disputed is True
                         else ["candidate"])


def audit(ctx: Context, entity: str | None, limit: int, brief: int | None = None, **filters: Any
          ) -> Op[list[AuditEntry]]:
    """``filters``: action, client, session (text), since, until (times), after (an entry or its cursor)."""
    ask = trust.audit_query(inputs.limit(limit, 100), filters, brief)
    name = None if entity is None else inputs.name(ctx, entity, "entity")

    def op() -> Op[list[AuditEntry]]:
        keys: list[str] | None = None
        if name is not None:
            found = yield from reads.entity(ctx, name)
            keys = [name.key] if found is None else [found.key, *(inputs.name(ctx, a, "alias").key
                                                                 for a in found.aliases)]
        return (yield from trust.audit(ctx, replace(ask, entities=keys)))
    return op()


def growth(ctx: Context, steps: int, since: TimeInput | None, until: TimeInput | None) -> Op[Growth]:
    points = whole_number(steps, field="steps", minimum=2, maximum=reads.MAX_GROWTH_STEPS)
    return reads.growth(ctx, points, inputs.time(since, "since"), inputs.time(until, "until"))


# -- reads ----------------------------------------------------------------------------------------------


def facts(ctx: Context, subject: str | None, predicate: str | None, obj: str | None, *, as_of: TimeInput | None,
          known_at: TimeInput | None, include_history: bool, limit: int | None, include_candidates: bool,
          include_disputed: bool, during: object = None, throughout: object = None) -> Op[list[Fact]]:
    ask = FactQuery(
        subject=None if subject is None else inputs.name(ctx, subject, "subject"),
        predicate=None if predicate is None else check_predicate(predicate),
        object=None if obj is None else inputs.name(ctx, obj, "object"),
        as_of=inputs.time(as_of, "as_of"), known_at=inputs.time(known_at, "known_at"), history=include_history,
        statuses=tuple(reading_states(include_candidates, include_disputed)), limit=inputs.limit(limit, DEFAULT_LIMIT),
        window=inputs.window(during, throughout, as_of=as_of, history=include_history),
    )
    return reads.facts(ctx, ask)


def neighbourhood(ctx: Context, entity: str, hops: int, as_of: TimeInput | None, known_at: TimeInput | None,
                  limit: int) -> Op[list[Fact]]:
    return reads.neighbourhood(ctx, inputs.name(ctx, entity, "entity"), inputs.hops(hops), inputs.time(as_of, "as_of"),
                               inputs.time(known_at, "known_at"), inputs.limit(limit, 10_000))


def entity(ctx: Context, name: str) -> Op[Entity | None]:
    return reads.entity(ctx, inputs.name(ctx, name, "name"))


def entities(ctx: Context, *, after: object, limit: object, known_at: TimeInput | None, matching: object,
             with_facts: bool = False) -> Op[EntityPage]:
    ask = reads.entity_listing(after, limit, inputs.time(known_at, "known_at"), matching, with_facts)
    return reads.entities(ctx, ask)


def stats(ctx: Context) -> Op[Stats]:
    return reads.stats(ctx)


def recall_facts(ctx: Context, query: str, *, as_of: TimeInput | None, known_at: TimeInput | None, hops: int,
                 limit: int, min_score: float | None = None, max_tokens: int | None = None,
                 reference_time: TimeInput | None = None) -> Op[Recall]:
    return recalling.recall(
        ctx, inputs.query_text(query), as_of=inputs.time(as_of, "as_of"), known_at=inputs.time(known_at, "known_at"),
        hops=inputs.hops(hops), limit=inputs.limit(limit, 25),
        legs=["lexical"] if ctx.embedder is None else ["lexical", "vector"],
        min_score=None if min_score is None else checked_confidence(min_score, field="min_score"),
        max_tokens=None if max_tokens is None else whole_number(max_tokens, field="max_tokens", minimum=1),
        reference_time=inputs.time(reference_time, "reference_time"))


def search_entities(ctx: Context, text: str, limit: int) -> Op[list[EntryEntity]]:
    query = inputs.query_text(text)
    count = inputs.limit(limit, MAX_ENTRY_ENTITIES)

    def op() -> Op[list[EntryEntity]]:
        terms = content_terms(query)
        return (yield from recall.entry_entities(ctx, query, terms, count)) if terms else []
    return op()


def subgraph(ctx: Context, entities: Iterable[str], hops: int, *, as_of: TimeInput | None,
             known_at: TimeInput | None, limit: int) -> Op[list[RecalledFact]]:
    if isinstance(entities, str):
        raise InvalidInputError("entities must be a list of names, e.g. ['Dana'], not a string")
    names = [inputs.name(ctx, e, "entity") for e in entities]
    at, known, depth, count = inputs.time(as_of, "as_of"), inputs.time(known_at, "known_at"), inputs.hops(hops), \
        inputs.limit(limit, 100)

    def op() -> Op[list[RecalledFact]]:
        keys = yield from reads.lookup(ctx, [n.key for n in names])
        ordered = list(dict.fromkeys(keys[n.key] for n in names if n.key in keys))
        found = yield from read(projections.ENTITY_NAMES, {"scope": ctx.scope, "keys": ordered})
        display = {r["key"]: r["name"] for r in found}
        entries = [EntryEntity(name=display[k], key=k, score=1.0 / (61 + i)) for i, k in enumerate(ordered)
                   if k in display]
        return (yield from recall.expand(ctx, entries, hops=depth, as_of=at, known_at=known, limit=count))
    return op()


def reindex_embeddings(ctx: Context, batch_size: int) -> Op[int]:
    if ctx.embedder is None:
        raise InvalidInputError("no embedder configured: open the Memory with embedder=...")
    return embeddings.backfill(ctx, inputs.limit(batch_size, 256, "batch_size"))


# -- transfer -------------------------------------------------------------------------------------------


def export(ctx: Context, scope: str | None) -> Iterator[Op[list[str]]]:
    """The export's operations, one per page (see :func:`~synapse_graph.engine.transfer.export`)."""
    own_scope(ctx, scope)
    return transfer.export(ctx)


def import_names(ctx: Context, file: ImportFile) -> WriteStep[tuple[int, int]]:
    """An import's first write; its result: the entities it created, and the scope's version it leaves."""
    def plan(view: View) -> Op[tuple[Mutation | None, tuple[int, int]]]:
        mutation = yield from transfer.import_names(ctx, view.state, file, view)
        return mutation, (len(mutation.entities.created), transfer.version_after(view, mutation))
    return WriteStep(ctx, plan)


def import_records(ctx: Context, chunk: list[Record], version: int) -> WriteStep[tuple[WriteResult, int]]:
    """An import's next chunk of records, written only if nothing else wrote since its previous write left the
    scope at ``version``; its result: what it created, and the version it leaves."""
    def plan(view: View) -> Op[tuple[Mutation | None, tuple[WriteResult, int]]]:
        mutation = yield from transfer.import_records(ctx, chunk, view, version)
        return mutation, (WriteResult(created=mutation.plan.created), transfer.version_after(view, mutation))
    return WriteStep(ctx, plan)
