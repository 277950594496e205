"""Sharing a read's limit among the neighbours it reads from (hop 2 of a neighbourhood)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence

MARGIN = 1.25
"""Hop 2 asks for this much more than it needs: a neighbour's count includes its past facts, which
the read skips, and the margin keeps a second read rare."""


def level(capacities: Iterable[int], wanted: int) -> int:
    """The smallest per-neighbour cap ``c`` (at least 1) with ``sum(min(capacity, c)) >= wanted``;
    when the capacities hold fewer than ``wanted`` in all, the largest capacity (everything)."""
    caps = sorted(max(0, c) for c in capacities)
    remaining, left = wanted, len(caps)
    for cap in caps:
        if cap * left >= remaining:  # every neighbour from here on gives c = ceil(remaining / left)
            return max(1, -(-remaining // left))
        remaining -= cap
        left -= 1
    return max([1, *caps])


def fair_cut(vias: Sequence[Sequence[str]], wanted: int) -> list[int]:
    """Which of the items (in order of preference, each with the neighbours it came from) to keep:
    ``wanted`` (or all), each neighbour giving at most the :func:`level` of what they gave, so a
    neighbour that gave many does not crowd out those that gave few."""
    given = Counter(key for found in vias for key in set(found))
    cap = level(given.values(), wanted)
    used: Counter[str] = Counter()
    kept: list[int] = []
    for index, found in enumerate(vias):
        if len(kept) == wanted:
            break
        room = [key for key in found if used[key] < cap]
        if room:
            used[min(room, key=lambda key: used[key])] += 1
            kept.append(index)
    if len(kept) < wanted:  # items two neighbours gave were counted twice: fill with the next ones
        chosen = set(kept)
        kept = sorted(kept + [i for i in range(len(vias)) if i not in chosen][:wanted - len(kept)])
    return kept
