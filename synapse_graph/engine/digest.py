"""The digest: what an agent should just know at the start of a session, in a few lines."""

from __future__ import annotations

from synapse_graph.catalogue import Q
from synapse_graph.engine import rows
from synapse_graph.engine.context import Context
from synapse_graph.engine.io import Op, Read
from synapse_graph.instants import Instant, to_datetime
from synapse_graph.models import Digest, Fact
from synapse_graph.rules.text import USER_NAME, name_key
from synapse_graph.rules.timeparse import now_micros

CENTRAL_ENTITIES = 5
"""How many of the scope's most connected entities the digest speaks of."""


def digest(ctx: Context, limit: int, as_of: Instant | None) -> Op[Digest]:
    """Pinned facts, then the user's, then the most connected entities' (believed, valid at ``as_of``), each
    once and at most ``limit`` in all."""
    now = Instant(now_micros())
    base = {"scope": ctx.scope, "as_of": as_of, "now": now, "history": False, "known_at": None,
            "statuses": ["believed"]}
    seen: set[str] = set()

    def fresh(found: list[dict[str, object]], room: int) -> list[Fact]:
        facts = [rows.fact(row["fact"]) for row in found]  # type: ignore[arg-type]
        kept = [f for f in facts if f.id not in seen][:room]
        seen.update(f.id for f in kept)
        return kept

    pinned = fresh((yield Read(Q.PINNED_FACTS, {**base, "limit": limit})), limit)
    user_key = name_key(USER_NAME)
    about_user = fresh((yield Read(Q.FACTS_AROUND, {**base, "keys": [user_key], "limit": limit})),
                       limit - len(pinned))
    room = limit - len(pinned) - len(about_user)
    central = (yield Read(Q.MOST_CONNECTED, {**base, "except": [user_key], "limit": CENTRAL_ENTITIES})) \
        if room > 0 else []
    about = fresh((yield Read(Q.FACTS_AROUND, {**base, "keys": [r["key"] for r in central],
                                               "limit": room + len(seen)})), room) if central else []
    return Digest(scope=ctx.scope, as_of=to_datetime(now if as_of is None else as_of), pinned=pinned,
                  about_user=about_user, entities=[r["name"] for r in central], about_entities=about)
