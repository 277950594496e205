"""The store as a write in progress sees it: what the database holds, with the write's pending changes on top.

One write (an upsert with ``SAME_AS`` triples, an alias merge, an import chunk) is planned in
steps that each read the store, and applied by one statement at the end. The view answers
each step's reads as if the earlier steps were already applied: a merged-away entity's name
resolves to its target, a record the write created is current, one it expired is not.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from synapse_graph.catalogue import Q
from synapse_graph.engine import rows
from synapse_graph.engine.context import Context
from synapse_graph.engine.inputs import MAX_TYPE_LENGTH, Name, alias_row, entity_row, text
from synapse_graph.engine.io import Op, read
from synapse_graph.engine.scope import ScopeState, state_from_row
from synapse_graph.instants import Instant
from synapse_graph.models import ScopeRules
from synapse_graph.rules.slots import fact_slot
from synapse_graph.rules.timeline import Plan, Record, end_of
from synapse_graph.rules.trust import TIMELINE_STATES

SlotKey = tuple[str, str, str | None, int | None]
"""(subject key, predicate, object key or None for every object, since: leave out records that ended before)."""


@dataclass(frozen=True)
class Ahead:
    """What a write's planning will read, asked before its state so that one round trip answers all
    three (:data:`~synapse_graph.catalogue.Q.PLAN_INPUT`): the names' keys, and one key per fact as if
    every name were its own entity (the object is ignored for predicates the scope's rules call
    single-valued)."""

    names: tuple[str, ...]
    keys: tuple[tuple[str, str, str | None, int], ...]
    """(subject, predicate, object or None for every object, since)."""
    statuses: tuple[str, ...]


@dataclass
class _Read:
    """What :class:`Ahead` brought back: name resolutions and stored records, with what they cover."""

    found: dict[str, str]
    ids: dict[str, Any]
    names: frozenset[str]
    records: list[Record]
    covers: dict[tuple[str, str], list[tuple[str | None, int]]]
    """(subject, predicate) -> (object or None for every object, since) of each key asked."""
    statuses: frozenset[str]

    def answers(self, wanted: list[SlotKey], allowed: tuple[str, ...]) -> list[Record] | None:
        """The stored records of the wanted keys, or None if a key is not covered by what was read."""
        if not set(allowed) <= self.statuses:
            return None
        by_pair: dict[tuple[str, str], list[tuple[str | None, int]]] = {}
        for subject, predicate, obj, since in wanted:
            if since is None or not any((o is None or o == obj) and at <= since
                                        for o, at in self.covers.get((subject, predicate), ())):
                return None
            by_pair.setdefault((subject, predicate), []).append((obj, since))
        return [r for r in self.records if r.status in allowed and any(
            (obj is None or r.object == obj) and end_of(r.invalid_at) >= since
            for obj, since in by_pair.get((r.subject, r.predicate), ()))]


@dataclass
class EntityChanges:
    """What a write changes besides fact records: entities created, aliases, merges."""

    created: dict[str, dict[str, Any]] = field(default_factory=dict)
    aliases: list[dict[str, Any]] = field(default_factory=list)
    alias_names: dict[str, list[str]] = field(default_factory=dict)
    merged: dict[str, str] = field(default_factory=dict)
    """Entities merged away (key -> the entity they were merged into): deleted, their aliases and
    rejections retargeted."""
    removed: list[Record] = field(default_factory=list)
    """Current records deleted with the merged-away entities (their copies are created on the target)."""
    deleted_history: list[Record] = field(default_factory=list)
    """Expired records deleted with the merged-away entities (out of the scope's count of expired records)."""
    merged_created: list[int] = field(default_factory=list)
    """When each merged-away entity was created (out of the scope's growth: rules/growth.py)."""
    snapshots: list[dict[str, Any]] = field(default_factory=list)
    """What each merge changed, as its audit entry keeps it to undo it (engine/unmerge.py snapshot)."""


class View:
    """Reads of one write in progress, answered from the store and the write's pending changes."""

    def __init__(self, ctx: Context, state: ScopeState, now: Instant) -> None:
        self.ctx, self.state, self.now = ctx, state, now
        self.plan = Plan()
        self.entities = EntityChanges()
        self._aliases: dict[str, str] = {}  # pending alias key -> target
        self._ahead: _Read | None = None
        self.entity_ids: dict[str, Any] = {}
        """Node ids of stored entities the write found by key (the apply seeks them by id: valid while the
        scope's lock is held, as only a write to the scope deletes its entities)."""
        self.read_records: dict[str, Record] = {}
        self.whole_slots: dict[tuple[str, str], int | None] = {}
        """Stored records this write read (current ones, as they were), and the timelines it read whole, in every
        trust state, each from when (the records ending then or later; None: all): what a write's audit entry
        judges its changes by (rules/changes.py verdicts)."""
        self.names: dict[str, str] = {}
        """Stored entities' names, by key, as the write's name resolutions found them (what its audit entry shows
        of the records it names: engine/writes.py verdict_values)."""
        self.spoken: dict[str, str] = {}
        """How this write names the entities it resolved, by canonical key (the search text of its facts holds
        their words as written: ``billingService`` splits into "billing service", its key does not)."""

    @classmethod
    def read_ahead(cls, ctx: Context, ahead: Ahead) -> Op[View]:
        """The view of a write whose state, names and current records are read in one round trip."""
        params = {"scope": ctx.scope, "names": list(ahead.names), "statuses": list(ahead.statuses),
                  "single_valued": sorted(ScopeRules().single_valued),
                  "keys": [{"slot": fact_slot(ctx.scope, s, p), "subject": s, "predicate": p, "object": o,
                            "since_at": Instant(t)} for s, p, o, t in ahead.keys]}
        [row] = yield from read(Q.PLAN_INPUT, params)
        state = state_from_row(row["state"])
        view = cls(ctx, state, state.clock())
        single = state.rules.single_valued
        covers: dict[tuple[str, str], list[tuple[str | None, int]]] = {}
        for s, p, o, t in ahead.keys:
            covers.setdefault((s, p), []).append((None if o is None or p in single else o, t))
        unique = {r["id"]: r for r in row["records"]}
        view.names.update(zip(row["entities"], row["names"], strict=True))
        view.named(unique.values())
        view._ahead = _Read(
            found={**{key: key for key in row["entities"]}, **{a["key"]: a["target"] for a in row["aliases"]}},
            ids=entity_ids(row), names=frozenset(ahead.names),
            records=[rows.record(r) for r in unique.values()], covers=covers,
            statuses=frozenset(ahead.statuses))
        return view

    # -- names ---------------------------------------------------------------------------------------

    def lookup(self, names: Iterable[Name]) -> Op[dict[str, str]]:
        """Canonical entity key of each name that exists (aliases and pending merges resolved)."""
        keys = sorted({n.key for n in names})
        found: dict[str, str] = {}
        stored = [k for k in keys if k not in self._aliases and k not in self.entities.created]
        if self._ahead is not None and self._ahead.names.issuperset(stored):
            found.update({k: self._ahead.found[k] for k in stored if k in self._ahead.found})
            self.entity_ids.update({k: self._ahead.ids[k] for k in stored if k in self._ahead.ids})
        elif stored:
            [row] = yield from read(Q.RESOLVE_KEYS, {"scope": self.ctx.scope, "keys": stored})
            found.update({key: key for key in row["entities"]})
            self.names.update(zip(row["entities"], row["names"], strict=True))
            found.update({a["key"]: a["target"] for a in row["aliases"]})
            self.entity_ids.update(entity_ids(row))
        found.update({k: self._aliases[k] for k in keys if k in self._aliases})
        found.update({k: k for k in keys if k in self.entities.created})
        canonical = {key: self.canonical(target) for key, target in found.items()} if self.entities.merged else found
        for name in names:
            if name.key in canonical:
                self.spoken.setdefault(canonical[name.key], name.display)
        return canonical

    def named(self, found: Iterable[Mapping[str, Any]]) -> None:
        """Learn the names of the ends of fact records read as fragments/fact maps (:attr:`names`)."""
        names = self.names
        for fact in found:
            names[fact["subject_key"]] = fact["subject"]
            names[fact["object_key"]] = fact["object"]

    def canonical(self, key: str) -> str:
        """Follow pending merges to the entity a key stands for now."""
        seen = set()
        while key in self.entities.merged and key not in seen:
            seen.add(key)
            key = self.entities.merged[key]
        return key

    def resolve(self, names: Iterable[Name], types: Mapping[str, str | None] | None = None) -> Op[dict[str, str]]:
        """Canonical key of each name; names never seen become new entities of this write."""
        by_key = {n.key: n for n in names}
        canonical = yield from self.lookup(by_key.values())
        for key, name in by_key.items():
            if key not in canonical:
                canonical[key] = key
                self.spoken.setdefault(key, name.display)
                kind = (types or {}).get(key)
                checked = None if kind is None else text(self.ctx, kind, "entity type", MAX_TYPE_LENGTH)
                self.entities.created[key] = entity_row(key, name.display, checked, self.now)
        return canonical

    def add_alias(self, key: str, display: str, target: str) -> None:
        self.entities.aliases.append(alias_row(key, display, target))
        self.entities.alias_names.setdefault(target, []).append(display)
        self._aliases[key] = target

    def merge(self, source: str, target: str, name: str, aliases: list[str], plan: Plan, removed: list[Record],
              history: list[Record]) -> None:
        """Record that entity ``source`` (called ``name``, with ``aliases``) is merged into ``target`` by
        ``plan``: its name becomes an alias of the target, and so do its aliases."""
        self.entities.merged[source] = target
        for key, target_key in list(self._aliases.items()):
            if target_key == source:
                self._aliases[key] = target
        self.entities.aliases.append(alias_row(source, name, target))
        self._aliases[source] = target
        self.entities.alias_names.setdefault(target, []).extend([name, *aliases])
        self.entities.removed += removed
        self.entities.deleted_history += history
        self.add(plan)

    # -- records -------------------------------------------------------------------------------------

    def add(self, plan: Plan) -> None:
        self.plan.then(plan, now=self.now)

    def _pending(self, records: Iterable[Record]) -> list[Record]:
        """Stored records as this write has left them so far (expired ones out, updated ones updated)."""
        expired = {r.id for r in self.plan.expires} | {r.id for r in self.entities.removed}
        updated = {r.id: r for r in self.plan.updates}
        return [updated.get(r.id, r) for r in records if r.id not in expired]

    def current(self, keys: Iterable[SlotKey], statuses: Iterable[str]) -> Op[list[Record]]:
        """Current records of the keys in the given trust states, the write's own creations included."""
        wanted = list(keys)
        allowed = tuple(statuses)
        fresh = self.entities.created.keys()  # entities this write creates have no stored records
        ids = self.entity_ids
        # Each key as writes/current_records takes it: [slot, subject, predicate, object, since_at, a, b].
        params = [[fact_slot(self.ctx.scope, s, p), s, p, o, None if t is None else Instant(t),
                   *((ids[s], ids[o]) if o in ids and s in ids else (None, None))] for s, p, o, t in wanted
                  if s not in fresh and o not in fresh]
        stored: list[Record] = []
        known = None if self._ahead is None or not params else self._ahead.answers(
            [key for key in wanted if key[0] not in fresh and key[2] not in fresh], allowed)
        if known is not None:
            stored = known
        elif params:
            [found] = yield from read(Q.CURRENT_RECORDS, {"scope": self.ctx.scope, "statuses": list(allowed),
                                                     "keys": params})
            # A record can answer two keys of one slot; each comes as its list of values (rows.record_of_values).
            unique = {values[rows.RECORD_ID]: values for values in found["records"]}
            stored = [rows.record_of_values(values) for values in unique.values()]
        self.read_records.update((r.id, r) for r in stored)
        if {*TIMELINE_STATES, "candidate"} <= set(allowed):
            for s, p, o, t in wanted:
                if o is None:
                    since = self.whole_slots.get((s, p), t)
                    self.whole_slots[(s, p)] = None if since is None or t is None else min(since, t)
        pending = [c for c in self.plan.creates if c.expired_at is None and c.status in allowed
                   and any(_answers(c, key) for key in wanted)]
        return self._pending(stored) + pending

    def entity_records(self, key: str) -> Op[list[Record]]:
        """Every record touching an entity, history included, as this write has left them so far."""
        found = yield from read(Q.ENTITY_RECORDS, {"scope": self.ctx.scope, "key": key})
        stored = [rows.record(row["fact"]) for row in found]
        self.named(row["fact"] for row in found)
        expired = {r.id for r in self.plan.expires}
        updated = {r.id: r for r in self.plan.updates}
        moved = {r.id for r in self.entities.removed}
        own = [replace(updated.get(r.id, r), expired_at=self.now) if r.id in expired else updated.get(r.id, r)
               for r in stored if r.id not in moved]
        pending = [c for c in self.plan.creates if key in (c.subject, c.object)]
        return own + pending


def entity_ids(row: Mapping[str, Any]) -> dict[str, Any]:
    """Node ids of the entities a name resolution found, by key: none from a dialect that seeks entities by
    key as fast (Neo4j's resolve_keys), one per entity otherwise."""
    ids = row["ids"]
    return dict(zip(row["entities"], ids, strict=True)) if ids else {}


def _answers(record: Record, key: SlotKey) -> bool:
    subject, predicate, obj, since = key
    return (record.subject == subject and record.predicate == predicate and (obj is None or record.object == obj)
            and (since is None or end_of(record.invalid_at) >= since))
