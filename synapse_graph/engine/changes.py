"""Time as a question: what the memory learned and unlearned between two recorded times (:func:`changes`), and
how the world differs between two valid times (:func:`diff`).

Changes are read from the audit log (one entry per write: its instant, action and provenance; the scope's (scope,
at) index finds a period's entries) and from the records the entries name, judged by their own times
(:mod:`synapse_graph.rules.changes`). A write that knows what its events were stores it on its entry (verdicts: an
added record, one that ended, a record's feedback); those events are read as their records alone, by id, with the
entries that name them (one statement, ``change_entries``), the others judged. An entry that also stores what those
changes show of their records (``verdict_values``, as its write left them: engine/writes.py) gives them itself, and
its records are not read, unless the scope's last merge, unmerge or erasure came after it (its records may have
moved, been renamed or gone). A page over stored verdicts is one round trip; one with events to judge costs one more
(more only when entries name nothing a reader learns, a filter leaves most out, or a stored verdict names a record
that is gone: that event is judged as if nothing was stored).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, NamedTuple

from pydantic import TypeAdapter

from synapse_graph.catalogue import Q
from synapse_graph.engine import inputs, reads, rows
from synapse_graph.engine.context import Context
from synapse_graph.engine.inputs import Name
from synapse_graph.engine.io import Op, Read, read, read_each
from synapse_graph.errors import InvalidTimeError
from synapse_graph.instants import Instant, from_datetime, optional, to_datetime
from synapse_graph.models import Fact
from synapse_graph.models.changes import Change, Changes, Diff
from synapse_graph.rules import changes as rules
from synapse_graph.rules.numbers import count
from synapse_graph.rules.periods import check_period
from synapse_graph.rules.predicates import check_predicate

DEFAULT_PAGE = 100
MAX_PAGE = 1_000
MARGIN = 1.25
"""Events judged per change a page still has room for: the events a change took so far (at first one), times
this. A page of an agent's upserts (~1.1 events a change) is judged in one round, without judging many events
past it (judging 4x the room, in one round, was measured slower than judging the room in five: 1M writes,
FalkorDB embedded, first page p50 148 ms against 73 ms). Not for a page's first round without a filter: it takes
one event past the room (whether the page is the last, and where the next begins), as stored verdicts say which
events are changes (each of those one, without a filter): the events past the page are not read, shipped and made
changes (1M writes, FalkorDB: a first page of 100 read ~150 records, now ~120). Events judged when read that are
no change leave room for a next round, which has the margin."""
ENTRY_EVENTS = 2.0
"""Events to be judged an audit entry is guessed to name until a page has read some: the entries a page reads
are the ones its events need (a page of 100 changes of an agent's upserts reads ~40 entries, not 101: 30 ms
against 65 on Neo4j at 100k writes, 7 against 10 on FalkorDB). Entries that store their verdicts say how many
they name: change_entries ships only the ones a page's events need, so this guess only bounds the entries it
looks at (a guess of 4 read too few of upserts of two facts and needed a second round trip)."""
MAX_OVERREAD = 4
"""At most this many events are judged per change a page has room for (entries that name little a reader
learns, a filter that leaves most out)."""


@dataclass(frozen=True)
class ChangeQuery:
    """A checked question about what changed (see ``Memory.changes``)."""

    since: int
    until: int | None
    entity: Name | None
    predicate: str | None
    limit: int
    after: tuple[int, str, int] | None
    """(entry instant, entry id, event offset) to go on from; None: the first page."""


class _Entry(NamedTuple):
    """An audit entry as a page reads it (``change_entries``): what its changes show, and its detail if it stores
    no verdicts (its events are judged from it)."""

    id: str
    at: datetime
    action: str
    client: str | None
    source: str | None
    model: str | None
    session: str | None
    detail: dict[str, Any]


class _Pending(NamedTuple):
    """An event a page took, with its entry (a tuple: a page takes ~120)."""

    entry: _Entry
    at: int
    """The entry's instant."""
    offset: int
    event: rules.Event
    verdict: rules.Stored | None = None
    """What the entry stored of the event (rules/changes.py verdicts); None: judged when read."""
    shown: _Found | None = None
    """What the entry stored of the records its verdicts name, as its write left them (engine/writes.py
    verdict_values); None: they are read (with the entries, or by id)."""


class _Found:
    """Fact records read by id (the ones stored verdicts name), or an entry's stored values of them, each made a
    :class:`Fact` as read (all of a read in one validation: a page uses nearly every record it reads)."""

    def __init__(self) -> None:
        self.values: dict[str, tuple[Fact, tuple[str, str]]] = {}

    def add(self, found: list[list[Any]]) -> None:
        self.values.update((made[0].id, made) for made in rows.facts_of_values(found))

    def get(self, record: str) -> tuple[Fact, tuple[str, str]] | None:
        return self.values.get(record)


