"""Geometry of the inspector's two drawings, rendered as inline SVG by its templates (pure).

- the **timeline** of an entity: one lane per predicate, each validity interval a bar from ``valid_at``
  to ``invalid_at`` (or the right edge, for one that still holds), labelled with its object; intervals of
  one predicate that overlap (several values at once) stack in rows; a line marks the instant shown;
- the **growth** chart of a scope: its fact records, entities and observations over recorded time.

Every label is data: the templates write it as SVG text, escaped like all text.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from synapse_graph import render
from synapse_graph.growth import Growth
from synapse_graph.models import Fact

WIDTH = 960
LABEL_WIDTH = 190
ROW = 22
BAR = 16
AXIS = 24


@dataclass(frozen=True)
class Tick:
    x: float
    label: str


@dataclass(frozen=True)
class Bar:
    fact_id: str
    x: float
    y: float
    width: float
    label: str
    title: str
    holds: bool
    """Valid at the instant shown."""
    open_end: bool


@dataclass(frozen=True)
class Lane:
    predicate: str
    y: float
    height: float
    bars: list[Bar] = field(default_factory=list)


@dataclass(frozen=True)
class Timeline:
    width: int
    height: float
    lanes: list[Lane]
    ticks: list[Tick]
    marker: float | None
    """x of the instant shown."""
    left: int = LABEL_WIDTH


def timeline(records: Sequence[Fact], *, shown: datetime, now: datetime, width: int = WIDTH) -> Timeline:
    """Lanes of bars for these validity intervals, on a time axis spanning them, the instant shown and now."""
    if not records:
        return Timeline(width=width, height=0, lanes=[], ticks=[], marker=None)
    start = min(min(r.valid_at for r in records), shown)
    end = max(now, shown, *(r.invalid_at for r in records if r.invalid_at is not None))
    pad = max((end - start) / 40, timedelta(hours=1))
    start, end = start - pad, end + pad
    right = width - 10
    span = (end - start).total_seconds()

    def x(when: datetime) -> float:
        return round(LABEL_WIDTH + (right - LABEL_WIDTH) * (when - start).total_seconds() / span, 1)

    lanes: list[Lane] = []
    y = float(AXIS)
    by_predicate: dict[str, list[Fact]] = {}
    for record in sorted(records, key=lambda r: (r.valid_at, r.object, r.id)):
        by_predicate.setdefault(record.predicate, []).append(record)
    for predicate in sorted(by_predicate):
        rows: list[datetime] = []  # where each row is free from
        bars = []
        for record in by_predicate[predicate]:
            stop = record.invalid_at or end
            row = next((i for i, free in enumerate(rows) if free <= record.valid_at), len(rows))
            if row == len(rows):
                rows.append(stop)
            rows[row] = stop
            left = x(record.valid_at)
            bars.append(Bar(fact_id=record.id, x=left, y=y + row * ROW + (ROW - BAR) / 2,
                            width=max(2.0, x(stop) - left), label=record.object,
                            title=f"{record.predicate} {record.object} [{_day(record.valid_at)} → "
                                  f"{_day(record.invalid_at) if record.invalid_at else 'now'})",
                            holds=record.holds_at(shown), open_end=record.invalid_at is None))
        height = len(rows) * ROW
        lanes.append(Lane(predicate=predicate, y=y, height=height, bars=bars))
        y += height + 6
    return Timeline(width=width, height=y + 4, lanes=lanes, ticks=_ticks(start, end, x), marker=x(shown))


def _ticks(start: datetime, end: datetime, x: object) -> list[Tick]:
    """Year ticks, or months or days for a short span (at most about 12)."""
    assert callable(x)
    span = end - start
    ticks = []
    if span > timedelta(days=3 * 365):
        step = max(1, round(span.days / 365 / 10))
        year = start.year + 1
        while (moment := datetime(year, 1, 1, tzinfo=UTC)) < end:
            ticks.append(Tick(x(moment), str(year)))
            year += step
    elif span > timedelta(days=60):
        step = max(1, round(span.days / 30 / 10))
        month = datetime(start.year, start.month, 1, tzinfo=UTC)
        while month < end:
            if month > start:
                ticks.append(Tick(x(month), month.strftime("%Y-%m")))
            month = _add_months(month, step)
    else:
        step_days = max(1, round(span.days / 10))
        day = datetime(start.year, start.month, start.day, tzinfo=UTC) + timedelta(days=1)
        while day < end:
            ticks.append(Tick(x(day), day.strftime("%m-%d")))
            day += timedelta(days=step_days)
    return ticks


def _add_months(moment: datetime, months: int) -> datetime:
    total = moment.month - 1 + months
    return moment.replace(year=moment.year + total // 12, month=total % 12 + 1)


def _day(moment: datetime | None) -> str:
    return "" if moment is None else moment.date().isoformat()


# -- growth -------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Series:
    name: str
    points: str
    """SVG polyline points."""
    last: int


@dataclass(frozen=True)
class Chart:
    width: int
    height: int
    series: list[Series]
    top: int
    """The value of the chart's top line."""
    first: str
    last: str


SERIES = ("facts", "entities", "observations", "candidates")


def growth_chart(growth: Growth, *, width: int = 640, height: int = 180) -> Chart | None:
    """Polylines of the growth's counts (None when the scope recorded nothing)."""
    if not growth.points:
        return None
    top = max(1, *(getattr(p, name) for p in growth.points for name in SERIES))
    left, right, upper, lower = 46, width - 8, 8, height - 22
    step = (right - left) / max(1, len(growth.points) - 1)
    series = []
    for name in SERIES:
        values = [getattr(p, name) for p in growth.points]
        if not any(values):
            continue
        points = " ".join(f"{left + i * step:.1f},{lower - (lower - upper) * v / top:.1f}"
                          for i, v in enumerate(values))
        series.append(Series(name=name, points=points, last=values[-1]))
    return Chart(width=width, height=height, series=series, top=top, first=render.time_text(growth.points[0].at),
                 last=render.time_text(growth.points[-1].at))
