"""Trust qualifiers: the short warnings a model should see beside a fact before asserting it.

A fact recalled or listed may be old, disputed, unreviewed, weakly held or no longer valid;
saying so lets an agent hedge ("as of last year...") instead of stating a stale fact. Pure.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from synapse_graph.models import Fact

STALE_AFTER = timedelta(days=180)
"""A fact neither recorded nor confirmed for this long may be outdated."""
LOW_CONFIDENCE = 0.5


def age_text(delta: timedelta) -> str:
    """``3 days``, ``8 months``, ``2 years``: how long ago, roughly."""
    days = delta.days
    for size, unit in ((365, "year"), (30, "month"), (7, "week"), (1, "day")):
        if days >= size:
            count = days // size
            return f"{count} {unit}{'' if count == 1 else 's'}"
    return "less than a day"


def qualifiers(fact: Fact, now: datetime, stale_after: timedelta = STALE_AFTER) -> list[str]:
    """The warnings that apply to ``fact`` at ``now`` (empty for a fresh, believed, valid, confident fact)."""
    found: list[str] = []
    if fact.status == "disputed":
        found.append("disputed: feedback said it is stale or wrong")
    elif fact.status == "candidate":
        found.append("candidate: recorded but not reviewed" + (f" ({fact.flag})" if fact.flag else ""))
    if fact.invalid_at is not None and fact.invalid_at <= now:
        found.append(f"no longer valid since {fact.invalid_at.date().isoformat()}")
    last = max(fact.recorded_at, fact.confirmed_at or fact.recorded_at)
    if now - last >= stale_after:
        said = "last confirmed" if fact.confirmed_at is not None and fact.confirmed_at > fact.recorded_at else "stored"
        found.append(f"{said} {age_text(now - last)} ago — may be outdated")
    if fact.confidence < LOW_CONFIDENCE:
        found.append(f"low confidence ({fact.confidence:.2f})")
    return found
