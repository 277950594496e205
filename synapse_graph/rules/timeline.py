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

import os
import threading
from collections.abc import Callable, Container, Iterable
from dataclasses import dataclass, field, replace

from synapse_graph.models import TrustState
from synapse_graph.rules.built import built, rebuilt

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
    status: TrustState = "believed"
    """Trust state: ``believed``, ``candidate`` (recorded, not believed) or ``disputed``."""
    flag: str | None = None
    """Why a candidate needs a closer look, e.g. an earlier rejection of the same fact."""
    confirmed_at: int | None = None
    """When the fact was last confirmed (written again), if it was since it was recorded."""
    pinned: bool = False

    @property
    def ahead(self) -> bool:
        """True if its validity starts or ends after it was recorded: whether it holds at a later instant depends
        on that instant. Any other record holds at every instant from its recording on if it has no end, and at
        none if it has one (the scope's count of facts valid now reads only the few ahead ones apart)."""
        return self.valid_at > self.recorded_at or (self.invalid_at is not None and self.invalid_at > self.recorded_at)

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
    status: TrustState = "believed"
    flag: str | None = None
    confirmations: int = 1
    """How many confirmations the write brings (a record moved by a merge brings its own)."""
    moved: Record | None = None
    """The stored record an alias merge moves with this write: kept as it was (id, belief time) when
    nothing in the target's timeline changes it. A moved record keeps its trust state: a disputed one
    makes the fact it joins disputed."""


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

    @classmethod
    def joined(cls, *plans: Plan) -> Plan:
        """Plans of separate timelines (believed facts and candidates) as one."""
        joined = cls()
        for plan in plans:
            joined.creates += plan.creates
            joined.expires += plan.expires
            joined.updates += plan.updates
            joined.created += plan.created
            joined.confirmed += plan.confirmed
            joined.closed += plan.closed
        return joined

    def then(self, later: Plan, *, now: int) -> None:
        """Fold a plan made on top of this one (it saw this plan's records as stored) into it.

        A record this plan creates and the later plan expires is created already expired (its belief
        interval stays); one it creates and the later plan updates is created updated.
        """
        created = {r.id: i for i, r in enumerate(self.creates)}
        updated = {r.id: i for i, r in enumerate(self.updates)}
        for record in later.expires:
            if record.id in created:
                self.creates[created[record.id]] = rebuilt(self.creates[created[record.id]], expired_at=now)
            else:
                self.expires.append(record)
        for record in later.updates:
            if record.id in created:
                self.creates[created[record.id]] = record
            elif record.id in updated:
                self.updates[updated[record.id]] = record
            else:
                self.updates.append(record)
        self.creates += later.creates
        self.created += later.created
        self.confirmed += later.confirmed
        self.closed += later.closed


_TRUST_ORDER: dict[str, int] = {"believed": 0, "candidate": 1, "disputed": 2}


def _latest(*instants: int | None) -> int | None:
    """The latest of some optional instants (None if none is given)."""
    known = [t for t in instants if t is not None]
    return max(known) if known else None


def weakest(*states: TrustState) -> TrustState:
    """The least trusted of some trust states (disputed, then candidate, then believed)."""
    return max(states, key=lambda s: _TRUST_ORDER[s])


@dataclass
class _Work:
    record: Record
    origin: Record | None
    alive: bool = True
    moved: Record | None = None


RECORD_ID_DIGITS = "0123456789abcdefghijklmnopqrstuvwxyz"
_DIGIT_OF_BYTE = bytes(RECORD_ID_DIGITS.encode()[b % 36] for b in range(256))
_UNEVEN_BYTES = bytes(range(252, 256))
"""Random bytes from 252 up are dropped: the others (7 x 36 of them) give each digit alike."""
_ids = threading.local()


def _fresh_digits() -> None:
    """Forget the random digits drawn ahead (in a forked child: its parent drew them too)."""
    global _ids
    _ids = threading.local()


os.register_at_fork(after_in_child=_fresh_digits)


