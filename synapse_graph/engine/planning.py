"""Write planning: what an upsert, a retraction or an alias merge changes, decided by the pure
timeline rules (:mod:`synapse_graph.rules.timeline`) against the store as the write sees it.

Each function here is an operation step: it reads through a :class:`~.view.View` and adds its
plan to it; the caller applies the view's mutation once (:func:`.writes.apply`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from synapse_graph.catalogue import Q
from synapse_graph.engine import unmerge
from synapse_graph.engine.inputs import Batch, CheckedTriple, Name
from synapse_graph.engine.io import Op, read
from synapse_graph.engine.view import Ahead, SlotKey, View
from synapse_graph.errors import ConflictingValuesError
from synapse_graph.instants import Instant, to_iso
from synapse_graph.models import AliasResult, WriteResult
from synapse_graph.rules.built import built
from synapse_graph.rules.timeline import Plan, TimelinePlanner, Write, merge_plan
from synapse_graph.rules.trust import TIMELINE_STATES, rejection_flag


def upsert(view: View, batch: Batch) -> Op[WriteResult]:
    """Plan a batch: its aliases first (merging entities), then its facts, as one write."""
    result = WriteResult()
    for canonical, alias in batch.aliases:
        result.aliases_merged += (yield from alias_name(view, canonical, alias)).merged
    if batch.triples:
        plan = yield from facts(view, batch)
        result.created, result.confirmed, result.closed = plan.created, plan.confirmed, plan.closed
        view.add(plan)
    result.entities_created = len(view.entities.created)
    return result


def _declared_types(triples: Sequence[CheckedTriple]) -> dict[str, str | None]:
    """Entity types a batch declares; a mention without a type never erases one given elsewhere."""
    types: dict[str, str | None] = {}
    if all(t.subject_type is None and t.object_type is None for t in triples):
        return types  # no name typed: each new entity's type is None
    for t in triples:
        for name, kind in ((t.subject, t.subject_type), (t.object, t.object_type)):
            if kind is not None or name.key not in types:
                types[name.key] = kind if kind is not None else types.get(name.key)
    return types


AHEAD_MAX_TRIPLES = 64
"""Batches up to this size read their scope's state, names and current records in one round trip. Larger
ones read them in three: there the round trips are a small part of the write, and the folded read was
measured ~10% slower per batch of 1,000 (FalkorDB, side by side), against ~18% faster for one fact."""


def ahead(batch: Batch, now: int) -> Ahead | None:
    """What :func:`upsert` will read, for one round trip with the scope's state (``now``: the wall clock
    before that read, never later than the write's own clock). None for a batch with aliases, whose
    merges change what the facts' keys are, and for a large batch (:data:`AHEAD_MAX_TRIPLES`)."""
    if batch.aliases or not batch.triples or len(batch.triples) > AHEAD_MAX_TRIPLES:
        return None
    names = sorted({n.key for t in batch.triples for n in (t.subject, t.object)})
    since: dict[tuple[str, str, str | None], int] = {}
    for t in batch.triples:
        key = (t.subject.key, t.predicate, None if t.single_valued else t.object.key)
        begins = now if t.valid_at is None else t.valid_at
        since[key] = min(since.get(key, begins), begins)
    return Ahead(names=tuple(names), keys=tuple((*key, at) for key, at in since.items()),
                 statuses=(*TIMELINE_STATES, "candidate"))


