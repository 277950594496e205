"""The write engine: a planned mutation is checked against the scope's quotas and applied with its
audit entry by one statement, under the scope's lock (see :func:`synapse_graph.engine.io.run_write`).
"""

from __future__ import annotations

import json
import math
import uuid
from collections import Counter
from collections.abc import Container, Iterable, Mapping
from dataclasses import dataclass, field, replace
from operator import attrgetter
from typing import Any

from synapse_graph.catalogue import Q
from synapse_graph.engine import embeddings
from synapse_graph.engine.context import Context
from synapse_graph.engine.io import Op, PlanOutdated, write
from synapse_graph.engine.rows import PROVENANCE_FIELDS, record_values, rules_params
from synapse_graph.engine.scope import STORE_FORMAT, ScopeState
from synapse_graph.engine.view import EntityChanges, View
from synapse_graph.errors import QuotaExceededError
from synapse_graph.instants import Instant
from synapse_graph.models import ScopeRules
from synapse_graph.rules.changes import VERDICT_ADDED, VERDICT_ENDED, VERDICT_FEEDBACK, verdicts
from synapse_graph.rules.growth import Changes, kind_of
from synapse_graph.rules.recall import scope_token
from synapse_graph.rules.slots import fact_slot, object_slot, predicate_slot
from synapse_graph.rules.stems import fact_search_text
from synapse_graph.rules.timeline import Plan, Provenance, Record
from synapse_graph.rules.trust import audit_detail, stored_facts
from synapse_graph.shapes import FACT, FACT_KIND, Storer, stored


@dataclass
class Mutation:
    """Everything one write changes; applied by one statement, all or nothing."""

    action: str
    """What the audit log calls it: upsert, retract, alias, approve, reject, feedback:<verdict>, import, rules."""
    provenance: Provenance
    plan: Plan = field(default_factory=Plan)
    entities: EntityChanges = field(default_factory=EntityChanges)
    tombstones: list[dict[str, Any]] = field(default_factory=list)
    observe: list[dict[str, Any]] = field(default_factory=list)
    """Observations to record (rows as ``apply_plan`` creates them)."""
    unobserve: list[str] = field(default_factory=list)
    """Ids of current observations to forget (they expire; history keeps them)."""
    touches: list[str] = field(default_factory=list)
    """Keys of entities the action concerns beyond those its records and rows name (for the audit log)."""
    sessions: list[dict[str, Any]] = field(default_factory=list)
    """Sessions to register or revoke (rows as ``apply_plan`` merges them; times as ``Instant``)."""
    rules: ScopeRules | None = None
    """New rules to store with the scope."""
    imported_audit: list[dict[str, Any]] = field(default_factory=list)
    secrets: frozenset[str] = frozenset()
    before: list[Record] = field(default_factory=list)
    """Records as they were before an in-place update (their old values go into the audit entry)."""
    detail: dict[str, Any] = field(default_factory=dict)
    """What else the audit entry says about this action."""
    entity_ids: dict[str, Any] = field(default_factory=dict)
    """Node ids of stored entities, by key, that new records may be created between (see View.entity_ids)."""
    spoken: dict[str, str] = field(default_factory=dict)
    """How the write names entities, by key (View.spoken), for the search text and embedding of new facts."""
    read: dict[str, Record] | None = None
    whole: dict[tuple[str, str], int | None] | None = None
    """The stored records the write read and the timelines it read whole (View.read_records, whole_slots): what
    its audit entry judges its changes by (rules/changes.py verdicts); None: not known."""
    names: dict[str, str] = field(default_factory=dict)
    """Stored entities' names, by key (View.names): with the names of the entities it creates, what its audit entry
    shows of the records its verdicts name (:func:`verdict_values`)."""

    @classmethod
    def of(cls, view: View, action: str, provenance: Provenance, **more: Any) -> Mutation:
        """The mutation a view has collected."""
        return cls(action=action, provenance=provenance, plan=view.plan, entities=view.entities,
                   entity_ids=view.entity_ids, spoken=view.spoken, read=view.read_records, whole=view.whole_slots,
                   names=view.names, **more)

    def is_empty(self) -> bool:
        e = self.entities
        return self.plan.is_empty() and self.rules is None and not (
            e.created or e.aliases or e.merged or self.tombstones or self.imported_audit or self.observe
            or self.unobserve or self.sessions)

    def counts(self) -> dict[str, int]:
        """Change in each of the scope's counters of records (:func:`tally`)."""
        counts = tally(self.plan.creates, [*self.plan.expires, *self.entities.removed, *self.entities.deleted_history])
        counts["expired"] += len(self.plan.expires)  # they stay, as history
        # Observations are believed records too: they count with the facts.
        counts["facts"] += sum(1 for o in self.observe if o.get("expired_at") is None) - len(self.unobserve)
        return counts

    def deltas(self, counts: Mapping[str, int] | None = None) -> tuple[int, int]:
        """Change in the scope's (believed and disputed records, candidates); ``counts``: :meth:`counts`, if known."""
        counts = self.counts() if counts is None else counts
        return counts["facts"], counts["candidates"]