@dataclass
class _Reading:
    """Where a page is in the audit log: the entries read from the cursor on (parsed as their events are taken),
    the records their stored verdicts name read with them, the cursor, and whether the log has been read to its
    end."""

    after: tuple[int, str, int] | None
    rows: list[Any] = field(default_factory=list)
    next_row: int = 0
    last: bool = False
    """No entry follows the rows read."""
    entries: int = 0
    events: int = 0
    """The entries taken whole so far, and the events taken of them."""
    done: bool = False
    """Every event up to the end of the log was taken."""
    found: _Found = field(default_factory=_Found)
    shown: dict[str, _Found] = field(default_factory=dict)
    """The stored values of the records of the entries read, by entry id (:func:`_shown`)."""


def changes(ctx: Context, ask: ChangeQuery) -> Op[Changes]:
    """A page of what changed from ``since`` up to ``until``, oldest first (an unknown or purged entity: none)."""
    page = Changes(since=to_datetime(ask.since), until=None if ask.until is None else to_datetime(ask.until))
    keys: list[str] | None = None
    if ask.entity is not None:
        found = yield from reads.entity(ctx, ask.entity)
        if found is None:
            return page
        keys = [found.key, *(inputs.name(ctx, alias, "alias").key for alias in found.aliases)]
    shown: list[_Made] = []
    reading = _Reading(ask.after)
    events, made = 0, 0
    while len(shown) < ask.limit and not reading.done:
        room = ask.limit - len(shown)
        per_change = events / made if made else (1.0 if not events else MAX_OVERREAD)
        wanted = room + 1 if not events and keys is None and ask.predicate is None else min(
            math.ceil(room * per_change * MARGIN), room * MAX_OVERREAD)
        taken = yield from _events(ctx, ask, keys, reading, wanted)
        judged = yield from _judged(ctx, taken, reading.found, keys, ask.predicate)
        events, made = events + len(taken), made + len(judged)
        if len(judged) > room:
            # past the room-th change, the page goes on from the event after it
            cut = judged[room - 1][0]
            reading.after, reading.done = (cut.at, cut.entry.id, cut.offset + 1), False
            judged = judged[:room]
        shown += [change for _, change in judged]
    after = None if reading.done else reading.after
    return page.model_copy(update={"changes": CHANGES.validate_python(shown),
                                   "next": None if after is None else rules.cursor(*after)})


_Made = dict[str, Any]
"""A change's fields (:func:`_made`): a page's changes are made in one validation (:data:`CHANGES`)."""
CHANGES = TypeAdapter(list[Change])
"""A page's changes made of their fields at once: a third cheaper than one :class:`Change` at a time (~100 a
page)."""


def _events(ctx: Context, ask: ChangeQuery, keys: list[str] | None, reading: _Reading, room: int
            ) -> Op[list[_Pending]]:
    """The next ``room`` events from the cursor on (fewer at the end of the log), reading entries as needed."""
    taken: list[_Pending] = []
    while len(taken) < room and not reading.done:
        if reading.next_row < len(reading.rows):
            taken += _take(reading, room - len(taken))
        elif reading.last:
            reading.done = True
        else:
            after = reading.after
            per_entry = reading.events / reading.entries if reading.entries else ENTRY_EVENTS
            wanted = min(ask.limit, math.ceil((room - len(taken)) / max(per_entry, 0.01) * MARGIN))
            found = yield from read(Q.CHANGE_ENTRIES, {
                "scope": ctx.scope, "since": Instant(ask.since), "until": optional(ask.until), "keys": keys,
                "after_at": None if after is None else Instant(after[0]),
                "after_id": None if after is None else after[1],
                "limit": wanted + 1,  # one past the cursor's own entry, which is read again to go on inside it
                "skip": 0 if after is None else after[2], "events": room - len(taken),
                "shown": SHOWN})
            reading.rows, read_all = found[0]["entries"], found[0]["read"]
            reading.found.add(found[0]["records"])
            reading.shown = _shown(reading.rows)
            reading.next_row, reading.last = 0, read_all <= wanted and len(reading.rows) == read_all
    return taken


SHOWN = [rules.VERDICT_ADDED, rules.VERDICT_ENDED, rules.VERDICT_FEEDBACK]
"""The stored verdicts of a change, whose records a page reads (the others show none)."""