def new_record_id() -> str:
    """A random record id: 25 lowercase base-36 digits (129 random bits), each drawn alike.

    Every record of every timeline carries one (on its edge, in its index and in the audit log),
    so it is written as short as 128 bits allow in letters and digits; older stores hold
    32-digit hex ids, and both kinds are plain ids to every reader. Digits are drawn from the system's
    random source a few thousand at a time, per thread (a batch makes a thousand ids).
    """
    digits: str = getattr(_ids, "digits", "")
    if len(digits) < 25:
        digits = os.urandom(4096).translate(_DIGIT_OF_BYTE, _UNEVEN_BYTES).decode()
    _ids.digits = digits[25:]
    return digits[:25]


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

    shortcuts = True
    """Take the short ways for a new fact that unites with nothing (a test turns them off to compare)."""

    def add(self, write: Write) -> None:
        """Add one fact: confirm, merge, supersede or splice it into its timeline."""
        if self.shortcuts and write.moved is None and (write.subject, write.predicate) not in self._slots:
            self._first(write)
            return
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
            holder.record = rebuilt(
                holder.record,
                confirmations=holder.record.confirmations + write.confirmations,
                confidence=max(holder.record.confidence, write.confidence),
                confirmed_at=self._now if write.moved is None else _latest(holder.record.confirmed_at,
                                                                           write.moved.confirmed_at),
                pinned=holder.record.pinned or (write.moved is not None and write.moved.pinned),
                # A write never ends a dispute (only feedback does): what it unites with keeps the weakest state.
                status=weakest(holder.record.status, write.status),
                flag=holder.record.flag or write.flag,
            )
            self._confirmed += 1
            return
        if self.shortcuts and not same and write.moved is None:
            # A new fact beside its timeline's other values (the common case after _first): nothing to unite.
            self._slots[(write.subject, write.predicate)].append(_Work(self._new(write, valid_at, invalid_at), None))
            self._created += 1
            return
        for work in same:
            valid_at = min(valid_at, work.record.valid_at)
            invalid_at = (
                None
                if FOREVER in (end_of(invalid_at), end_of(work.record.invalid_at))
                else max(end_of(invalid_at), end_of(work.record.invalid_at))
            )
            work.alive = False
        moved = write.moved
        if moved is not None and not same and (valid_at, invalid_at) == (moved.valid_at, moved.invalid_at):
            # A moved record that nothing in the target's timeline touches stays as it was.
            self._slots.setdefault((write.subject, write.predicate), []).append(_Work(moved, None, moved=moved))
            return
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
            confirmations=write.confirmations + sum(w.record.confirmations for w in same),
            provenance=write.provenance,
            # A write never ends a dispute (only feedback does): what it unites with keeps the weakest state.
            status=weakest(write.status, *(w.record.status for w in same)),
            flag=write.flag or next((w.record.flag for w in same if w.record.flag), None),
            confirmed_at=_latest(*(w.record.confirmed_at for w in same), *([moved.confirmed_at] if moved else [])),
            pinned=any(w.record.pinned for w in same) or (moved is not None and moved.pinned),
        )
        self._slots.setdefault((write.subject, write.predicate), []).append(_Work(merged, None))
        self._created += 1

    def first(self, subject: str, predicate: str, obj: str, valid_at: int, invalid_at: int | None, confidence: float,
              provenance: Provenance, status: TrustState, flag: str | None) -> bool:
        """:meth:`add` of a write (one confirmation, moving nothing) in a timeline that holds nothing yet, given by its
        values: a batch's common case, without a :class:`Write` made for it. False, and nothing done, when its
        timeline holds something (the caller adds it as a :class:`Write`)."""
        if not self.shortcuts or (subject, predicate) in self._slots:
            return False
        self._slots[(subject, predicate)] = [_Work(built(Record, {
            "id": self._new_id(), "subject": subject, "predicate": predicate, "object": obj,
            "valid_at": valid_at, "invalid_at": invalid_at, "recorded_at": self._now, "expired_at": None,
            "confidence": confidence, "confirmations": 1, "provenance": provenance,
            "status": status, "flag": flag or None, "confirmed_at": None, "pinned": False,
        }), None)]
        self._created += 1
        return True

    def _first(self, write: Write) -> None:
        """The common case of a batch: a new fact in a timeline that holds nothing yet (no stored record read,
        no earlier write): recorded as written, what :meth:`add` makes of it with nothing to unite or close."""
        record = self._new(write, write.valid_at, write.invalid_at)
        self._slots[(write.subject, write.predicate)] = [_Work(record, None)]
        self._created += 1

    def _new(self, write: Write, valid_at: int, invalid_at: int | None) -> Record:
        """A written fact's new record, valid over ``[valid_at, invalid_at)``, when it unites with no record
        and moves none: what :meth:`add`'s general case makes of it with nothing to unite."""
        return built(Record, {
            "id": self._new_id(), "subject": write.subject, "predicate": write.predicate, "object": write.object,
            "valid_at": valid_at, "invalid_at": invalid_at, "recorded_at": self._now, "expired_at": None,
            "confidence": write.confidence, "confirmations": write.confirmations, "provenance": write.provenance,
            "status": write.status, "flag": write.flag or None, "confirmed_at": None, "pinned": False,
        })

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
            work.record = rebuilt(work.record, valid_at=valid_at, invalid_at=invalid_at)

    def plan(self) -> Plan:
        """The changes that turn the stored records into the planned ones."""
        result = Plan(created=self._created, confirmed=self._confirmed)
        for works in self._slots.values():
            for work in works:
                origin, record = work.origin, work.record
                if origin is None:
                    if work.alive and work.moved is not None and record != work.moved:
                        # A moved record changed by a later write is a new belief, recorded now.
                        result.creates.append(rebuilt(record, id=self._new_id(), recorded_at=self._now))
                    elif work.alive:
                        result.creates.append(record)
                elif not work.alive:
                    result.expires.append(origin)
                    result.closed += 1
                elif (record.valid_at, record.invalid_at) != (origin.valid_at, origin.invalid_at):
                    result.expires.append(origin)
                    result.closed += 1
                    result.creates.append(rebuilt(record, id=self._new_id(), recorded_at=self._now))
                elif record != origin:
                    result.updates.append(record)
        return result


