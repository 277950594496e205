"""Reads of facts and entities: what holds at a time, as believed at a time, around an entity.

Reads run without the scope's lock, each as one statement (or two, when a name turns out to
be an alias). "Now" in a read is never earlier than the scope's last write (the statements
take it from the scope: ``{{read_clock}}``), so a read sees every write that returned.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from synapse_graph.catalogue import Q
from synapse_graph.engine import rows
from synapse_graph.engine.context import Context
from synapse_graph.engine.inputs import Name
from synapse_graph.engine.io import Op, read
from synapse_graph.engine.migrations import COUNTED_FORMAT, GROWTH_FORMAT
from synapse_graph.errors import InvalidInputError
from synapse_graph.growth import Growth, GrowthPoint
from synapse_graph.instants import Instant, from_datetime, to_datetime
from synapse_graph.models import Entity, EntityPage, Fact, Stats
from synapse_graph.rules import growth as growth_rules
from synapse_graph.rules.cursors import read_entity_cursor
from synapse_graph.rules.distinct import past_belief_once
from synapse_graph.rules.grams import query_grams
from synapse_graph.rules.numbers import count
from synapse_graph.rules.periods import Window
from synapse_graph.rules.shares import MARGIN, fair_cut, level
from synapse_graph.rules.slots import fact_slot, object_slot, predicate_slot
from synapse_graph.rules.timeparse import now_micros


@dataclass(frozen=True)
class FactQuery:
    """A checked question about facts (names cleaned, times as instants)."""

    subject: Name | None = None
    predicate: str | None = None
    object: Name | None = None
    as_of: Instant | None = None
    """None: now."""
    known_at: Instant | None = None
    """None: the current belief."""
    history: bool = False
    statuses: tuple[str, ...] = ("believed",)
    limit: int = 100_000
    window: Window | None = None
    """A period the facts held during or throughout (rules/periods.py), instead of ``as_of``."""


def lookup(ctx: Context, keys: Iterable[str]) -> Op[dict[str, str]]:
    """Canonical entity keys of name keys that exist (aliases resolved); unknown keys are left out."""
    keys = sorted(set(keys))
    if not keys:
        return {}
    [row] = yield from read(Q.RESOLVE_KEYS, {"scope": ctx.scope, "keys": keys})
    return {**{key: key for key in row["entities"]}, **{a["key"]: a["target"] for a in row["aliases"]}}


def _params(ctx: Context, ask: FactQuery) -> dict[str, Any]:
    window = ask.window
    if window is not None and ask.known_at is not None:
        # A past belief can hold records of one fact that meet (see rules/distinct.py): read those valid at some
        # moment of the period, and keep what their union holds (_distinct), so a fact valid throughout the
        # period in two records is found.
        window = Window(max(window.starts_by, window.ends_after), min(window.starts_by, window.ends_after))
    return {"scope": ctx.scope, "as_of": ask.as_of, "history": ask.history,
            "now": Instant(now_micros()), "known_at": ask.known_at, "statuses": list(ask.statuses),
            "limit": ask.limit, "starts_by": None if window is None else Instant(window.starts_by),
            "ends_after": None if window is None else Instant(window.ends_after), "candidate": "candidate"}


def facts(ctx: Context, ask: FactQuery) -> Op[list[Fact]]:
    """Facts matching the question; an unknown name gives an empty list."""
    params = _params(ctx, ask)
    named = {field: name for field, name in (("subject", ask.subject), ("object", ask.object)) if name is not None}
    guessed: Q | None = None
    if ask.predicate is not None and (ask.subject is not None or ask.object is not None):
        # One round trip when the names are not aliases (the usual case): a name's own key finds its
        # facts, and an alias's key finds none (its entity was merged away), so only an empty answer
        # for a name that is no stored entity needs the names resolved and the read repeated.
        asked = {n.key for n in named.values()}
        guessed, more = _fact_read(ctx, None if ask.subject is None else ask.subject.key, ask.predicate,
                                   None if ask.object is None else ask.object.key, ask.statuses)
        found, entities = _facts_and_entities((yield from read(guessed, {**params, **more, "names": sorted(asked)})))
        if found or entities == len(asked):
            return _distinct(found, ask)
    keys = yield from lookup(ctx, [n.key for n in named.values()])
    if any(name.key not in keys for name in named.values()):
        return []
    subject = None if ask.subject is None else keys[ask.subject.key]
    obj = None if ask.object is None else keys[ask.object.key]
    statement, more = _fact_read(ctx, subject, ask.predicate, obj, ask.statuses)
    if statement is guessed and all(keys[n.key] == n.key for n in named.values()):
        return []  # the guess above was the right read
    found = yield from read(statement, {**params, **more})
    return _distinct(_facts_and_entities(found)[0], ask)


def _fact_read(ctx: Context, subject: str | None, predicate: str | None, obj: str | None,
               statuses: Iterable[str]) -> tuple[Q, dict[str, Any]]:
    """The statement that reads facts by what is known of them (entities by stored key), and the parameters
    it takes beyond those of every read of facts (:func:`_params`)."""
    if subject is not None and predicate is not None:
        return Q.FACTS_BY_SLOT, {"subject": subject, "object": obj, "predicate": predicate, "names": [],
                                 "slot": fact_slot(ctx.scope, subject, predicate)}
    if subject is not None:
        return Q.FACTS_BY_SUBJECT, {"subject": subject, "object": obj, "predicate": predicate}
    if obj is not None and predicate is not None:
        return Q.FACTS_BY_OBJECT_SLOT, {"object": obj, "predicate": predicate, "names": [],
                                        "object_slot": object_slot(ctx.scope, obj, predicate)}
    if obj is not None:
        return Q.FACTS_BY_OBJECT, {"object": obj}
    if predicate is not None:
        return Q.FACTS_BY_PREDICATE, {"predicate": predicate, "predicate_slot": predicate_slot(ctx.scope, predicate)}
    if "believed" not in statuses:
        return Q.FACTS_IN_STATES, {}  # the few records waiting for review or disputed, through their index
    return Q.FACTS_IN_SCOPE, {}


def _facts_and_entities(found: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], int]:
    """The fact rows of a read, and (``facts_by_slot``) how many of the names it was asked by are stored entities."""
    return [row for row in found if row["fact"] is not None], sum(row.get("entities") or 0 for row in found)


def optional_micros(value: datetime | None) -> int | None:
    return None if value is None else from_datetime(value)


def _distinct(found: list[dict[str, Any]], ask: FactQuery) -> list[Fact]:
    """The facts of rows, each with what replaced it and what it replaced; a read never returns the same fact
    twice (see :mod:`~synapse_graph.rules.distinct`)."""
    united = past_belief_once([rows.fact(row["fact"], row["links"]) for row in found], ask.known_at)
    if ask.window is None or ask.known_at is None:
        return united
    return [f for f in united if ask.window.keeps(from_datetime(f.valid_at), optional_micros(f.invalid_at))]


def neighbourhood(ctx: Context, entity: Name, hops: int, as_of: Instant | None, known_at: Instant | None,
                  limit: int) -> Op[list[Fact]]:
    """Facts around an entity: its own first, then (hops=2) its neighbours', at most ``limit``.

    Each group comes oldest first. Hop 2 shares what hop 1 left among the neighbours by water-filling
    over their fact counts (:func:`~synapse_graph.rules.shares.level`): a neighbour with few facts gives
    them all, the others an equal share of the rest. So a hub next door costs its share, not its degree.
    """
    params = {"scope": ctx.scope, "as_of": as_of, "history": False, "now": Instant(now_micros()),
              "known_at": known_at, "statuses": ["believed"], "candidate": "candidate"}
    found = sorted((yield from read(Q.NEIGHBOURHOOD, {**params, "key": entity.key, "limit": limit})),
                   key=_oldest_first)
    if hops == 2 and found and len(found) < limit:
        centre = found[0]["centre"]
        links = Counter(row["neighbour"] for row in found if row["neighbour"] != centre)
        if links:
            degrees = {row["neighbour"]: int(row["degree"]) for row in found}
            others = {key: degrees[key] - links[key] for key in sorted(links)}  # facts not touching the centre
            found += (yield from _hop_two(params, centre, others, limit - len(found)))
    return past_belief_once([rows.fact(row["fact"], row["links"]) for row in found], known_at)


def _hop_two(params: dict[str, Any], centre: str, others: dict[str, int], wanted: int
             ) -> Op[list[dict[str, Any]]]:
    """At most ``wanted`` facts of the neighbours (``others``: key -> facts not touching the centre),
    oldest first. A second read runs only when the neighbours' past facts left the first one short."""
    cap = level(others.values(), math.ceil(wanted * MARGIN))
    ask = {**params, "centre": centre}
    found = yield from read(Q.NEIGHBOURHOOD_HOP2, {**ask, "neighbours": list(others), "skip": 0, "per_neighbour": cap})
    if len(found) < wanted:
        given = Counter(key for row in found for key in row["via"])
        full = [key for key in others if given[key] >= cap]
        if full:
            seen = {row["fact"]["id"] for row in found}
            more = yield from read(Q.NEIGHBOURHOOD_HOP2, {**ask, "neighbours": full, "skip": cap,
                                                     "per_neighbour": wanted - len(found)})
            found += [row for row in more if row["fact"]["id"] not in seen]
    found.sort(key=_oldest_first)
    return [found[i] for i in fair_cut([row["via"] for row in found], wanted)]