def _shown(entries: list[list[Any]]) -> dict[str, _Found]:
    """The records each entry of ``change_entries`` gives the values of (its last value: a JSON list of
    fragments/fact_values' lists, or null), by entry id; those of a page made in one validation."""
    given = [(row[0], json.loads(row[-1])) for row in entries if row[-1] is not None]
    made = rows.facts_of_values([values for _, listed in given for values in listed])
    shown: dict[str, _Found] = {}
    start = 0
    for entry_id, listed in given:
        found = shown[entry_id] = _Found()
        found.values = {fact.id: (fact, ends) for fact, ends in made[start:start + len(listed)]}
        start += len(listed)
    return shown


def _entry(row: list[Any]) -> tuple[_Entry, int, list[tuple[rules.Event, rules.Stored | None]]]:
    """An entry of ``change_entries``, its instant and its events, each with its stored verdict (None: judged)."""
    entry_id, at, action, client, source, model, session, detail, *verdicts, _ = row  # as change_entries lists them
    entry = _Entry(entry_id, to_datetime(at), action, client, source, model, session,
                   {} if detail is None else json.loads(detail))
    if verdicts[0] is not None:
        return entry, at, rules.stored_events(dict(zip(VERDICT_COLUMNS, verdicts, strict=True)))
    return entry, at, [(event, None) for event in rules.events(entry.action, entry.detail)]


VERDICT_COLUMNS = ("verdicts", "verdict_records", "verdict_before", "verdict_by", "verdict_why")
"""The stored verdicts of an entry of ``change_entries``, in order after its detail (then its records' values)."""


def _take(reading: _Reading, room: int) -> list[_Pending]:
    """The next ``room`` events of the entries read, moving the cursor past them."""
    taken: list[_Pending] = []
    after = reading.after
    for row in reading.rows[reading.next_row:]:
        entry, at, listed = _entry(row)
        shown = reading.shown.get(entry.id)
        start = after[2] if after is not None and (after[0], after[1]) == (at, entry.id) else 0
        began = len(taken)
        seen: set[rules.Event] = set()
        for offset, (event, verdict) in enumerate(listed):
            # An entry names a record once per side it touches (a fact from an entity to itself, moved by a
            # merge, twice): its first mention is the change, wherever a page cut falls. An event that is no
            # change whatever its records say (or that its write stored as none) is not taken.
            first = event not in seen
            seen.add(event)
            if offset < start:
                continue
            if len(taken) == room:
                reading.after = (at, entry.id, offset)
                return taken
            if (first and rules.may_change(entry.action, event)
                    and (verdict is None or verdict.code != rules.VERDICT_NONE)):
                taken.append(_Pending(entry, at, offset, event, verdict, None if verdict is None else shown))
        after = reading.after = (at, entry.id, len(listed))
        reading.next_row, reading.entries, reading.events = (reading.next_row + 1, reading.entries + 1,
                                                             reading.events + len(taken) - began)
    return taken


def _judged(ctx: Context, taken: list[_Pending], found: _Found, keys: list[str] | None, predicate: str | None
            ) -> Op[list[tuple[_Pending, _Made]]]:
    """The changes the taken events are, each with its event, in their order; filtered by entity keys and
    predicate. An event with a stored verdict is read as its record alone (read with the entries, or else by id
    here); if that record is gone or not the one its verdict was stored for, the event is judged (one more round
    trip). The other events are judged over their records, read here in one round trip."""
    asked = _asked(taken, [p.verdict is None for p in taken])
    stored = sorted({i for p in taken if p.verdict is not None and p.verdict.code in SHOWN and p.shown is None
                     for i in (p.event.ref, *p.verdict.names()) if i not in found.values})
    noted = sorted({p.event.ref for p in taken if p.event.kind in ("observed", "forgotten")})
    merged = sorted({k for p in taken if p.event.kind == "merged" for k in p.event.ref.split("\n")})
    changed, by_id, observed, named = yield from read_each(
        Read(Q.CHANGED_RECORDS, {"scope": ctx.scope, "asked": asked}) if asked else None,
        Read(Q.RECORDS_BY_ID, {"scope": ctx.scope, "ids": stored}) if stored else None,
        Read(Q.CHANGED_OBSERVATIONS, {"scope": ctx.scope, "ids": noted}) if noted else None,
        Read(Q.NAMES_OF_KEYS, {"scope": ctx.scope, "keys": merged}) if merged else None)
    records = _records(changed) if asked else {}
    if stored:
        found.add(by_id[0]["records"] if by_id else [])
    observations = {row["observation"]["id"]: row["observation"] for row in observed}
    names = {row["key"]: row["name"] for row in named}
    stale = [p.verdict is not None and p.verdict.code in SHOWN and not _stands(p, p.shown or found) for p in taken]
    if any(stale):
        records.update(_records((yield from read(Q.CHANGED_RECORDS, {"scope": ctx.scope,
                                                                     "asked": _asked(taken, stale)}))))
    made = [(p, _stored(p, p.shown or found, keys, predicate) if p.verdict is not None and not gone
             else _change(p, records.get(i), observations, names, keys, predicate))
            for i, (p, gone) in enumerate(zip(taken, stale, strict=True))]
    return [(pending, change) for pending, change in made if change is not None]