def facts(view: View, batch: Batch) -> Op[Plan]:
    """The plan of a batch's facts against the current timelines they touch."""
    triples, rules, now = batch.triples, view.state.rules, view.now
    names = [n for t in triples for n in (t.subject, t.object)]
    canonical = yield from view.resolve(names, _declared_types(triples))
    keyed = [(canonical[t.subject.key], t, canonical[t.object.key]) for t in triples]
    single_valued = rules.single_valued
    single = {(s, t.predicate) for s, t, _ in keyed if t.single_valued or t.predicate in single_valued}
    rejected = (yield from rejections(view, {(s, t.predicate, o) for s, t, o in keyed})
                ) if view.state.tombstones else {}  # a scope that never rejected a fact has none to look up
    # A single-valued write needs every value of its (subject, predicate); any other write only the
    # records of its own fact, which keeps this read small for entities with many facts. Either way
    # only records that end at or after the write's valid_at can be touched (closed, merged,
    # confirmed, or end a late arrival).
    since: dict[tuple[str, str, str | None], int] = {}
    for subject, t, obj in keyed:
        key = (subject, t.predicate, None) if (subject, t.predicate) in single else (subject, t.predicate, obj)
        begins = now if t.valid_at is None else t.valid_at
        held = since.get(key)
        if held is None or begins < held:
            since[key] = begins
    keys: list[SlotKey] = [(*key, begins) for key, begins in since.items()]
    current = yield from view.current(keys, (*TIMELINE_STATES, "candidate"))
    # Believed facts and candidates live in separate timelines: a candidate never closes a believed value.
    believed = TimelinePlanner([r for r in current if r.status != "candidate"], now=now)
    candidates = TimelinePlanner([r for r in current if r.status == "candidate"], now=now)
    singles: list[tuple[CheckedTriple, str, str, int, str]] = []  # the single-valued believed writes, in order
    provenance, candidate_below = batch.provenance, rules.candidate_below
    confirmations, moved = Write.confirmations, Write.moved  # their defaults
    for subject, t, obj in keyed:
        predicate = t.predicate
        flag = rejected.get((subject, predicate, obj)) if rejected else None
        written_by = t.provenance or provenance
        # Facts a model extracted are believed only from `candidate_below` up; direct writes always are.
        candidate = t.status == "candidate" or flag is not None or (
            written_by.model is not None and t.confidence < candidate_below)
        valid_at, status = now if t.valid_at is None else t.valid_at, "candidate" if candidate else t.status
        one_valued = not candidate and (subject, predicate) in single
        if one_valued:
            singles.append((t, subject, predicate, valid_at, obj))
        planner = candidates if candidate else believed
        # The first write of a timeline that holds nothing yet (most of a batch) is planned without a Write.
        if not planner.first(subject, predicate, obj, valid_at, t.invalid_at, t.confidence, written_by, status, flag):
            planner.add(built(Write, {
                "subject": subject, "predicate": predicate, "object": obj, "valid_at": valid_at,
                "invalid_at": t.invalid_at, "confidence": t.confidence, "single_valued": one_valued,
                "provenance": written_by, "status": status, "flag": flag, "confirmations": confirmations,
                "moved": moved,
            }))
    one_value_each(singles)
    return Plan.joined(believed.plan(), candidates.plan())


def one_value_each(writes: list[tuple[CheckedTriple, str, str, int, str]]) -> None:
    """Refuse a batch giving an entity two believed values of a single-valued predicate from one instant
    (:class:`ConflictingValuesError` naming both): written together the first would hold for no time and
    leave no trace. Values from different instants are a timeline (the earlier is closed where the later
    begins); candidates keep a timeline of their own, where values never close each other. ``writes``: the
    batch's single-valued believed writes, in order, as (triple, subject key, predicate, valid_at, object key)."""
    first: dict[tuple[str, str, int], tuple[CheckedTriple, str]] = {}
    clashes: list[tuple[CheckedTriple, CheckedTriple]] = []
    for t, subject, predicate, valid_at, obj in writes:
        held, value = first.setdefault((subject, predicate, valid_at), (t, obj))
        if value != obj:
            clashes.append((held, t))
    if not clashes:
        return
    held, t = clashes[0]
    more = f" (and {len(clashes) - 1} more such pairs)" if len(clashes) > 1 else ""
    when = "now" if t.valid_at is None else f"at {to_iso(t.valid_at)}"
    raise ConflictingValuesError(
        f"triples {held.index} and {t.index} give {t.subject.display!r} two values of single-valued {t.predicate} "
        f"from the same instant ({when}): {held.object.display!r} and {t.object.display!r}{more}. Written together "
        "one would hold for no time; give each value its own valid_at (the earlier is closed where the later "
        "begins), or write only the one that holds. Nothing was written",
        tuple(sorted({x.index for pair in clashes for x in pair})))