def _oldest_first(row: dict[str, Any]) -> tuple[Any, ...]:
    fact = row["fact"]
    return fact["valid_at"], fact["subject_key"], fact["predicate"], fact["object_key"], fact["id"]


def entity(ctx: Context, name: Name) -> Op[Entity | None]:
    """The entity a name or alias refers to."""
    keys = yield from lookup(ctx, [name.key])
    key = keys.get(name.key)
    if key is None:
        return None
    found = yield from read(Q.ENTITY, {"scope": ctx.scope, "key": key})
    return rows.entity(found[0]["entity"]) if found else None


MAX_PAGE = 1_000
MAX_MATCHING = 10_000
"""The longest observation: a longer text matches nothing."""


@dataclass(frozen=True)
class EntityListing:
    """A checked request for a page of entities (see ``Memory.entities``)."""

    after: tuple[int, str] | None
    """(created_at, key) of the last entity of the page before; None: the first page."""
    limit: int
    known_at: Instant | None
    matching: str | None
    """Lower-cased text to find in a name, alias, type or observation; None: every entity."""
    with_facts: bool = False
    """Read the listed entities' facts too (one more statement for the page)."""


def entities(ctx: Context, ask: EntityListing) -> Op[EntityPage]:
    """One page of the scope's entities, oldest first, read with one statement (one entity more than the
    page, to know whether another page follows)."""
    params = {"scope": ctx.scope, "known_at": ask.known_at, "limit": ask.limit + 1,
              "after_at": None if ask.after is None else Instant(ask.after[0]),
              "after_key": None if ask.after is None else ask.after[1]}
    tokens = None if ask.matching is None else query_grams(ask.matching)
    if ask.matching is None:
        found = yield from read(Q.ENTITIES_PAGE, params)
    elif tokens is None:  # shorter than a gram: scanned
        found = yield from read(Q.MATCHING_ENTITIES, {**params, "matching": ask.matching})
    else:
        found = yield from read(Q.MATCHING_ENTITIES_BY_GRAMS, {**params, "matching": ask.matching, "grams": tokens})
    shown = found[:ask.limit]
    listed = [rows.entity(row["entity"]) for row in shown]
    notes = {row["entity"]["key"]: sorted((rows.observation(o) for o in row["observations"]),
                                          key=lambda o: (o.recorded_at, o.id)) for row in shown}
    facts: dict[str, list[Fact]] | None = None
    if ask.with_facts and listed:
        every = _params(ctx, FactQuery(as_of=ask.known_at, known_at=ask.known_at))
        held = yield from read(Q.ENTITY_PAGE_FACTS, {
            **{k: v for k, v in every.items() if k not in ("candidate", "limit")},  # no links read, no limit
            "keys": [e.key for e in listed], "matching": ask.matching})
        facts = {e.key: [] for e in listed}
        for row in held:
            facts[row["key"]].append(rows.fact(row["fact"]))
        facts = {key: past_belief_once(found_facts, ask.known_at) for key, found_facts in facts.items()}
    elif ask.with_facts:
        facts = {}
    return EntityPage(entities=listed, observations=notes, facts=facts,
                      next=EntityPage.cursor_after(listed[-1]) if len(found) > ask.limit else None)