COUNTERS = ("facts", "candidates", "expired", "ended")
"""The scope's counters of fact records: current believed and disputed ones (with current observations), current
candidates, expired ones (history), and current believed and disputed ones that ended before they were recorded
(an end, not :attr:`~synapse_graph.rules.timeline.Record.ahead`: valid at no instant from then on)."""


def counted_in(record: Record) -> tuple[str, ...]:
    """The counters (:data:`COUNTERS`) a stored record counts in."""
    if record.expired_at is not None:
        return ("expired",)
    if record.status == "candidate":
        return ("candidates",)
    return ("facts", "ended") if record.invalid_at is not None and not record.ahead else ("facts",)


def tally(added: Iterable[Record], taken: Iterable[Record]) -> dict[str, int]:
    """Change in the scope's counters when the ``added`` records are stored and the ``taken`` ones are not."""
    counts = dict.fromkeys(COUNTERS, 0)
    for sign, records in ((1, added), (-1, taken)):
        for record in records:
            for name in counted_in(record):
                counts[name] += sign
    return counts


def record_counts(added: Iterable[Record], taken: Iterable[Record]) -> list[list[Any]]:
    """Change in each entity's count of fact records (``records``, of any time or state: one per end, so a record
    about the entity itself counts twice) when the ``added`` records are stored and the ``taken`` ones deleted,
    as the apply statements take it: ``[key, delta]`` (entities whose count does not change left out, in key
    order)."""
    deltas = Counter(key for record in added for key in (record.subject, record.object))
    deltas.subtract(key for record in taken for key in (record.subject, record.object))
    return [[key, delta] for key, delta in sorted(deltas.items()) if delta]


def counted_by_id(counts: list[list[Any]], ids: Mapping[str, Any], deleted: Container[str]
                  ) -> tuple[list[list[Any]], list[list[Any]]]:
    """:func:`record_counts`' rows apart: those of entities of known node id (not deleted by the write), as
    ``[key, delta, id]`` (``counts_by_id``: ``apply_plan`` seeks them by id), and the others (``counts``)."""
    by_key: list[list[Any]] = []
    by_id: list[list[Any]] = []
    for row in counts:
        found = ids.get(row[0])
        if found is None or row[0] in deleted:
            by_key.append(row)
        else:
            by_id.append([*row, found])
    return by_key, by_id


def counter_params(counts: dict[str, int]) -> dict[str, int]:
    """The apply statements' parameters for the counters' changes."""
    return {"fact_delta": counts["facts"], "candidate_delta": counts["candidates"],
            "expired_delta": counts["expired"], "ended_delta": counts["ended"]}


