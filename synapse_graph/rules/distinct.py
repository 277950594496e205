"""A read never returns the same fact twice: records of one fact whose intervals meet are read as one.

Within the current belief the store never holds two records of one fact whose validity
intervals overlap or touch (writes unite them). A past belief (``known_at``) can: an alias merge
keeps the merged-away entity's records as history under the entity they joined, beside that
entity's own, and three names merged in turn can leave three such records. A read of a past
belief passes its facts through :func:`distinct_facts`.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from synapse_graph.models import Fact


def meet(a: Fact, b: Fact) -> bool:
    """True if the validity intervals of two facts overlap or touch (half-open, ``None`` = still holds)."""
    return (a.invalid_at is None or b.valid_at <= a.invalid_at) and (b.invalid_at is None or a.valid_at <= b.invalid_at)


def distinct_facts[F: Fact](facts: Iterable[F]) -> list[F]:
    """The facts with every group of records of one fact whose intervals meet united into one.

    The first record of a group, in the order given, stands for it (its id, belief time and any
    fields of its own, e.g. a recalled fact's relevance) and keeps its place; its validity becomes
    the union of the group's intervals and its confidence the highest. Groups are closed under
    meeting: a record that bridges two united records joins them into one.
    """
    kept: list[F | None] = []
    groups: dict[tuple[str, str, str], list[int]] = {}  # places in `kept` of each fact's united records
    for fact in facts:
        places = groups.setdefault((fact.subject, fact.predicate, fact.object), [])
        joined = [i for i in places if meet(_at(kept, i), fact)]
        if not joined:
            places.append(len(kept))
            kept.append(fact)
            continue
        # Everything joined meets `fact`, so their union has no gap: no other record of the fact meets it.
        first, united = joined[0], _at(kept, joined[0])
        for i in joined[1:]:
            united = _union(united, _at(kept, i))
            kept[i] = None
            places.remove(i)
        kept[first] = _union(united, fact)
    return [fact for fact in kept if fact is not None]


def _at[F: Fact](kept: list[F | None], place: int) -> F:
    fact = kept[place]
    assert fact is not None  # places only name records still kept
    return fact


def _union[F: Fact](survivor: F, other: Fact) -> F:
    ends: list[datetime | None] = [survivor.invalid_at, other.invalid_at]
    return survivor.model_copy(update={
        "valid_at": min(survivor.valid_at, other.valid_at),
        "invalid_at": None if ends[0] is None or ends[1] is None else max(ends[0], ends[1]),
        "confidence": max(survivor.confidence, other.confidence),
    })


def past_belief_once[F: Fact](facts: list[F], known_at: object | None) -> list[F]:
    """Facts as read, with a past belief's records of one fact whose intervals meet united into one.

    Within the current belief writes keep them united; a past belief (``known_at``) can hold a merged
    entity's records beside its target's. The earliest recorded stands for its group, at the place of
    the first record of the group as read.
    """
    if known_at is None:
        return facts
    united = distinct_facts(sorted(facts, key=lambda f: (f.recorded_at, f.id)))
    by_fact: dict[tuple[str, str, str], list[F]] = {}
    for fact in united:
        by_fact.setdefault((fact.subject, fact.predicate, fact.object), []).append(fact)
    first_place: dict[str, int] = {}
    for place, fact in enumerate(facts):
        # A record's group is the united fact of the same triple whose interval contains it.
        group = next((u.id for u in by_fact[(fact.subject, fact.predicate, fact.object)] if meet(u, fact)), fact.id)
        first_place.setdefault(group, place)
    return sorted(united, key=lambda f: first_place.get(f.id, len(facts)))