def _asked(taken: list[_Pending], judged: list[bool]) -> list[dict[str, Any]]:
    """``changed_records``'s input: the taken events to be judged that name a fact record, by their place."""
    return [{"id": p.event.ref, "at": Instant(p.at), "i": i, "updated": p.event.kind == "updated"}
            for i, (p, judge) in enumerate(zip(taken, judged, strict=True))
            if judge and p.event.kind in ("fact", "updated")]


def _stands(pending: _Pending, found: _Found) -> bool:
    """True if an event's stored verdict of a change holds: its record and those its verdict names are there, and
    the record was recorded (added, ended) by the write (not a record of another scope)."""
    record, stored = found.get(pending.event.ref), pending.verdict
    if record is None or stored is None or any(i not in found.values for i in stored.names()):
        return False
    return stored.code not in (rules.VERDICT_ADDED, rules.VERDICT_ENDED) or record[0].recorded_at == pending.entry.at


def _stored(pending: _Pending, found: _Found, keys: list[str] | None, predicate: str | None) -> _Made | None:
    """The change an event's stored verdict says, as :func:`_change` judges it."""
    record, entry, stored = found.get(pending.event.ref), pending.entry, pending.verdict
    assert record is not None and stored is not None
    fact, ends = record
    if (keys is not None and not set(ends) & set(keys)) or (predicate is not None and fact.predicate != predicate):
        return None
    if stored.code == rules.VERDICT_FEEDBACK:
        return _made(entry, "feedback", fact=fact, why=entry.action.split(":", 1)[1])
    if stored.code == rules.VERDICT_ENDED:
        return _made(entry, "ended", fact=fact, before=[_fact(found, i) for i in stored.before],
                     why=stored.why or None, superseded_by=_fact(found, stored.by) if stored.by else None)
    return _made(entry, "added", fact=fact)


def _fact(found: _Found, record: str) -> Fact:
    made = found.get(record)
    assert made is not None
    return made[0]


@dataclass(frozen=True)
class _Record:
    """A record an event names, as found: the fact, its entities' keys and its mates (rules/changes.py)."""

    fact: Fact
    ends: tuple[str, str]
    mates: list[Fact]


def _records(found: list[Any]) -> dict[int, _Record]:
    """The records of ``changed_records``'s one row, by their place among the events taken; each record is read
    once, however many events it is a mate of."""
    if not found:
        return {}
    facts = {made[0].id: made for made in rows.facts_of_values(found[0]["records"])}
    return {i: _Record(*facts[record], [facts[m][0] for m in dict.fromkeys(mates)])
            for i, record, mates in found[0]["judged"]}


def _change(pending: _Pending, row: _Record | None, observations: Mapping[str, Any],
            names: Mapping[str, str | None], keys: list[str] | None, predicate: str | None) -> _Made | None:
    entry, event = pending.entry, pending.event
    if event.kind == "purged":
        return None if keys is not None or predicate is not None else _made(entry, "purged")
    if event.kind == "merged":
        source, into = event.ref.split("\n")
        if predicate is not None or (keys is not None and not {source, into} & set(keys)):
            return None
        return _made(entry, "merged", entities=[names.get(source) or source, names.get(into) or into])
    if event.kind in ("observed", "forgotten"):
        found = observations.get(event.ref)
        if found is None or predicate is not None or (keys is not None and found["entity_key"] not in keys):
            return None
        noted = rows.observation(found)
        at = noted.recorded_at if event.kind == "observed" else noted.expired_at
        return _made(entry, event.kind, observation=noted) if at == entry.at else None
    if row is None:
        return None
    fact, ends = row.fact, row.ends
    if (keys is not None and not set(ends) & set(keys)) or (predicate is not None and fact.predicate != predicate):
        return None
    if event.kind == "updated":
        verdict = entry.action.split(":", 1)[1] if entry.action.startswith("feedback:") else None
        return None if verdict is None else _made(entry, "feedback", fact=fact, why=verdict)
    judged = rules.judge(entry.at, entry.action, fact, row.mates, rules.rejection_reason(entry.detail, fact, ends))
    if judged is None:
        return None
    return _made(entry, judged.kind, fact=fact, before=list(judged.before), why=judged.why,
                 superseded_by=judged.superseded_by)


