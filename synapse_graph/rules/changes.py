"""What changed: the audit log's entries read as changes to the memory, record by record (pure rules).

Every write leaves one audit entry: its instant, its action, who made it, and (in its detail) the ids of the
fact records it created, expired and updated, the observations it recorded and forgot, the entities it merged.
The records keep their own times: a record created by the write was ``recorded_at`` its instant, one it
withdrew ``expired_at`` it. So a change is read from the records themselves, not from the entry's say-so: a
record the entry names but recorded at another time (one a merge moved as it was, one an import restored) is no
change of this write. Each record is read with the records of its timeline (same subject and predicate) that
changed at the same instant, and the one that began where it ends (``mates``), which say what kind of change it was.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from synapse_graph.errors import InvalidInputError
from synapse_graph.models import Fact

EVENT_KEYS = ("created", "expired", "updated")
"""The detail lists of an audit entry that name fact records."""
SKIPPED_ACTIONS = frozenset({"pin", "unpin", "rules", "session:register", "session:revoke", "import"})
"""Actions that change nothing a reader learns or unlearns (an import's records keep the times they had)."""


@dataclass(frozen=True)
class Event:
    """One thing an entry names, in the entry's order: a fact record, an observation, a merge or a purge."""

    kind: str
    """``fact`` (a record created or expired), ``updated`` (a record changed in place: feedback), ``observed``,
    ``forgotten``, ``merged`` or ``purged``."""
    ref: str = ""
    """The record's or observation's id; a merge's entity keys, ``from`` and ``into``, joined by a newline."""


def events(action: str, detail: Mapping[str, Any]) -> list[Event]:
    """What an entry names, in a fixed order: merges, fact records (created, expired, updated), observations."""
    if action in SKIPPED_ACTIONS:
        return []
    if action == "purge":
        return [Event("purged")]
    found = [Event("merged", f"{m['from']}\n{m['into']}") for m in _listed(detail, "entities_merged")
             if isinstance(m, Mapping) and isinstance(m.get("from"), str) and isinstance(m.get("into"), str)]
    seen: set[str] = set()
    for key in EVENT_KEYS:
        for item in _listed(detail, key):
            ref = item.get("id") if isinstance(item, Mapping) else item
            if isinstance(ref, str) and ref not in seen:
                seen.add(ref)
                found.append(Event("updated" if key == "updated" else "fact", ref))
    found += [Event("observed", i) for i in _listed(detail, "observed") if isinstance(i, str)]
    found += [Event("forgotten", i) for i in _listed(detail, "forgotten") if isinstance(i, str)]
    return found


def _listed(detail: Mapping[str, Any], key: str) -> list[Any]:
    value = detail.get(key)
    return value if isinstance(value, list) else []


@dataclass(frozen=True)
class Judged:
    """What a fact record's change is: its kind, the beliefs it replaced, and why."""

    kind: str
    before: tuple[Fact, ...] = ()
    why: str | None = None
    superseded_by: Fact | None = None


def _end(fact: Fact) -> datetime | None:
    return fact.invalid_at


def _later(a: datetime | None, b: datetime | None) -> bool:
    """True if end ``a`` comes after end ``b`` (None: never ends)."""
    return b is not None and (a is None or a > b)


def _candidate(fact: Fact) -> bool:
    return fact.status == "candidate"


def _believed_at(fact: Fact, at: datetime) -> bool:
    return fact.recorded_at <= at and (fact.expired_at is None or fact.expired_at > at)


def judge(at: datetime, action: str, record: Fact, mates: Sequence[Fact], rejected: str | None = None
          ) -> Judged | None:
    """What a record named by the entry of a write at ``at`` tells of that write, or None if nothing.

    A record created then: ``added``, or (with earlier beliefs of the same fact it replaced) ``ended``
    (its validity cut short), ``approved`` (a candidate believed) or ``corrected``. A record withdrawn then
    with nothing of the same fact in its place: ``rejected`` or ``removed``. ``mates``: the records of its
    timeline that changed at ``at``, or that begin where it ends.
    """
    created, expired = record.recorded_at == at, record.expired_at == at
    if created and expired:
        return None  # made and withdrawn by the one write: never believed
    same = [m for m in mates if m.object == record.object and m.id != record.id]
    if created:
        before = tuple(sorted((m for m in same if m.expired_at == at and m.recorded_at != at),
                              key=lambda m: (m.valid_at, m.id)))
        if not before:
            return Judged("added")
        if action == "approve" and any(_candidate(m) for m in before) and not _candidate(record):
            return Judged("approved", before)
        if len(before) == 1 and before[0].valid_at == record.valid_at and _later(_end(before[0]), _end(record)):
            why, successor = _why_ended(at, action, record, mates)
            return Judged("ended", before, why, successor)
        return Judged("corrected", before)
    if not expired or any(m.recorded_at == at and m.expired_at != at for m in same):
        return None  # not this write's, or replaced by a record of the same fact (that record's change says it)
    if action == "reject":
        return Judged("rejected", why=rejected)
    starting = [m for m in mates if m.object != record.object and m.recorded_at == at and m.expired_at != at
                and m.valid_at == record.valid_at and _candidate(m) == _candidate(record)]
    if starting:
        return Judged("removed", why="superseded", superseded_by=min(starting, key=lambda m: (m.object, m.id)))
    return Judged("removed", why="retracted" if action == "retract" else None)


def _why_ended(at: datetime, action: str, record: Fact, mates: Sequence[Fact]) -> tuple[str | None, Fact | None]:
    successors = [m for m in mates if m.object != record.object and m.valid_at == record.invalid_at
                  and _believed_at(m, at) and _candidate(m) == _candidate(record)]
    if successors:
        return "superseded", min(successors, key=lambda m: (m.object, m.id))
    return ("retracted" if action == "retract" else None), None


def rejection_reason(detail: Mapping[str, Any], record: Fact, keys: tuple[str, str]) -> str | None:
    """The reason a reject entry gives for a record (subject and object by ``keys``)."""
    for item in _listed(detail, "rejected"):
        if isinstance(item, Mapping) and (item.get("subject"), item.get("predicate"), item.get("object")) == (
                keys[0], record.predicate, keys[1]):
            reason = item.get("reason")
            return reason if isinstance(reason, str) else None
    return None


# -- cursors -------------------------------------------------------------------------------------------------

_CURSOR = re.compile(r"(-?\d{1,20})\.([0-9a-z]{1,64})\.(\d{1,9})")


def cursor(at: int, entry: str, offset: int) -> str:
    """Where a page of changes goes on: the entry's instant and id, and the event of it to start from."""
    return f"{at}.{entry}.{offset}"


def read_cursor(value: object) -> tuple[int, str, int]:
    """A cursor as given back by a page (``Changes.next``)."""
    found = _CURSOR.fullmatch(value) if isinstance(value, str) else None
    if found is None:
        raise InvalidInputError(f"after must be the next cursor of a page of changes (Changes.next), got "
                                f"{str(value)[:70]!r}")
    return int(found[1]), found[2], int(found[3])
