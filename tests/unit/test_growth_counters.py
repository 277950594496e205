"""The growth counters (rules/growth.py): the slices a set of records leaves, read back at any instant, count
exactly the records made at or before it and not gone by it, whatever the instants (to the microsecond, across
minute, hour and day edges, before 1970)."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from hypothesis import example, given
from hypothesis import strategies as st

from synapse_graph.rules.growth import DAY, KINDS, Changes, buckets, counts_at

SCOPE = "s"
BASE = 1_790_000_000_000_000  # late 2026
spans = st.sampled_from([1, 999, 60_000_000, 3_600_000_000, DAY, 40 * DAY])
instants = st.builds(lambda base, offset: base + offset, st.sampled_from([BASE, -DAY - 7]),
                     st.integers(min_value=-3 * DAY, max_value=3 * DAY))
records = st.lists(st.tuples(st.sampled_from(KINDS), instants, st.one_of(st.none(), spans), st.booleans()),
                   max_size=30)


def stored(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The counters as the store holds them after the rows' writes (each slice's changes summed)."""
    kept: dict[str, dict[str, Any]] = defaultdict(dict)
    for row in rows:
        slot = kept[row["key"]]
        for name, value in row.items():
            slot[name] = slot.get(name, 0) + value if isinstance(value, int) and name != "start" else value
    return list(kept.values())


@given(records, st.lists(instants, min_size=1, max_size=8))
@example([("facts", BASE, None, False), ("facts", -DAY - 2, None, False)], [-DAY - 1])  # a day's last microsecond
def test_counts_at_any_instant_equal_the_records_held_then(made: list[Any], points: list[int]) -> None:
    rows: list[dict[str, Any]] = []
    held = []
    for kind, at, lasted, deleted in made:
        gone = None if lasted is None or kind == "entities" else at + lasted
        first = Changes()
        first.add(kind, at, gone)
        rows += first.rows(SCOPE)
        if deleted:  # merged away or purged: out of every point
            later = Changes()
            later.add(kind, at, gone, -1)
            rows += later.rows(SCOPE)
        else:
            held.append((kind, at, gone))
    edges = {e for _, at, gone in held for e in (at, gone) if e is not None}
    points = [*points, *(e + d for e in sorted(edges) for d in (-1, 0, 1))]  # at and around every change
    wanted = set(buckets(SCOPE, points))
    found = [row for row in stored(rows) if row["bucket"] in wanted]
    for point, counts in zip(points, counts_at(SCOPE, found, points), strict=True):
        assert counts == {kind: sum(1 for k, at, gone in held if k == kind and at <= point
                                    and (gone is None or gone > point)) for kind in KINDS}