def entity_listing(after: object, limit: object, known_at: Instant | None, matching: object,
                   with_facts: bool = False) -> EntityListing:
    """The arguments of ``Memory.entities`` checked, before anything is read."""
    page = count(limit, field="limit", minimum=1, maximum=MAX_PAGE)
    if matching is not None:
        if not isinstance(matching, str):
            raise InvalidInputError(f"matching must be text to find, e.g. 'paris', got {type(matching).__name__}")
        if len(matching) > MAX_MATCHING:
            raise InvalidInputError(f"matching is limited to {MAX_MATCHING} characters, got {len(matching)}")
    return EntityListing(after=None if after is None else read_entity_cursor(after), limit=page, known_at=known_at,
                         matching=None if matching is None else matching.lower(), with_facts=bool(with_facts))


def stats(ctx: Context) -> Op[Stats]:
    """Counts of the scope: its counters and the few records they leave to read (entities/stats.cypher)."""
    params = {"scope": ctx.scope, "now": Instant(now_micros()), "as_of": None, "believed": "believed",
              "candidate": "candidate", "disputed": "disputed"}
    [row] = yield from read(Q.STATS, params)
    if row["format"] is not None and row["format"] < COUNTED_FORMAT:  # not opened for writing since: measured
        [row] = yield from read(Q.STATS_MEASURED, params)
    return Stats(scope=ctx.scope, entities=row["entities"], aliases=row["aliases"], facts=row["facts"] or 0,
                 valid_now=row["valid_now"] or 0, expired_records=row["expired_records"] or 0,
                 candidates=row["candidates"] or 0, disputed=row["disputed"] or 0,
                 observations=row["observations"] or 0)