def _made(entry: _Entry, kind: str, **more: Any) -> _Made:
    """The fields of a change of the write an entry logs, with its time, action and provenance; its facts as the
    write left them: one a later write withdrew shows no ``expired_at`` (as the entry's stored values show it;
    a record read now would have one)."""
    at = entry.at
    for name in ("fact", "superseded_by"):
        fact = more.get(name)
        if fact is not None and fact.expired_at is not None and fact.expired_at > at:
            more[name] = fact.model_copy(update={"expired_at": None})
    before = more.get("before")
    if before and any(b.expired_at is not None and b.expired_at > at for b in before):
        more["before"] = [b.model_copy(update={"expired_at": None})
                          if b.expired_at is not None and b.expired_at > at else b for b in before]
    return {"at": at, "kind": kind, "action": entry.action, "client": entry.client, "source": entry.source,
            "model": entry.model, "session": entry.session, **more}


# -- diff ----------------------------------------------------------------------------------------------------


def diff(ctx: Context, a: int, b: int, entity: Name | None, known_at: int | None, limit: int) -> Op[Diff]:
    """Facts that began or ended after ``a``, up to and including ``b``, as believed at ``known_at``."""
    result = Diff(a=to_datetime(a), b=to_datetime(b), known_at=None if known_at is None else to_datetime(known_at))
    params: dict[str, Any] = {"scope": ctx.scope, "from": Instant(a), "to": Instant(b), "known_at": optional(known_at),
                              "statuses": ["believed"], "candidate": "candidate", "limit": limit}
    if entity is not None:
        keys = yield from reads.lookup(ctx, [entity.key])
        if entity.key not in keys:
            return result
        found = yield from read(Q.FACTS_CHANGED_AROUND, {**params, "key": keys[entity.key]})
    else:
        found = yield from read(Q.FACTS_CHANGED_IN_SCOPE, params)
    facts: list[Fact] = [rows.fact(row["fact"], row["links"]) for row in found]
    began = sorted((f for f in facts if a < from_datetime(f.valid_at) <= b), key=_began_order)
    ended = sorted((f for f in facts if f.invalid_at is not None and a < from_datetime(f.invalid_at) <= b),
                   key=_ended_order)
    return result.model_copy(update={"began": began, "ended": ended})


def _began_order(fact: Fact) -> tuple[Any, ...]:
    return fact.valid_at, fact.subject, fact.predicate, fact.object, fact.id


def _ended_order(fact: Fact) -> tuple[Any, ...]:
    return fact.invalid_at, fact.subject, fact.predicate, fact.object, fact.id


# -- the questions as asked ----------------------------------------------------------------------------------


def ask_changes(ctx: Context, since: object, until: object, entity: object, predicate: object, limit: object,
                after: object) -> Op[Changes]:
    """``Memory.changes``'s arguments checked before anything is read."""
    if since is None:
        raise InvalidTimeError("changes needs since: the recorded time to start from, e.g. '2026-01-01' (a "
                               "session's start: Memory.sessions())")
    start, end = inputs.time(since, "since"), inputs.time(until, "until")  # type: ignore[arg-type]
    assert start is not None
    if end is not None:
        check_period(start, end, "(since, until)")
    ask = ChangeQuery(since=start, until=end,
                      entity=None if entity is None else inputs.name(ctx, entity, "entity"),
                      predicate=None if predicate is None else check_predicate(predicate),
                      limit=count(limit, field="limit", minimum=1, maximum=MAX_PAGE),
                      after=None if after is None else rules.read_cursor(after))
    return changes(ctx, ask)


def ask_diff(ctx: Context, a: object, b: object, entity: object, known_at: object, limit: object) -> Op[Diff]:
    """``Memory.diff``'s arguments checked before anything is read."""
    if a is None or b is None:
        raise InvalidTimeError("diff needs two valid times, a and b, e.g. diff('2020-01-01', '2021-01-01')")
    start, end = inputs.time(a, "a"), inputs.time(b, "b")  # type: ignore[arg-type]
    assert start is not None and end is not None
    if end < start:
        raise InvalidTimeError(f"diff's a must not come after b: {to_datetime(start).isoformat()} is after "
                               f"{to_datetime(end).isoformat()}; swap them")
    return diff(ctx, start, end, None if entity is None else inputs.name(ctx, entity, "entity"),
                inputs.time(known_at, "known_at"), inputs.limit(limit, 100_000))  # type: ignore[arg-type]