def grown(scope: str, mutation: Mutation, now: Instant, deleted: Iterable[Record] = (),
          restored: Iterable[Mapping[str, Any]] = ()) -> list[dict[str, Any]]:
    """The changes a mutation makes to the scope's growth counters (``$grown``: fragments/grow), with the
    records it ``deleted`` and the entities it ``restored`` beyond its plan's and entity changes (unmerge)."""
    changes, plan, entities = Changes(), mutation.plan, mutation.entities
    # Added up first: a batch's thousand new records share a few (kind, belief interval)s, mostly one.
    for (kind, made, gone), n in Counter((kind_of(r), r.recorded_at, r.expired_at) for r in plan.creates).items():
        changes.add(kind, made, gone, n)
    for record in plan.expires:
        changes.gone(kind_of(record), now)
    for record in (*entities.removed, *entities.deleted_history, *deleted):
        changes.add(kind_of(record), record.recorded_at, record.expired_at, -1)
    before = {record.id: record for record in mutation.before}
    for record in plan.updates:  # feedback may move a record out of review, or into it
        old = before.get(record.id)
        if old is not None and kind_of(old) != kind_of(record):
            changes.add(kind_of(old), old.recorded_at, old.expired_at, -1)
            changes.add(kind_of(record), record.recorded_at, record.expired_at)
    for entity in (*entities.created.values(), *restored):
        changes.add("entities", entity["created_at"], None)
    for created_at in entities.merged_created:
        changes.add("entities", created_at, None, -1)
    for row in mutation.observe:
        changes.add("observations", row["recorded_at"], row.get("expired_at"))
    for _ in mutation.unobserve:
        changes.gone("observations", now)
    return changes.rows(scope)


def check_quotas(scope: str, state: ScopeState, mutation: Mutation, counts: Mapping[str, int] | None = None) -> None:
    """Refuse a mutation that takes the scope over one of its quotas (the stored rules; ``counts``: the mutation's
    :meth:`~Mutation.counts`, if known)."""
    rules = mutation.rules or state.rules
    facts, candidates = mutation.deltas(counts)
    if facts > 0 and state.facts + facts > rules.max_facts:
        raise QuotaExceededError(
            f"scope {scope!r} would hold {state.facts + facts} facts, over its quota of {rules.max_facts} "
            f"({state.facts} now, +{facts} in this write); nothing was written. The quota counts every believed "
            "record, history included (retracting a fact keeps it in history): purge what you no longer need "
            "with purge(entity), or raise the quota with set_rules(max_facts=...).")
    if candidates > 0 and state.candidates + candidates > rules.max_candidates:
        raise QuotaExceededError(
            f"scope {scope!r} would hold {state.candidates + candidates} candidates waiting for review, over "
            f"its quota of {rules.max_candidates} ({state.candidates} now, +{candidates} in this write); nothing "
            "was written. Review them (pending(), then approve or reject), or raise the quota with "
            "set_rules(max_candidates=...).")
    added = len(mutation.entities.created) - len(mutation.entities.merged)
    if mutation.entities.created and state.entities + added > rules.max_entities:
        raise QuotaExceededError(
            f"scope {scope!r} would hold {state.entities + added} entities, over its quota of {rules.max_entities} "
            f"({state.entities} now, +{len(mutation.entities.created)} in this write); nothing was written. "
            "Purge entities you no longer need with purge(entity), or raise the quota with "
            "set_rules(max_entities=...).")


SHARED_AUDIT_VALUES = ("scope", "action", "client", "source", "model", "session", "entities")
"""An audit entry's values that many entries repeat (``cypher/fragments/new_audit_entry``)."""


def shared_apart(values: dict[str, Any], shared: tuple[str, ...]) -> dict[str, Any]:
    """A new record's values as the apply statements take them: ``props``, and apart the ``shared`` ones."""
    return {"props": {k: v for k, v in values.items() if k not in shared},
            "shared": {k: v for k, v in values.items() if k in shared}}


_KIND_FIELDS = tuple(name for name in FACT_KIND if any(f.name == name for f in FACT))
_KIND_OF = attrgetter(*(f"provenance.{name}" if name in PROVENANCE_FIELDS else name for name in _KIND_FIELDS),
                      "ahead")
"""A record's values of its kind (:data:`~synapse_graph.shapes.FACT_KIND`), and whether it is ahead."""
_KIND = Storer(tuple(f for f in FACT if f.name in _KIND_FIELDS))


