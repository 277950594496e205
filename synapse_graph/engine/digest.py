"""The digest: what an agent should just know at the start of a session, in a few lines."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from synapse_graph.catalogue import Q
from synapse_graph.engine import rows
from synapse_graph.engine.context import Context
from synapse_graph.engine.io import Op, read
from synapse_graph.instants import Instant, to_datetime
from synapse_graph.models import Digest, Fact
from synapse_graph.rules.text import USER_NAME, name_key
from synapse_graph.rules.timeparse import now_micros

CENTRAL_ENTITIES = 5
"""How many of the scope's most connected entities the digest speaks of."""
CANDIDATES = 8 * CENTRAL_ENTITIES
"""How many entities with the most fact records the digest counts the valid facts of, before it would count
every entity's (see :func:`central_entities`)."""


def digest(ctx: Context, limit: int, as_of: Instant | None) -> Op[Digest]:
    """Pinned facts, then the user's, then the most connected entities' (believed, valid at ``as_of``), each
    once and at most ``limit`` in all."""
    now = Instant(now_micros())
    base = {"scope": ctx.scope, "as_of": as_of, "now": now, "history": False, "known_at": None,
            "statuses": ["believed"]}
    with_links = {**base, "candidate": "candidate"}  # the facts' reads say what replaced what (fragments/links)
    seen: set[str] = set()

    def fresh(found: list[dict[str, object]], room: int) -> list[Fact]:
        facts = [rows.fact(row["fact"], row["links"]) for row in found]  # type: ignore[arg-type]
        kept = [f for f in facts if f.id not in seen][:room]
        seen.update(f.id for f in kept)
        return kept

    pinned = fresh((yield from read(Q.PINNED_FACTS, {**with_links, "limit": limit})), limit)
    user_key = name_key(USER_NAME)
    about_user = fresh((yield from read(Q.FACTS_AROUND, {**with_links, "keys": [user_key], "limit": limit})),
                       limit - len(pinned))
    room = limit - len(pinned) - len(about_user)
    central = (yield from central_entities(base, [user_key])) if room > 0 else []
    about = fresh((yield from read(Q.FACTS_AROUND, {**with_links, "keys": [r["key"] for r in central],
                                                     "limit": room + len(seen)})), room) if central else []
    return Digest(scope=ctx.scope, as_of=to_datetime(now if as_of is None else as_of), pinned=pinned,
                  about_user=about_user, entities=[r["name"] for r in central], about_entities=about)


def central_entities(base: Mapping[str, Any], except_keys: list[str]) -> Op[list[dict[str, Any]]]:
    """The ``CENTRAL_ENTITIES`` entities with the most facts valid at ``as_of`` (ties by key), as
    ``Q.MOST_CONNECTED`` finds them by reading every fact of the scope, but reading only the facts of the
    entities with the most records (the count each entity keeps: writes.record_counts), the busiest first, until
    that proves the answer: no other entity has more records, so none has more valid facts, than the last one kept
    has valid facts. Past ``CANDIDATES`` entities (a scope whose busiest entities' facts are mostly history) it
    reads every fact, as it does when no entity has a count (nothing to rank)."""
    ranked = yield from busiest(base["scope"], except_keys, CANDIDATES + 1)
    counted: list[dict[str, Any]] = []  # entities with valid facts (those with none are not returned)
    done = 0
    for cut in cuts():
        keys = [r["key"] for r in ranked[done:cut]]
        done = cut
        if keys:
            counted += yield from read(Q.CONNECTIONS_OF, {**base, "keys": keys})
        central = sorted((r for r in counted if r["degree"] > 0),
                         key=lambda r: (-r["degree"], r["key"]))[:CENTRAL_ENTITIES]
        outside = ranked[cut]["records"] if len(ranked) > cut else 0
        if (ranked and outside == 0) or (len(central) == CENTRAL_ENTITIES and central[-1]["degree"] > outside):
            return central
    found: list[dict[str, Any]] = yield from read(Q.MOST_CONNECTED, {**base, "except": except_keys,
                                                                "limit": CENTRAL_ENTITIES})
    return found


def cuts() -> list[int]:
    """How many of the busiest entities :func:`central_entities` has counted at each proof it tries: the
    ``CENTRAL_ENTITIES`` busiest, then one more at a time up to twice as many (each busy entity counted walks all
    its records, tens of thousands for the busiest of a 1M-fact scope, so one more read costs less than one more
    entity counted for nothing), then up to ``CANDIDATES``."""
    return sorted({*range(min(CENTRAL_ENTITIES, CANDIDATES), min(2 * CENTRAL_ENTITIES, CANDIDATES) + 1),
                   CANDIDATES})


FLOORS = (4096, 512, 64, 8, 1)
"""The counts of records from which :func:`busiest` seeks the busiest entities, the highest first: each seek reads
only the entities with at least that many records (an index range), so the scope's long tail is read only if its
busiest entities are fewer than asked for."""


def busiest(scope: str, except_keys: list[str], limit: int) -> Op[list[dict[str, Any]]]:
    """The ``limit`` entities of the scope with the most fact records (the count each entity keeps, any time or
    state), the most first, ties by key; those with no record are left out."""
    ranked: list[dict[str, Any]] = []
    for floor in FLOORS:
        ranked = yield from read(Q.MOST_RECORDS, {"scope": scope, "except": except_keys, "floor": floor,
                                                  "limit": limit})
        if len(ranked) >= limit:
            break
    return ranked