def merge_plan(
    target_current: Iterable[Record],
    moved: Iterable[Record],
    *,
    single_valued: Container[str],
    now: int,
    new_id: Callable[[], str] = new_record_id,
) -> Plan:
    """Plan moving a merged-away entity's records (already re-keyed to the target) onto the target.

    The result is the store as if every moved fact had been written to the target in the first
    place: each current moved record is replayed onto the target's timelines, in order of validity,
    under the same rules as a write: overlapping or touching intervals of one fact are united
    (confirmations summed, the highest confidence kept), two values of a single-valued predicate are
    resolved (the later one closes the earlier at its start), candidates stay candidates in a
    timeline of their own and a disputed record keeps the fact disputed. A moved record nothing
    changes keeps its id and belief time; one that is changed is kept as history (expired now) beside
    the result. Moved history (expired records) is copied as it is.
    """
    history: list[Record] = []
    current: list[Record] = []
    for record in moved:
        (history if record.expired_at is not None else current).append(record)
    target = list(target_current)
    believed = TimelinePlanner([r for r in target if r.status != "candidate"], now=now, new_id=new_id)
    candidates = TimelinePlanner([r for r in target if r.status == "candidate"], now=now, new_id=new_id)
    # In order of validity; ties by content, so the order (which decides which of two values of a
    # single-valued predicate starting together remains) never depends on ids or clocks.
    for record in sorted(current, key=lambda r: (r.valid_at, r.subject, r.predicate, r.object, r.id)):
        candidate = record.status == "candidate"
        (candidates if candidate else believed).add(Write(
            subject=record.subject, predicate=record.predicate, object=record.object, valid_at=record.valid_at,
            invalid_at=record.invalid_at, confidence=record.confidence,
            single_valued=not candidate and record.predicate in single_valued, provenance=record.provenance,
            status=record.status, flag=record.flag, confirmations=record.confirmations, moved=record,
        ))
    plan = Plan.joined(believed.plan(), candidates.plan())
    kept = {c.id for c in plan.creates}
    plan.creates = history + plan.creates + [replace(r, expired_at=now) for r in current if r.id not in kept]
    return plan