def rejections(view: View, keyed: set[tuple[str, str, str]]) -> Op[dict[tuple[str, str, str], str]]:
    """The latest rejection of each fact rejected before, as a flag text (entities merged by this
    write are looked up under their old keys too, as their rejections move with them)."""
    if view.state.tombstones == 0 or not keyed:
        # A scope that never rejected a fact has none to look up (a concurrent rejection would move
        # the scope's version, so this write would be planned again).
        return {}
    before: dict[str, list[str]] = {}
    for old, new in view.entities.merged.items():
        before.setdefault(view.canonical(new), []).append(old)
    asked = {(s2, p, o2): (s, p, o) for s, p, o in keyed
             for s2 in (s, *before.get(s, ())) for o2 in (o, *before.get(o, ()))}
    found = yield from read(Q.TOMBSTONES, {"scope": view.ctx.scope, "facts": [
        {"subject": s, "predicate": p, "object": o} for s, p, o in sorted(asked)]})
    return {asked[(r["subject"], r["predicate"], r["object"])]: rejection_flag(r["reason"], to_iso(r["rejected_at"]))
            for r in found}


def retract(view: View, subject: Name, predicate: str, obj: Name | None, at: Instant | None) -> Op[int]:
    """End at ``at`` (default now) the matching facts that hold then; returns how many."""
    keys = yield from view.lookup([subject] + ([obj] if obj else []))
    subject_key = keys.get(subject.key)
    object_key = None if obj is None else keys.get(obj.key)
    if subject_key is None or (obj is not None and object_key is None):
        return 0
    when = view.now if at is None else at
    current = yield from view.current([(subject_key, predicate, None, when)], TIMELINE_STATES)
    planner = TimelinePlanner(current, now=view.now)
    ended = planner.retract(subject_key, predicate, object_key, when)
    view.add(planner.plan())
    return ended


def alias_name(view: View, canonical: Name, alias: Name) -> Op[AliasResult]:
    """Record ``alias`` as another name of ``canonical``; merge the alias's entity if it has one."""
    unchanged = AliasResult(canonical=canonical.display, alias=alias.display, changed=False)
    if alias.key == canonical.key:
        return unchanged
    target = (yield from view.resolve([canonical]))[canonical.key]
    other = (yield from view.lookup([alias])).get(alias.key)
    if other == target:
        return unchanged
    if other is None:
        view.add_alias(alias.key, alias.display, target)
        return unchanged.model_copy(update={"changed": True})
    moved = yield from merge(view, other, target)
    if alias.key != other:
        view.add_alias(alias.key, alias.display, target)
    return unchanged.model_copy(update={"changed": True, "merged": True, "facts_moved": moved})


def merge(view: View, source: str, target: str) -> Op[int]:
    """Merge entity ``source`` into ``target``: the store as if every fact of the source had been
    written to the target in the first place (see :func:`~synapse_graph.rules.timeline.merge_plan`);
    its aliases and rejections move with it, and its name becomes an alias of the target."""
    [row] = yield from read(Q.ENTITY, {"scope": view.ctx.scope, "key": source})
    source_entity = row["entity"]
    moved_from = yield from view.entity_records(source)
    target_records = yield from view.entity_records(target)
    target_current = [r for r in target_records if r.expired_at is None and source not in (r.subject, r.object)]
    moved = [replace(r, subject=target if r.subject == source else r.subject,
                     object=target if r.object == source else r.object) for r in moved_from]
    plan = merge_plan(target_current, moved, single_valued=view.state.rules.single_valued, now=view.now)
    # The moved records leave with the source entity; the ones still current count out of the scope.
    removed = [r for r in moved_from if r.expired_at is None]
    kept = yield from unmerge.snapshot(view, source_entity, target, moved_from, target_records, plan)
    view.merge(source, target, source_entity["name"], source_entity["aliases"] or [], plan, removed,
               [r for r in moved_from if r.expired_at is not None])
    view.entities.snapshots.append(kept)
    view.entities.merged_created.append(source_entity["created_at"])
    return len(removed)
