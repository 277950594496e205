"""What changed: the audit log's entries read as changes to the memory, record by record (pure rules).

Every write leaves one audit entry: its instant, its action, who made it, and (in its detail) the ids of the
fact records it created, expired and updated, the observations it recorded and forgot, the entities it merged.
The records keep their own times: a record created by the write was ``recorded_at`` its instant, one it
withdrew ``expired_at`` it. So a change is read from the records themselves, not from the entry's say-so: a
record the entry names but recorded at another time (one a merge moved as it was, one an import restored) is no
change of this write. Each record is read with the records of its timeline (same subject and predicate) that
changed at the same instant, the ones that began where it ends, and those of its own fact believed around that
instant (``mates``), which say what kind of change it was.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from itertools import chain
from typing import Any, NamedTuple, cast

from synapse_graph.errors import InvalidInputError
from synapse_graph.models import Fact
from synapse_graph.models.changes import Change

EVENT_KEYS = ("created", "expired", "updated")
"""The detail lists of an audit entry that name fact records."""
SKIPPED_ACTIONS = frozenset({"pin", "unpin", "rules", "session:register", "session:revoke", "import"})
"""Actions that change nothing a reader learns or unlearns (an import's records keep the times they had)."""


class Event(NamedTuple):
    """One thing an entry names, in the entry's order: a fact record, an observation, a merge or a purge."""

    kind: str
    """``fact`` (a record created or expired), ``updated`` (a record changed in place: feedback), ``observed``,
    ``forgotten``, ``merged`` or ``purged``."""
    ref: str = ""
    """The record's or observation's id; a merge's entity keys, ``from`` and ``into``, joined by a newline."""


def events(action: str, detail: Mapping[str, Any]) -> list[Event]:
    """What an entry names, in a fixed order: merges, fact records (created, expired, updated), observations."""
    return [Event._make(pair) for pair in _named(action, detail)]


def _named(action: str, detail: Mapping[str, Any]) -> list[tuple[str, str]]:
    """:func:`events` as plain (kind, ref) pairs (a batch's entry names ~1,400 records: :func:`verdicts` reads
    them as they are)."""
    if action in SKIPPED_ACTIONS:
        return []
    if action == "purge":
        return [("purged", "")]
    found = [("merged", f"{m['from']}\n{m['into']}") for m in _listed(detail, "entities_merged")
             if isinstance(m, Mapping) and isinstance(m.get("from"), str) and isinstance(m.get("into"), str)]
    seen: set[str] = set()
    for key in EVENT_KEYS:
        kind = "updated" if key == "updated" else "fact"
        for item in _listed(detail, key):
            ref = item if type(item) is str else item.get("id") if isinstance(item, Mapping) else None
            if isinstance(ref, str) and ref not in seen:
                seen.add(ref)
                found.append((kind, ref))
    found += [("observed", i) for i in _listed(detail, "observed") if isinstance(i, str)]
    found += [("forgotten", i) for i in _listed(detail, "forgotten") if isinstance(i, str)]
    return found


def may_change(action: str, event: Event) -> bool:
    """False for an event that is no change whatever its records say: a record updated in place by a write other
    than feedback (an upsert that confirms a fact counts the confirmation)."""
    return event.kind != "updated" or action.startswith("feedback:")


def _listed(detail: Mapping[str, Any], key: str) -> list[Any]:
    value = detail.get(key)
    return value if isinstance(value, list) else []


_RECORD_KINDS = frozenset({"fact", "updated"})
"""The kinds of :func:`_named`'s events that name a fact record."""


VERDICT_ADDED, VERDICT_ENDED, VERDICT_NONE, VERDICT_FEEDBACK, VERDICT_SAME, VERDICT_JUDGE = "a", "e", "x", "f", "-", "?"
"""What a write stores of each event its entry names (:func:`verdicts`): a fact record it ``added`` or ``ended``
(cut short, in place of the same fact's record it withdrew), one it withdrew that is no change (the same fact
created again by the write), a record's ``feedback``, an update that is no change, or a record to be judged when
read."""


def verdicts(action: str, at: int, detail: Mapping[str, Any], creates: Sequence[Any], expires: Sequence[Any],
             read: Mapping[str, Any] | None = None, whole: Mapping[tuple[str, str], int | None] | None = None
             ) -> dict[str, Any]:
    """What an audit entry stores so that a page of changes need not judge its events when read: ``verdicts``,
    one code per event of :func:`events` (in its order), ``verdict_records``, the events' record ids and, if a
    record ended or is no change, ``verdict_before`` (the records it replaced, or that make it no change: ids
    joined by spaces), ``verdict_by`` (what superseded it) and ``verdict_why``, "" for none.

    ``creates`` and ``expires`` are the plan's records (:class:`~synapse_graph.rules.timeline.Record`); ``read``
    the stored current records the write read, by id, and ``whole`` the timelines it read whole (each from when:
    the records ending then or later). A record created at the write's instant while nothing of its fact was
    withdrawn is ``added`` as :func:`judge` finds it (planned as a new belief: no record of its fact with its
    interval was believed). Other records of a timeline read whole are judged by :func:`judge` over those records
    as the write leaves them: a record that ended, one that is no change; a record of a timeline read from after
    its end (what began there may not have been read), or judged anything else, is judged when read. Nothing is
    stored for an entry that names merges or observations (their events are read from its detail), for a
    rejection (its reasons are in the detail) or when every event would be judged when read."""
    listed = _named(action, detail)
    # _named lists merges (and a purge) first and observations last: only its ends can be other than records.
    if not listed or action == "reject" or listed[0][0] not in _RECORD_KINDS or listed[-1][0] not in _RECORD_KINDS:
        return {}
    created = {r.id: r for r in creates}
    withdrawn = {r.id: r for r in expires}
    touched = {(r.subject, r.predicate, r.object) for r in expires}
    updated = VERDICT_FEEDBACK if action.startswith("feedback:") else VERDICT_SAME
    codes: list[str] = []
    said: list[tuple[str, str, str]] = []
    timelines: dict[tuple[str, str], dict[str, Any]] | None = None
    judged: dict[tuple[str, str], dict[str, _Timed]] = {}
    nothing = ("", "", "")
    add_code, add_said = codes.append, said.append
    for kind, ref in listed:  # one pass over a batch's ~1,400 events: most are simply added
        if kind == "updated":
            add_code(updated)
            add_said(nothing)
            continue
        record = created.get(ref)
        if record is not None and record.recorded_at == at and record.expired_at is None and (
                not touched or (record.subject, record.predicate, record.object) not in touched):
            add_code(VERDICT_ADDED)
            add_said(nothing)
            continue
        code, more = VERDICT_JUDGE, nothing
        if whole is not None and read is not None and (record is not None or ref in withdrawn):
            if timelines is None:  # once, and only for an entry with a record not simply added
                timelines = {}
                for r in chain(read.values(), creates, expires):
                    slot = (r.subject, r.predicate)
                    if slot in whole:
                        found = timelines.get(slot)
                        if found is None:
                            found = timelines[slot] = {}
                        found[r.id] = r
            if record is None:
                record = withdrawn[ref]
            slot = (record.subject, record.predicate)
            timeline = timelines.get(slot)
            if timeline is not None:
                facts = judged.get(slot)
                if facts is None:
                    facts = judged[slot] = {i: _Timed(i, r.object, r.valid_at, r.invalid_at, r.recorded_at,
                                                      at if i in withdrawn else r.expired_at, r.status)
                                            for i, r in timeline.items()}
                code, more = _judged_now(action, at, record, created, timeline, facts, whole[slot])
        add_code(code)
        add_said(more)
    joined = "".join(codes)  # one letter each
    if joined.count(VERDICT_JUDGE) == len(joined):
        return {}
    stored: dict[str, Any] = {"verdicts": joined, "verdict_records": [ref for _, ref in listed]}
    if VERDICT_ENDED in joined or VERDICT_NONE in joined:
        stored.update({"verdict_before": [b for b, _, _ in said], "verdict_by": [by for _, by, _ in said],
                       "verdict_why": [why for _, _, why in said]})
    return stored


def erased_verdicts(action: str, detail: Mapping[str, Any], stored: Mapping[str, Any], banned: frozenset[str]
                    ) -> dict[str, Any]:
    """What an entry stored of its events (:func:`verdicts`) as it is kept after an erasure left out of its
    ``detail`` what named the erased entity (rules/trust.py erased_from; ``banned``: its keys and record ids):
    the verdicts of the events left, none naming an erased record. A verdict is kept, not judged again when read:
    what a write judged stays true, while its records' ends may have moved since (a merge makes two facts of the
    write one), and judged from them it would be another change. An ended value superseded by an erased record
    says why as if that record was never there; all of an entry's events judged when read: nothing stored."""
    codes, records = stored.get("verdicts"), stored.get("verdict_records")
    if not codes or not records:
        return {}
    said = zip(*(stored.get(k) or [""] * len(codes) for k in ("verdict_before", "verdict_by", "verdict_why")),
               strict=True)
    known = {ref: (code, *more) for code, ref, more in zip(codes, records, said, strict=True)}
    kept: list[tuple[str, str, str, str, str]] = []
    for _, ref in _named(action, detail):
        if ref not in known:
            return {}  # an event the write stored nothing of: the entry is judged when read, as before
        code, before, by, why = known[ref]
        before = " ".join(i for i in before.split() if i not in banned)
        if by in banned:
            by, why = "", "retracted" if action == "retract" else ""
        if code in (VERDICT_ENDED, VERDICT_NONE) and not before:
            code, by, why = VERDICT_JUDGE, "", ""
        kept.append((code, ref, before, by, why))
    joined = "".join(code for code, *_ in kept)
    if joined.count(VERDICT_JUDGE) == len(joined):
        return {}
    found: dict[str, Any] = {"verdicts": joined, "verdict_records": [ref for _, ref, *_ in kept]}
    if VERDICT_ENDED in joined or VERDICT_NONE in joined:
        found.update({"verdict_before": [k[2] for k in kept], "verdict_by": [k[3] for k in kept],
                      "verdict_why": [k[4] for k in kept]})
    return found


def _judged_now(action: str, at: int, record: Any, created: Mapping[str, Any], timeline: Mapping[str, Any],
                facts: Mapping[str, _Timed], since: int | None) -> tuple[str, tuple[str, str, str]]:
    """A record's verdict judged at the write over its ``timeline`` (its records the write read, read whole
    from ``since``, with those it created and withdrew, and as ``facts`` as the write leaves them:
    :func:`verdicts`)."""
    none = (VERDICT_JUDGE, ("", "", ""))
    mine = facts[record.id]
    judged = _judge_timed(at, action, mine, [f for i, f in facts.items() if i != record.id])
    if judged is None and record.id not in created and record.recorded_at != at and _seen(since, record.invalid_at):
        again = [r for i, r in timeline.items() if i in created and r.object == record.object
                 and r.recorded_at == at and r.expired_at is None]
        if again and all(_seen(since, r.invalid_at) for r in again):
            return VERDICT_NONE, (" ".join(sorted(r.id for r in again)), "", "")
        return none
    if judged is not None and judged.kind == "ended" and record.id in created and record.recorded_at == at and (
            record.invalid_at is not None and _seen(since, record.invalid_at)):
        return VERDICT_ENDED, (" ".join(b.id for b in judged.before),
                               "" if judged.superseded_by is None else judged.superseded_by.id, judged.why or "")
    return none


def _seen(since: int | None, end: int | None) -> bool:
    """Whether what began at ``end`` or has it as its end was read, by a read of a timeline whole from ``since``."""
    return since is None or end is None or end >= since


class _Timed(NamedTuple):
    """A plan's record as :func:`judge` reads it, times as integers (:func:`verdicts`)."""

    id: str
    object: str
    valid_at: int
    invalid_at: int | None
    recorded_at: int
    expired_at: int | None
    status: str


def stored_events(row: Mapping[str, Any]) -> list[tuple[Event, Stored | None]]:
    """The events an entry's stored verdicts name (``change_entries``'s row), each with its verdict (None: to be
    judged when read); the same events, in the same order, as :func:`events` finds in the entry's detail."""
    codes, records = row["verdicts"], row["verdict_records"]
    said = zip(*(row.get(k) or [""] * len(codes) for k in ("verdict_before", "verdict_by", "verdict_why")),
               strict=True)
    return [(Event("updated" if code in (VERDICT_FEEDBACK, VERDICT_SAME) else "fact", ref),
             None if code == VERDICT_JUDGE else Stored(code, tuple(before.split()), by, why)
             if before or by or why else _BARE.get(code) or Stored(code))
            for code, ref, (before, by, why) in zip(codes, records, said, strict=True)]


class Stored(NamedTuple):
    """An event's stored verdict: its code, the records it names besides its own (before, by) and why (a tuple:
    a page reads ~120)."""

    code: str
    before: tuple[str, ...] = ()
    by: str = ""
    why: str = ""

    def names(self) -> tuple[str, ...]:
        return (*self.before, *((self.by,) if self.by else ()))


_BARE = {code: Stored(code) for code in (VERDICT_ADDED, VERDICT_ENDED, VERDICT_FEEDBACK, VERDICT_NONE, VERDICT_SAME)}
"""The verdicts that name nothing besides their record, made once (most of a page's: an added record)."""


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


def _same_span(a: Fact, b: Fact) -> bool:
    return (a.valid_at, a.invalid_at, _candidate(a)) == (b.valid_at, b.invalid_at, _candidate(b))


def _net(at: datetime, records: Sequence[Fact]) -> tuple[list[Fact], list[Fact]]:
    """The records of one fact a write at ``at`` really created and withdrew: a record it withdrew while the same
    interval stays believed (taken out and put back, or absorbed by a merge) is no change, nor one it created
    while the same interval was believed already."""
    created: list[Fact] = []
    expired: list[Fact] = []
    before: set[tuple[Any, Any, bool]] = set()  # spans (_same_span's) believed before the write, and after it
    after: set[tuple[Any, Any, bool]] = set()
    for r in records:  # one pass (a batch's entry judges ~400 records when written): the same lists as four
        recorded, ended = r.recorded_at, r.expired_at
        if recorded == at:
            if ended != at:
                created.append(r)
        elif ended == at:
            expired.append(r)
        if recorded <= at and (ended is None or ended >= at):
            span = (r.valid_at, r.invalid_at, r.status == "candidate")
            if recorded < at:
                before.add(span)
            if ended is None or ended > at:
                after.add(span)
    return ([c for c in created if (c.valid_at, c.invalid_at, c.status == "candidate") not in before] if before
            else created,
            [e for e in expired if (e.valid_at, e.invalid_at, e.status == "candidate") not in after] if after
            else expired)


def judge(at: datetime, action: str, record: Fact, mates: Sequence[Fact], rejected: str | None = None
          ) -> Judged | None:
    """What a record named by the entry of a write at ``at`` tells of that write, or None if nothing.

    A record created then: ``added``, or (with earlier beliefs of the same fact it replaced) ``ended``
    (its validity cut short), ``approved`` (a candidate believed) or ``corrected``. A record withdrawn then
    with nothing of the same fact in its place: ``rejected`` or ``removed``. ``mates``: the records of its
    timeline that changed at ``at``, that begin where it ends, and the records of its fact believed around ``at``.
    """
    same = [record]
    same += [m for m in mates if m.object == record.object and m.id != record.id]
    created, expired = _net(at, same)
    # _net keeps the order it is given: the record (the only one of its id) comes first if it is kept
    if created and created[0].id == record.id:
        # one per interval: a merge can withdraw the same interval of the fact from both entities
        spans = {(m.valid_at, m.invalid_at, _candidate(m)): m for m in sorted(expired, key=lambda m: m.id)}
        before = tuple(sorted(spans.values(), key=lambda m: (m.valid_at, m.id)))
        if not before:
            return Judged("added")
        if action == "approve" and any(_candidate(m) for m in before) and not _candidate(record):
            return Judged("approved", before)
        if len(before) == 1 and before[0].valid_at == record.valid_at and _later(_end(before[0]), _end(record)):
            why, successor = _why_ended(at, action, record, mates)
            return Judged("ended", before, why, successor)
        return Judged("corrected", before)
    if created or not (expired and expired[0].id == record.id):
        return None  # not this write's change, or one a record of the same fact it created says
    if any(e.id < record.id and _same_span(e, record) for e in expired):
        return None  # one change per interval: a merge can withdraw one held by two records (the first says it)
    if action == "reject":
        return Judged("rejected", why=rejected)
    others: dict[str, list[Fact]] = {}
    for m in mates:
        if m.object != record.object:
            others.setdefault(m.object, []).append(m)
    starting = [c for found in others.values() for c in _net(at, found)[0]
                if c.valid_at == record.valid_at and _candidate(c) == _candidate(record)]
    if starting:
        return Judged("removed", why="superseded", superseded_by=min(starting, key=lambda m: (m.object, m.id)))
    return Judged("removed", why="retracted" if action == "retract" else None)


def _why_ended(at: datetime, action: str, record: Fact, mates: Sequence[Fact]) -> tuple[str | None, Fact | None]:
    successors = [m for m in mates if m.object != record.object and m.valid_at == record.invalid_at
                  and _believed_at(m, at) and _candidate(m) == _candidate(record)]
    if successors:
        return "superseded", min(successors, key=lambda m: (m.object, m.id))
    return ("retracted" if action == "retract" else None), None


_judge_timed = cast(Callable[[int, str, _Timed, list[_Timed]], Judged | None], judge)
""":func:`judge` of a plan's records (:func:`verdicts`): it reads a record's id, object, times and trust state only,
here as the plan's integers."""


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


# -- what changed, for a reader starting a session -----------------------------------------------------------

_WEIGHT = {"ended": 4, "removed": 4, "added": 3, "approved": 3, "merged": 3, "corrected": 2, "rejected": 2,
           "feedback": 2, "observed": 1, "forgotten": 1, "purged": 0}
"""How much a kind of change matters to a reader: a value that ended or changed first, new facts next."""


CHANGES_READ = 1_000
"""At most this many changes are read to choose the most relevant (the oldest first: a long absence shows what
changed first, within the budget)."""


def previous_start(sessions: Sequence[Any], current: str | None) -> datetime | None:
    """When the session before ``current`` began (the registry lists a scope's sessions, oldest first); with no
    current session, when the last one began. None if there is none."""
    starts = {s.id: s.registered_at for s in sessions}
    now = starts.get(current) if current is not None else None
    earlier = [t for sid, t in starts.items() if sid != current and (now is None or t < now)]
    return max(earlier) if earlier else None


def most_relevant(changes: Sequence[Change], about: Sequence[str], limit: int) -> list[Change]:
    """At most ``limit`` changes, most relevant first: those about the names ``about`` (the user, the scope's
    central entities, in that order of importance) before others, a value that ended or was replaced before a
    new fact, later before earlier. A new value and the one it replaced count as one."""
    rank = {name.casefold(): i for i, name in enumerate(about)}
    paired = _paired(changes)
    shown = [c for c in changes if c.kind != "added" or not any(c is a for _, a in paired.values())]

    def importance(change: Change) -> tuple[Any, ...]:
        names = [n.casefold() for n in _names(change)]
        closest = min((rank[n] for n in names if n in rank), default=len(rank))
        return closest, -_WEIGHT.get(change.kind, 0), -change.at.timestamp(), str(change)

    return sorted(shown, key=importance)[:limit]


def _names(change: Change) -> list[str]:
    fact = change.fact
    return [*change.entities, *(() if fact is None else (fact.subject, fact.object)),
            *(() if change.observation is None else (change.observation.entity,))]


def _paired(changes: Sequence[Change]) -> dict[int, tuple[Change, Change]]:
    """Each ended or removed value superseded by a value added in the same changes, with that added change."""
    added = {c.fact.id: c for c in changes if c.kind == "added" and c.fact is not None}
    return {id(c): (c, added[c.superseded_by.id]) for c in changes
            if c.superseded_by is not None and c.superseded_by.id in added}


def brief(changes: Sequence[Change]) -> list[str]:
    """One line per change for a person or a model: ``Dana LIVES_IN London from 2022-09-15 (before: Paris)``;
    ``Dana WORKS_AT Acme ended 2024-01-31 (retracted)``. An added value that replaced another is said once, as
    the replacement (pass the changes :func:`most_relevant` chose)."""
    lines: list[str] = []
    for change in changes:
        fact, why = change.fact, f" ({change.why})" if change.why else ""
        if change.kind in ("ended", "removed") and fact is not None and change.superseded_by is not None:
            new = change.superseded_by
            lines.append(f"{new.subject} {new.predicate} {new.object} from {_day(new.valid_at)} (before: "
                         f"{fact.object})")
        elif change.kind == "ended" and fact is not None:
            lines.append(f"{fact.subject} {fact.predicate} {fact.object} ended {_day(fact.invalid_at)}{why}")
        elif change.kind == "removed" and fact is not None:
            lines.append(f"{fact.subject} {fact.predicate} {fact.object} no longer believed{why}")
        elif change.kind in ("added", "corrected", "approved") and fact is not None:
            ends = f" until {_day(fact.invalid_at)}" if fact.invalid_at is not None else ""
            note = {"added": "new", "corrected": "corrected", "approved": "approved"}[change.kind]
            lines.append(f"{fact.subject} {fact.predicate} {fact.object} from {_day(fact.valid_at)}{ends} ({note})")
        elif fact is not None:
            lines.append(f"{fact.subject} {fact.predicate} {fact.object}: {change.kind}{why}")
        elif change.observation is not None:
            verb = "noted" if change.kind == "observed" else "forgotten"
            lines.append(f"{change.observation.entity}: {change.observation.text} ({verb})")
        elif change.kind == "merged":
            lines.append(f"{change.entities[0]} is the same as {change.entities[1]} (merged)")
        else:
            lines.append("an entity was erased")
    return lines


def _day(value: datetime | None) -> str:
    if value is None:
        return "now"
    return value.date().isoformat() if (value.hour, value.minute, value.second, value.microsecond) == (0, 0, 0, 0) \
        else value.isoformat(timespec="minutes").replace("+00:00", "Z")
