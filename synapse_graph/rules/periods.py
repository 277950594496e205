"""Periods: which facts held during a period, or throughout it, as the two bounds a read compares with.

A fact holds over its half-open validity ``[valid_at, invalid_at)``; a period ``(start, end)`` is half-open
too (``end`` None: from ``start`` on, for ever). A read keeps a record when

    valid_at <= starts_by  and  (invalid_at is None or invalid_at > ends_after)

so one test serves every question: at an instant ``t`` both bounds are ``t``; *during* a period (valid at
any moment of it) the record must start before the period ends and end after it starts; *throughout* a
period (valid at every moment of it) it must start by the period's start and end no earlier than its end.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from synapse_graph.errors import InvalidTimeError
from synapse_graph.instants import MAX_MICROS, to_iso


@dataclass(frozen=True)
class Window:
    """The bounds a record's validity is compared with (see the module)."""

    starts_by: int
    """A record's ``valid_at`` is at most this."""
    ends_after: int
    """A record's ``invalid_at`` is later than this (or it never ends)."""

    def keeps(self, valid_at: int, invalid_at: int | None) -> bool:
        """True if a validity ``[valid_at, invalid_at)`` passes the window."""
        return valid_at <= self.starts_by and (invalid_at is None or invalid_at > self.ends_after)


def at(instant: int) -> Window:
    """Valid at one instant."""
    return Window(instant, instant)


def during(start: int, end: int | None) -> Window:
    """Valid at some moment of ``[start, end)``."""
    return Window(MAX_MICROS if end is None else end - 1, start)


def throughout(start: int, end: int | None) -> Window:
    """Valid at every moment of ``[start, end)`` (an open end: valid from ``start`` on and never ending)."""
    return Window(start, MAX_MICROS if end is None else end - 1)


def check_period(start: int, end: int | None, field: str) -> tuple[int, int | None]:
    """A period whose start comes before its end."""
    if end is not None and end <= start:
        raise InvalidTimeError(f"{field} must end after it starts: ({to_iso(start)}, {to_iso(end)}) is empty; "
                               "give (start, end) with start < end, or (start, None) for a period with no end")
    return start, end


def period_parts(value: object, field: str) -> Sequence[object]:
    """The (start, end) of a period as given: a pair, checked before its times are read."""
    if isinstance(value, str | bytes) or not isinstance(value, tuple | list) or len(value) != 2:
        raise InvalidTimeError(f"{field} must be a (start, end) pair of times, e.g. ('2020-01-01', '2021-01-01'), "
                               f"or (start, None); got {str(value)[:70]!r}")
    if value[0] is None:
        raise InvalidTimeError(f"{field} needs a start: ({value[0]!r}, {value[1]!r}); give (start, end)")
    return value