class Kinds:
    """The kinds of a write's new records (``$kinds``: maps of the values records share, absent ones left out),
    each sent once, and which each record is (its position)."""

    def __init__(self, scope: str) -> None:
        self.scope = scope
        self.seen: dict[tuple[Any, ...], int] = {}
        self.maps: list[dict[str, Any]] = []

    def of(self, record: Record) -> int:
        """The position of a record's kind in :attr:`maps` (added if new)."""
        # Equal values are one kind, but for the sign of a zero confidence (kept bit for bit).
        key = (*_KIND_OF(record), math.copysign(1.0, record.confidence))
        found = self.seen.get(key)
        if found is None:
            found = self.seen[key] = len(self.maps)
            kind = _KIND(dict(zip(_KIND_FIELDS, key, strict=False)))
            kind["predicate_slot"] = predicate_slot(self.scope, record.predicate)
            if record.ahead:
                kind["ahead"] = True
            self.maps.append(kind)
        return found


def new_record(kinds: Kinds, record: Record, spoken: Mapping[str, str]) -> list[Any]:
    """A new record as the apply statements take it (:data:`~synapse_graph.shapes.FACT_ROW`, without its ends'
    node ids): its ends' keys, its kind, its id, its slots (rules/slots.py: its (subject, predicate) timeline and
    its (object, predicate); the predicate's is its kind's), its search text (the stems of its sentence, its
    entities as ``spoken`` names them, else by key, and its source: rules/stems.py) and its validity. Its scope is
    its entities': every statement checks the subject's, so the relationship does not store it again."""
    scope, subject, predicate, obj = kinds.scope, record.subject, record.predicate, record.object
    return [subject, obj, kinds.of(record), record.id, fact_slot(scope, subject, predicate),
            object_slot(scope, obj, predicate),
            fact_search_text(spoken.get(subject, subject), predicate, spoken.get(obj, obj), record.provenance.source),
            Instant(record.valid_at), None if record.invalid_at is None else Instant(record.invalid_at)]


def updated_props(record: Record) -> dict[str, Any]:
    """What an update of a record in place sets (the fields a write may change; absent values unset)."""
    values = record_values(record)
    return {"id": record.id, **{f.name: stored(f, values[f.name]) for f in FACT if f.updated}}


SEEK_BY_ID_FROM = 32
"""A write creating at least this many records creates those between two entities of known node id apart
(``creates_by_id``, in ``apply_plan`` only). Seeking an entity by id instead of its index saved ~20 ms of
server time per batch of 1,000 on a 1M FalkorDB store (66-73 -> 44-46 ms); a sub-query costs a statement
~0.1-0.15 ms even when empty, so smaller writes keep the slim forms, which seek by key."""


def creates(scope: str, records: list[Record], ids: Mapping[str, Any], deleted: Container[str],
            spoken: Mapping[str, str] | None = None) -> dict[str, list[Any]]:
    """New records as the apply statements take them (:func:`new_record`): ``creates_by_id`` between two
    entities of known node id (sought by id, which the row ends with; from :data:`SEEK_BY_ID_FROM` records on),
    ``creates`` the others (sought by key), and ``kinds``, the values they share. Entities the write ``deleted``
    (merged away) are never sought by id."""
    by_id: list[list[Any]] = []
    by_key: list[list[Any]] = []
    kinds, said = Kinds(scope), spoken or {}
    if len(records) < SEEK_BY_ID_FROM:
        ids = {}
    for record in records:
        row = new_record(kinds, record, said)
        a, b = ids.get(record.subject), ids.get(record.object)
        if a is None or b is None or record.subject in deleted or record.object in deleted:
            by_key.append(row)
        else:
            row += (a, b)
            by_id.append(row)
    return {"kinds": kinds.maps, "creates_by_id": by_id, "creates": by_key}


