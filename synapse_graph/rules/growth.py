"""The scope's growth counters (store format 10): how many records were made and gone in each slice of
recorded time, kept by the writes themselves so that :meth:`Memory.growth` reads a few counters, not the scope.

A record (fact record, observation) is *made* when it was recorded and *gone* when it expired; an entity is
made when it was created (a merged or purged one is gone from every point, as if never made). What the scope
held at an instant ``t`` is then what was made at or before ``t`` less what was gone at or before it.

Counters are kept at several widths of slice, each slice inside one of the next wider width: days, hours
within a day, minutes within an hour, and exact instants within a minute (a write's records share its instant).
A count at ``t`` adds the whole days before ``t``'s day, the whole hours of that day before ``t``'s hour, the
whole minutes of that hour before ``t``'s minute and the instants of that minute up to ``t``: exact to the
microsecond, and a chart of 60 points reads the scope's days and at most 60 x (24 + 60) slices beside the
instants written in the minutes its points fall in, whatever the size of the scope.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from synapse_graph.rules.timeline import Record

DAY = 86_400_000_000
SLICES = (("day", DAY), ("hour", 3_600_000_000), ("minute", 60_000_000), ("instant", 1))
"""Each width of slice counted, by name, widest first, in epoch microseconds."""
KINDS = ("facts", "candidates", "entities", "observations")
COLUMNS = ("facts_made", "facts_gone", "candidates_made", "candidates_gone", "entities_made",
           "observations_made", "observations_gone")
"""The counters of a slice: records of each kind made and gone in it (entities are only made)."""


def kind_of(record: Record) -> str:
    """The kind a fact record counts as: a candidate (waiting for review), else a fact (believed or disputed)."""
    return "candidates" if record.status == "candidate" else "facts"


class Changes:
    """Changes to the growth counters, by instant (epoch microseconds) and counter; built up by a write."""

    def __init__(self) -> None:
        self.at: dict[int, dict[str, int]] = defaultdict(lambda: dict.fromkeys(COLUMNS, 0))

    def add(self, kind: str, made: int, gone: int | None, n: int = 1) -> None:
        """Count ``n`` records of ``kind`` made at ``made`` and gone at ``gone`` (None: still held); a negative
        ``n`` uncounts them (they are deleted: merged away, purged)."""
        self.at[int(made)][f"{kind}_made"] += n
        if gone is not None:
            self.at[int(gone)][f"{kind}_gone"] += n

    def gone(self, kind: str, at: int) -> None:
        """A record of ``kind`` made before is gone at ``at`` (it expired)."""
        self.at[int(at)][f"{kind}_gone"] += 1

    def rows(self, scope: str) -> list[dict[str, Any]]:
        """The counters to change, one row per slice (its ``key``, its ``bucket``: the slice it is in, and
        ``start``: its first instant, in epoch microseconds, an integer), the slices of every width that hold a
        changed instant, unchanged counters left out."""
        slices: dict[tuple[str, int], dict[str, Any]] = {}
        for instant, deltas in sorted(self.at.items()):
            if not any(deltas.values()):
                continue
            for name, start, bucket in _slices(scope, instant):
                row = slices.setdefault((name, start), {"key": f"{bucket}|{start}", "bucket": bucket,
                                                        "start": start, **dict.fromkeys(COLUMNS, 0)})
                for column, n in deltas.items():
                    row[column] += n
        return [row for row in slices.values() if any(row[c] for c in COLUMNS)]


def _slices(scope: str, instant: int) -> list[tuple[str, int, str]]:
    """(width name, start, bucket) of the slice of each width that holds ``instant``; the bucket of a slice
    names the slice of the next wider width it is in (the days of a scope share one)."""
    found, outer = [], ""
    for name, width in SLICES:
        start = instant // width * width
        found.append((name, start, f"{scope}|{name}|{outer}"))
        outer = str(start)
    return found


def buckets(scope: str, points: Iterable[int]) -> list[str]:
    """The buckets a growth read needs to count at each of ``points``: the scope's days, and the slices of
    each point's day, hour and minute."""
    needed = {f"{scope}|day|"}
    for point in points:
        needed.update(bucket for _, _, bucket in _slices(scope, point))
    return sorted(needed)


def counts_at(scope: str, rows: Iterable[Mapping[str, Any]], points: Sequence[int]) -> list[dict[str, int]]:
    """What the scope held at each of ``points`` (by kind), from the counters of the :func:`buckets` read."""
    by_bucket: dict[str, list[Mapping[str, Any]]] = defaultdict(list)
    for row in rows:
        by_bucket[row["bucket"]].append(row)
    counts = []
    for point in points:
        totals = dict.fromkeys(COLUMNS, 0)
        for (_, width), (_, own, bucket) in zip(SLICES, _slices(scope, point), strict=True):
            for row in by_bucket.get(bucket, ()):
                # The slices before the point's own (instants: at or before it); the slice the point is in is
                # counted by the finer slices in it, even when the point is its last microsecond.
                if row["start"] < own or (width == 1 and row["start"] == own):
                    for column in COLUMNS:
                        totals[column] += row[column] or 0
        counts.append({kind: totals[f"{kind}_made"] - totals.get(f"{kind}_gone", 0) for kind in KINDS})
    return counts
