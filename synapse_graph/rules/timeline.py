"""Temporal planning: how a batch of writes changes the stored timelines.

Everything here is pure: the planner is given the records currently believed for
the (subject, predicate) pairs a batch touches, and returns which records to
create, expire or update. The caller applies that plan in one transaction.

Conventions: instants are UTC epoch microseconds; validity is half-open
``[valid_at, invalid_at)`` with ``None`` meaning "still holds"; a record's belief
interval ``[recorded_at, expired_at)`` is never rewritten: changing a record's
validity expires it and records a corrected copy.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace

FOREVER = 2**62
"""Stands for an open ``invalid_at`` in comparisons; larger than any storable instant."""


def end_of(invalid_at: int | None) -> int:
    return FOREVER if invalid_at is None else invalid_at


@dataclass(frozen=True)
class Provenance:
    """Who wrote a fact: the client or source, and optional model and session ids."""

    source: str | None = None
    client: str | None = None
    model: str | None = None
    session: str | None = None


@dataclass(frozen=True)
class Record:
    """One FACT edge as stored (subject and object by entity key)."""

    id: str
    subject: str
    predicate: str
    object: str
    valid_at: int
    invalid_at: int | None
    recorded_at: int
    expired_at: int | None
    confidence: float
    confirmations: int
    provenance: Provenance = Provenance()
    status: str = "believed"
    """Trust state: ``believed``, ``candidate`` (recorded, not believed) or ``disputed``."""
    flag: str | None = None
    """Why a candidate needs a closer look, e.g. an earlier rejection of the same fact."""

    def holds_at(self, instant: int) -> bool:
        return self.valid_at <= instant < end_of(self.invalid_at)

    def meets(self, valid_at: int, invalid_at: int | None) -> bool:
        """True if this validity overlaps or touches ``[valid_at, invalid_at)``."""
        return self.valid_at <= end_of(invalid_at) and valid_at <= end_of(self.invalid_at)


@dataclass(frozen=True)
class Write:
    """One fact to write, with resolved entity keys and times in microseconds."""

    subject: str
    predicate: str
    object: str
    valid_at: int
    invalid_at: int | None
    confidence: float
    single_valued: bool
    provenance: Provenance = Provenance()
    status: str = "believed"
    flag: str | None = None


@dataclass
class Plan:
    """What to change in the store; empty lists mean nothing to do."""

    creates: list[Record] = field(default_factory=list)
    expires: list[Record] = field(default_factory=list)
    updates: list[Record] = field(default_factory=list)
    created: int = 0
    confirmed: int = 0
    closed: int = 0

    @property
    def fact_delta(self) -> int:
        """Change in the number of currently believed records."""
        return sum(1 for r in self.creates if r.expired_at is None) - len(self.expires)

    def is_empty(self) -> bool:
        return not (self.creates or self.expires or self.updates)


@dataclass
class _Work:
    record: Record
    origin: Record | None
    alive: bool = True


def new_record_id() -> str:
    return uuid.uuid4().hex


class TimelinePlanner:
    """Applies writes and retractions to an in-memory copy of the affected timelines."""

    def __init__(self, current: Iterable[Record], *, now: int, new_id: Callable[[], str] = new_record_id) -> None:
        self._now = now
        self._new_id = new_id
        self._slots: dict[tuple[str, str], list[_Work]] = {}
        for record in current:
            self._slots.setdefault((record.subject, record.predicate), []).append(_Work(record, record))
        self._created = 0
        self._confirmed = 0

    def _live(self, subject: str, predicate: str) -> list[_Work]:
        return [w for w in self._slots.get((subject, predicate), []) if w.alive]

    def add(self, write: Write) -> None:
        """Add one fact: confirm, merge, supersede or splice it into its timeline."""
        live = self._live(write.subject, write.predicate)
        valid_at, invalid_at = write.valid_at, write.invalid_at
        if write.single_valued:
            others = [w for w in live if w.record.object != write.object]
            later_starts = [w.record.valid_at for w in others if w.record.valid_at > valid_at]
            if later_starts:
                # A late-arriving value ends where the next known value begins.
                invalid_at = min(end_of(invalid_at), min(later_starts))
            for work in others:
                if work.record.holds_at(valid_at):
                    self._reshape(work, work.record.valid_at, valid_at)
        same = [w for w in live if w.record.object == write.object and w.record.meets(valid_at, invalid_at)]
        holder = next(
            (w for w in same if w.record.valid_at <= valid_at and end_of(invalid_at) <= end_of(w.record.invalid_at)),
            None,
        )
        if holder is not None:
            holder.record = replace(
                holder.record,
                confirmations=holder.record.confirmations + 1,
                confidence=max(holder.record.confidence, write.confidence),
            )
            self._confirmed += 1
            return
        for work in same:
            valid_at = min(valid_at, work.record.valid_at)
            invalid_at = (
                None
                if FOREVER in (end_of(invalid_at), end_of(work.record.invalid_at))
                else max(end_of(invalid_at), end_of(work.record.invalid_at))
            )
            work.alive = False
        merged = Record(
            id=self._new_id(),
            subject=write.subject,
            predicate=write.predicate,
            object=write.object,
            valid_at=valid_at,
            invalid_at=invalid_at,
            recorded_at=self._now,
            expired_at=None,
            confidence=max([write.confidence, *(w.record.confidence for w in same)]),
            confirmations=1 + sum(w.record.confirmations for w in same),
            provenance=write.provenance,
            status=write.status,
            flag=write.flag,
        )
        self._slots.setdefault((write.subject, write.predicate), []).append(_Work(merged, None))
        self._created += 1

    def retract(self, subject: str, predicate: str, obj: str | None, at: int) -> int:
        """End the validity at ``at`` of the matching facts that hold then; returns how many."""
        ended = 0
        for work in self._live(subject, predicate):
            if (obj is None or work.record.object == obj) and work.record.holds_at(at):
                self._reshape(work, work.record.valid_at, at)
                ended += 1
        return ended

    def _reshape(self, work: _Work, valid_at: int, invalid_at: int | None) -> None:
        if valid_at >= end_of(invalid_at):
            work.alive = False
        else:
            work.record = replace(work.record, valid_at=valid_at, invalid_at=invalid_at)

    def plan(self) -> Plan:
        """The changes that turn the stored records into the planned ones."""
        result = Plan(created=self._created, confirmed=self._confirmed)
        for works in self._slots.values():
            for work in works:
                origin, record = work.origin, work.record
                if origin is None:
                    if work.alive:
                        result.creates.append(record)
                elif not work.alive:
                    result.expires.append(origin)
                    result.closed += 1
                elif (record.valid_at, record.invalid_at) != (origin.valid_at, origin.invalid_at):
                    result.expires.append(origin)
                    result.closed += 1
                    result.creates.append(replace(record, id=self._new_id(), recorded_at=self._now))
                elif record != origin:
                    result.updates.append(record)
        return result


def plan_merge(
    target_current: Iterable[Record], moved: Iterable[Record], *, now: int, new_id: Callable[[], str] = new_record_id
) -> Plan:
    """Plan moving an alias entity's records (already re-keyed to the target) onto the target.

    Every moved record is copied, history included. Currently believed copies whose
    validity overlaps or touches a target record of the same fact are united with it:
    confirmations summed, the highest confidence kept, the union interval recorded anew.
    """
    plan = Plan()
    union_ids: set[str] = set()
    moved_ids: set[str] = set()
    by_fact: dict[tuple[str, str, str], list[Record]] = {}
    for record in target_current:
        by_fact.setdefault((record.subject, record.predicate, record.object), []).append(record)
    for record in moved:
        if record.expired_at is not None:
            plan.creates.append(record)
            continue
        fact = (record.subject, record.predicate, record.object)
        moved_ids.add(record.id)
        group = [r for r in by_fact.get(fact, [])
                 if r.status == record.status and r.meets(record.valid_at, record.invalid_at)]
        if not group:
            by_fact.setdefault(fact, []).append(record)
            plan.creates.append(record)
            continue
        # The moved copy is kept as history (expired now) and a union replaces the group.
        plan.creates.append(replace(record, expired_at=now))
        union = Record(
            id=new_id(),
            subject=record.subject,
            predicate=record.predicate,
            object=record.object,
            valid_at=min(r.valid_at for r in [record, *group]),
            invalid_at=None
            if any(r.invalid_at is None for r in [record, *group])
            else max(end_of(r.invalid_at) for r in [record, *group]),
            recorded_at=now,
            expired_at=None,
            confidence=max(r.confidence for r in [record, *group]),
            confirmations=sum(r.confirmations for r in [record, *group]),
            provenance=record.provenance,
        )
        for old in group:
            by_fact[fact].remove(old)
            if old.id in union_ids:  # a union planned above never reaches the store
                plan.creates = [c for c in plan.creates if c.id != old.id]
            elif old.id in moved_ids:  # a moved copy stays as history
                plan.creates = [replace(c, expired_at=now) if c.id == old.id else c for c in plan.creates]
            else:
                plan.expires.append(old)
        by_fact[fact].append(union)
        union_ids.add(union.id)
        plan.creates.append(union)
        plan.confirmed += 1
    return plan