def audit_entry(ctx: Context, mutation: Mutation, now: Instant) -> dict[str, Any]:
    """The audit log's entry for a mutation: who, when, what it touched, the records it created and expired."""
    plan, changes = mutation.plan, mutation.entities
    records = (*plan.creates, *plan.expires, *plan.updates)
    touched = {k for r in records for k in (r.subject, r.object)}
    touched.update(changes.created, changes.merged, changes.merged.values(), (o["entity"] for o in mutation.observe),
                   mutation.touches,
                   *((a["key"], a["target"]) for a in changes.aliases),
                   *((t["subject"], t["object"]) for t in mutation.tombstones))
    detail = audit_detail(
        plan, mutation.before,
        entities_created=sorted(changes.created), entities_merged=[{"from": k, "into": v} for k, v in
                                                                   sorted(changes.merged.items())],
        aliases=[{"alias": a["key"], "of": a["target"]} for a in changes.aliases],
        rejected=[{k: t[k] for k in ("subject", "predicate", "object", "reason")} for t in mutation.tombstones],
        observed=[o["id"] for o in mutation.observe], forgotten=mutation.unobserve, merges=changes.snapshots,
        **mutation.detail,
    )
    written_by = mutation.provenance
    return {
        "id": uuid.uuid4().hex, "scope": ctx.scope, "at": now, "action": mutation.action,
        "client": written_by.client or ctx.client, "source": written_by.source, "model": written_by.model,
        "session": written_by.session, "entities": sorted(touched),
        "facts": stored_facts((r.id for r in records), detail),
        "detail": json.dumps(detail, sort_keys=True, separators=(",", ":")), "secrets": sorted(mutation.secrets),
        **with_values(verdicts(mutation.action, now, detail, plan.creates, plan.expires, mutation.read,
                               mutation.whole), mutation, now),
    }


def with_values(stored: dict[str, Any], mutation: Mutation, now: int) -> dict[str, Any]:
    """An entry's stored verdicts (rules/changes.py verdicts) with ``verdict_values``: what a page of changes shows
    of each record the verdicts of its changes name (its event's record, the ones it replaced, what superseded
    it) as this write leaves them, one JSON list of fragments/fact_values' lists; a page reads them instead of
    the records (engine/changes.py). None (nothing stored) if the write does not know one of them or the name
    of one of their entities: a page reads those records by id."""
    values = verdict_values(stored, mutation, now) if stored else None
    return stored if values is None else {**stored, "verdict_values": values}


def verdict_values(stored: Mapping[str, Any], mutation: Mutation, now: int) -> str | None:
    """:func:`with_values`' ``verdict_values``, or None."""
    plan = mutation.plan
    names = {**mutation.names, **{k: e["name"] for k, e in mutation.entities.created.items()}}
    known: dict[str, Record] = dict(mutation.read or {})
    known.update((r.id, r if r.expired_at is not None else replace(r, expired_at=now)) for r in plan.expires)
    known.update((r.id, r) for r in plan.updates)
    known.update((r.id, r) for r in plan.creates)
    codes, records = stored["verdicts"], stored["verdict_records"]
    before: list[str] = stored.get("verdict_before") or [""] * len(codes)
    by: list[str] = stored.get("verdict_by") or [""] * len(codes)
    wanted: dict[str, None] = {}
    for i, code in enumerate(codes):
        if code in SHOWN_VERDICTS:
            wanted[records[i]] = None
            wanted.update(dict.fromkeys(before[i].split()))
            if by[i]:
                wanted[by[i]] = None
    shown: list[list[Any]] = []
    for record_id in wanted:
        record = known.get(record_id)
        if record is None or record.subject not in names or record.object not in names:
            return None
        values = record_values(record)
        shown.append([names[record.subject], record.subject, names[record.object], record.object,
                      *(values[name] for name in SHOWN_FIELDS)])
    return json.dumps(shown, separators=(",", ":"))


SHOWN_VERDICTS = frozenset({VERDICT_ADDED, VERDICT_ENDED, VERDICT_FEEDBACK})
"""The stored verdicts of a change (engine/changes.py SHOWN), whose records an entry stores the values of."""
SHOWN_FIELDS = tuple(f.name for f in FACT if f.kind != "end")
"""A record's fields as fragments/fact_values lists them, after its ends' names and keys."""


