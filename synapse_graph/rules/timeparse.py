"""Parsing times given to the API into UTC epoch microseconds.

The store keeps every instant as an integer count of microseconds since the Unix
epoch in UTC: FalkorDB has no zoned datetime type, integers compare exactly on
both backends, and microseconds keep same-day facts in order.
"""

from __future__ import annotations

import math
from datetime import UTC, date, datetime, timedelta
from functools import lru_cache

from dateutil import parser as dateutil_parser

from synapse_graph.errors import InvalidTimeError

EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
MIN_MICROS = -62135596800_000000  # 0001-01-01T00:00:00Z
MAX_MICROS = 253402300799_999999  # 9999-12-31T23:59:59.999999Z
_DEFAULT_A = datetime(2000, 1, 1)
_DEFAULT_B = datetime(2004, 2, 2)


def to_micros(value: object, *, field: str = "time") -> int:
    """Convert an API time (datetime, date, string, epoch seconds) to UTC epoch microseconds.

    Naive datetimes and strings without an offset are taken as UTC. Ambiguous strings
    such as ``01/02/2024`` are refused rather than guessed.
    """
    if isinstance(value, bool):
        raise InvalidTimeError(f"{field}: a boolean is not a time")
    if isinstance(value, datetime):
        return _from_datetime(value, field)
    if isinstance(value, date):
        return _from_datetime(datetime(value.year, value.month, value.day), field)
    if isinstance(value, int | float):
        return _from_epoch_seconds(value, field)
    if isinstance(value, str):
        cached = _text_micros(value)
        return cached if cached is not None else _from_datetime(_parse_text(value, field), field)
    raise InvalidTimeError(
        f"{field}: expected a datetime, date, ISO-8601 string or epoch seconds, got {type(value).__name__}"
    )


@lru_cache(maxsize=65_536)
def _text_micros(text: str) -> int | None:
    """Cached parse of a time string (writers repeat the same instants); None if it is invalid."""
    try:
        return _from_datetime(_parse_text(text, "time"), "time")
    except InvalidTimeError:
        return None


def from_micros(micros: int) -> datetime:
    """The aware UTC datetime of an epoch-microsecond instant."""
    return EPOCH + timedelta(microseconds=micros)


def now_micros() -> int:
    return _from_datetime(datetime.now(UTC), "now")


def _from_datetime(value: datetime, field: str) -> int:
    if value.tzinfo is None or value.utcoffset() is None:
        value = value.replace(tzinfo=UTC)
    try:
        delta = value - EPOCH
    except OverflowError:
        raise InvalidTimeError(f"{field}: {value!r} is out of range") from None
    micros = (delta.days * 86_400 + delta.seconds) * 1_000_000 + delta.microseconds
    if not MIN_MICROS <= micros <= MAX_MICROS:
        raise InvalidTimeError(f"{field}: {value.isoformat()} is outside years 1-9999 UTC")
    return micros


def _from_epoch_seconds(value: float, field: str) -> int:
    if isinstance(value, float) and not math.isfinite(value):
        raise InvalidTimeError(f"{field}: {value!r} is not a finite number of epoch seconds")
    micros = round(value * 1_000_000) if isinstance(value, float) else value * 1_000_000
    if not MIN_MICROS <= micros <= MAX_MICROS:
        raise InvalidTimeError(f"{field}: {value!r} epoch seconds is outside years 1-9999 UTC")
    return micros


def _parse_text(text: str, field: str) -> datetime:
    stripped = text.strip()
    if not stripped or len(stripped) > 64:
        raise InvalidTimeError(f"{field}: {text[:70]!r} is not a time; use ISO-8601, e.g. '2024-03-01T09:30:00Z'")
    try:
        return dateutil_parser.isoparse(stripped)
    except (ValueError, OverflowError):
        pass
    try:
        # Two different defaults reveal fields the text left out (dateutil fills them in).
        month_first = dateutil_parser.parse(stripped, default=_DEFAULT_A, dayfirst=False)
        day_first = dateutil_parser.parse(stripped, default=_DEFAULT_A, dayfirst=True)
        other_default = dateutil_parser.parse(stripped, default=_DEFAULT_B, dayfirst=False)
    except (ValueError, OverflowError, TypeError) as exc:
        raise InvalidTimeError(
            f"{field}: cannot read {stripped!r} as a time ({exc}); use ISO-8601, e.g. '2024-03-01T09:30:00Z'"
        ) from None
    if month_first != day_first:
        raise InvalidTimeError(
            f"{field}: {stripped!r} is ambiguous (month/day order); use ISO-8601, e.g. "
            f"'{month_first.date().isoformat()}'"
        )
    if month_first.year != other_default.year:
        raise InvalidTimeError(f"{field}: {stripped!r} has no year; use ISO-8601, e.g. '2024-03-01'")
    return month_first