GROWTH_KINDS = ("facts", "candidates", "entities", "observations")
MAX_GROWTH_STEPS = 1_000


def growth(ctx: Context, steps: int, since: Instant | None, until: Instant | None) -> Op[Growth]:
    """The scope's counts at ``steps`` evenly spaced instants from ``since`` (default: its first audit entry)
    to ``until`` (default: now), read in two statements whatever the number of steps."""
    [bounds] = yield from read(Q.GROWTH_BOUNDS, {"scope": ctx.scope, "now": Instant(now_micros()), "as_of": None})
    start = since if since is not None else bounds["first"]
    end = until if until is not None else bounds["now"]
    if start is None:
        return Growth(scope=ctx.scope)
    if end < start:
        raise InvalidInputError("growth: until is before since; give an until later than since")
    width = max(1, -(-(end - start) // max(1, steps - 1)))  # the last point is at or just after `until`
    instants = [start + i * width for i in range(steps)]
    if bounds["format"] is not None and bounds["format"] >= GROWTH_FORMAT:  # writes keep its counters
        found = yield from read(Q.GROWTH_SLICES, {"buckets": growth_rules.buckets(ctx.scope, instants)})
        counts = growth_rules.counts_at(ctx.scope, found, instants)
    else:  # not opened for writing since an older version wrote it: measured
        counts = yield from measured_growth(ctx, start, width, steps)
    points = [GrowthPoint(at=to_datetime(at), **held) for at, held in zip(instants, counts, strict=True)]
    return Growth(scope=ctx.scope, since=to_datetime(start), until=to_datetime(end), points=points)


def measured_growth(ctx: Context, start: int, width: int, steps: int) -> Op[list[dict[str, int]]]:
    """The scope's counts at ``steps`` points ``width`` apart from ``start``, measured from its records."""
    found = yield from read(Q.GROWTH, {"scope": ctx.scope, "since": int(start), "width": width,
                                       "candidate": "candidate"})
    # A sweep over the points: each row adds its count from point `made` on and takes it away from `gone` on.
    changes = {kind: [0] * (steps + 1) for kind in GROWTH_KINDS}
    for row in found:
        made, gone = int(row["made"]), row["gone"]
        if made < steps and (gone is None or int(gone) > made):
            changes[row["kind"]][made] += row["n"]
            changes[row["kind"]][min(steps, int(gone)) if gone is not None else steps] -= row["n"]
    totals = dict.fromkeys(GROWTH_KINDS, 0)
    counts = []
    for i in range(steps):
        for kind in GROWTH_KINDS:
            totals[kind] += changes[kind][i]
        counts.append(dict(totals))
    return counts