LEFT_OUT: dict[Q, tuple[str, ...]] = {
    Q.APPLY_ADDITIONS: ("retarget", "aliases", "alias_names", "observe", "unobserve", "sessions", "tombstones",
                        "deletes", "expires", "updates", "creates_by_id", "counts_by_id"),
    Q.APPLY_FACTS: ("retarget", "aliases", "alias_names", "observe", "unobserve", "sessions", "tombstones", "deletes",
                    "creates_by_id", "counts_by_id"),
}
"""The slimmer forms of ``apply_plan``, slimmest first, with the parameters (sub-queries) each leaves out: a
write with none of them is applied by that form. Empty sub-queries are not free: a single-fact upsert of a
new fact took 13% less time on embedded FalkorDB and 9% less on Neo4j (p50, side by side with the full
statement; benchmarks/README.md, issue 15)."""


def statement(params: dict[str, Any]) -> Q:
    """The slimmest statement that applies a write (the parameters of the parts it leaves out are dropped)."""
    return next((name for name, absent in LEFT_OUT.items() if not any(params[k] for k in absent)), Q.APPLY_PLAN)


def apply(ctx: Context, state: ScopeState, mutation: Mutation, now: Instant) -> Op[None]:
    """Check the quotas and apply a mutation with its audit entry; nothing is written if a check fails.

    The last step of a write (:func:`~.operations.write`): the apply is its last request unless the
    names of new entities are embedded after it."""
    if mutation.is_empty():
        return
    counted = mutation.counts()  # once: a batch's thousand records are tallied in one pass
    check_quotas(ctx.scope, state, mutation, counted)
    plan, changes = mutation.plan, mutation.entities
    counts = record_counts(plan.creates, [*changes.removed, *changes.deleted_history])
    params = {
        "scope": ctx.scope, "scope_token": scope_token(ctx.scope), "format": STORE_FORMAT,
        "version": state.version, "batch": uuid.uuid4().hex, "now": now, **counter_params(counted),
        "entity_delta": len(changes.created) - len(changes.merged),
        "rules": {} if mutation.rules is None else rules_params(mutation.rules),
        "entities": list(changes.created.values()),
        "retarget": [{"from": k, "to": v} for k, v in changes.merged.items()],
        "aliases": changes.aliases,
        "alias_names": [{"key": k, "names": v} for k, v in changes.alias_names.items()],
        "expires": [r.id for r in plan.expires],
        "updates": [updated_props(r) for r in plan.updates],
        **creates(ctx.scope, plan.creates, mutation.entity_ids, changes.merged, mutation.spoken),
        "tombstones": mutation.tombstones,
        "observe": mutation.observe,
        "sessions": mutation.sessions,  # times in them are Instants already (view.now)
        "unobserve": mutation.unobserve,
        "audit": [shared_apart(entry, SHARED_AUDIT_VALUES)
                  for entry in (*mutation.imported_audit, audit_entry(ctx, mutation, now))],
        "deletes": list(changes.merged),
        "counts": counts,
        "counts_by_id": [],
        "grown": grown(ctx.scope, mutation, now),
    }
    name = statement(params)
    if name == Q.APPLY_PLAN and len(plan.creates) >= SEEK_BY_ID_FROM:
        # The full form seeks stored entities by id: their counts too (fragments/count_records_by_id).
        params["counts"], params["counts_by_id"] = counted_by_id(counts, mutation.entity_ids, changes.merged)
    if name in LEFT_OUT:
        params = {k: v for k, v in params.items() if k not in LEFT_OUT[name]}
    observed = [o for o in mutation.observe if o.get("expired_at") is None]
    recorded = [r for r in plan.creates if r.expired_at is None]
    embed = ctx.embedder is not None and bool(changes.created or observed or recorded)
    if not (yield from write(name, params, last=not embed)):
        raise PlanOutdated
    yield from embeddings.store(ctx, entities=list(changes.created.values()), observations=observed, facts=recorded,
                                spoken=mutation.spoken)
