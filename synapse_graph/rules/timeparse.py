"""Parsing times given to the API into UTC epoch microseconds.

The store keeps every instant as an integer count of microseconds since the Unix
epoch in UTC: FalkorDB has no zoned datetime type, integers compare exactly on
both backends, and microseconds keep same-day facts in order.

What cannot be read one way only is refused with :class:`InvalidTimeError` rather than
guessed: day/month order (``01/02/2024``), a missing year, two-digit years (``03/15/44``),
signed or BCE years (``-44-03-15``; only years 1-9999 are stored), zone abbreviations
(``PST``, ``CST``: several zones share them) and POSIX-style offsets (``GMT+3`` means three
hours *behind* UTC to POSIX and dateutil, ahead to most people).
"""

from __future__ import annotations

import math
import numbers
import operator
import re
from collections.abc import Callable
from datetime import UTC, date, datetime, timedelta, timezone, tzinfo
from functools import lru_cache

from dateutil import parser as dateutil_parser

from synapse_graph.errors import InvalidTimeError
from synapse_graph.rules.redaction import redact

EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
MIN_MICROS = -62135596800_000000  # 0001-01-01T00:00:00Z
MAX_MICROS = 253402300799_999999  # 9999-12-31T23:59:59.999999Z
MAX_TEXT = 64
_DEFAULT_A = datetime(2000, 1, 1)
_DEFAULT_B = datetime(2004, 2, 2)
_EXPECTED = "expected a datetime, date, ISO-8601 string or epoch seconds (int or float)"
_EXAMPLE = "use ISO-8601, e.g. '2024-03-01T09:30:00Z'"
_SIGNS = "+\\-\u2010-\u2015\u2212"  # ASCII signs, Unicode hyphens and dashes, the minus sign
_LEADING_SIGN = re.compile(rf"[{_SIGNS}]\s*\d")
_SIGNED_NUMBER = re.compile(rf"(?:^|[\s,(])[{_SIGNS}]\s*\d")
_BCE = re.compile(r"(?<![A-Za-z])B\.?\s?C\.?(?:E\.?)?(?![A-Za-z])", re.IGNORECASE)
_FIRST_NUMBER = re.compile(r"\d+")
_UTC_NAMES = frozenset({"UTC", "GMT", "UT", "Z"})
# "GMT+3" and "UTC-5": dateutil drops the name and reverses the sign (the POSIX reading).
_POSIX_UTC_OFFSET = re.compile(r"(?<![A-Za-z])(?:UTC|GMT|UT|Z)[+-]\d", re.IGNORECASE)


def to_micros(value: object, *, field: str = "time") -> int:
    """Convert an API time (datetime, date, string, epoch seconds) to UTC epoch microseconds.

    Naive datetimes and strings without an offset are taken as UTC. Ambiguous strings
    such as ``01/02/2024`` or ``03/15/44`` are refused rather than guessed.
    """
    if type(value) is str:
        cached = _text_micros(value)
        return cached if cached is not None else _from_datetime(_parse_text(value, field), field)
    if isinstance(value, bool):
        raise InvalidTimeError(f"{field}: a boolean is not a time; {_EXPECTED}")
    if isinstance(value, datetime):
        return _from_datetime(value, field)
    if isinstance(value, date):
        return _from_datetime(datetime(value.year, value.month, value.day), field)
    if isinstance(value, int):
        return _from_epoch_int(int(value), field)
    if isinstance(value, float):
        return _from_epoch_float(float(value), field)
    if isinstance(value, str):  # a str subclass: read its text, not its methods
        return to_micros(str.__str__(value), field=field)
    if isinstance(value, numbers.Integral):  # numpy integers: exactly, not through a float
        return _from_epoch_int(operator.index(value), field)
    if isinstance(value, numbers.Real):  # numpy float32, Fraction: only if exactly a float
        number = float(value)
        if number != value:
            raise InvalidTimeError(f"{field}: {value!r} epoch seconds is not exactly a float; convert it first")
        return _from_epoch_float(number, field)
    hint = "; decode bytes first" if isinstance(value, bytes | bytearray | memoryview) else (
        "; convert it first, e.g. int(value) or float(value)" if hasattr(value, "__float__") else ""
    )
    raise InvalidTimeError(f"{field}: {_EXPECTED}, got {type(value).__name__}{hint}")


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
    try:
        if value.tzinfo is None or value.utcoffset() is None:
            value = value.replace(tzinfo=UTC)
        delta = value - EPOCH
    except OverflowError:
        raise InvalidTimeError(f"{field}: {value!r} is out of range") from None
    except (ValueError, TypeError) as exc:  # a tzinfo whose utcoffset() is not a valid offset
        raise InvalidTimeError(f"{field}: the time zone of {value!r} gives no valid UTC offset ({exc})") from None
    micros = (delta.days * 86_400 + delta.seconds) * 1_000_000 + delta.microseconds
    if not MIN_MICROS <= micros <= MAX_MICROS:
        raise InvalidTimeError(f"{field}: {value.isoformat()} is outside years 1-9999 UTC")
    return micros


def _from_epoch_int(seconds: int, field: str) -> int:
    if not MIN_MICROS // 1_000_000 <= seconds <= MAX_MICROS // 1_000_000:
        shown = repr(seconds) if abs(seconds) < 10**30 else f"an integer of {seconds.bit_length()} bits"
        raise InvalidTimeError(f"{field}: {shown} epoch seconds is outside years 1-9999 UTC")
    return seconds * 1_000_000


def _from_epoch_float(seconds: float, field: str) -> int:
    if not math.isfinite(seconds):
        raise InvalidTimeError(f"{field}: {seconds!r} is not a finite number of epoch seconds")
    if not MIN_MICROS / 1_000_000 - 1 <= seconds <= MAX_MICROS / 1_000_000 + 1:
        raise InvalidTimeError(f"{field}: {seconds!r} epoch seconds is outside years 1-9999 UTC")
    # The nearest microsecond to the float's exact value (half to even, like round()):
    # `round(seconds * 1e6)` rounds twice and is off by up to 32 µs beyond the year 2255.
    numerator, denominator = seconds.as_integer_ratio()
    micros, remainder = divmod(numerator * 1_000_000, denominator)
    if 2 * remainder > denominator or (2 * remainder == denominator and micros & 1):
        micros += 1
    if not MIN_MICROS <= micros <= MAX_MICROS:
        raise InvalidTimeError(f"{field}: {seconds!r} epoch seconds is outside years 1-9999 UTC")
    return micros


class _TwoDigitYear(Exception):
    """Raised from inside dateutil when it would pick a century for a two-digit year."""


class _UnknownZone(Exception):
    def __init__(self, name: str) -> None:
        super().__init__(name)
        self.name = name


class _PosixOffset(Exception):
    """A zone written as ``GMT+3``: dateutil reads it the POSIX way (three hours behind UTC)."""


class _StrictInfo(dateutil_parser.parserinfo):
    """dateutil's rules, except that a two-digit year is refused instead of given a century.

    ``padded`` are years below 100 the text wrote with leading zeros (``0024``): dateutil
    loses that on some paths (``March 5 0024`` would be 2024), so they are kept as written.
    """

    def __init__(self, padded: frozenset[int] = frozenset()) -> None:
        super().__init__()
        self.padded = padded

    def convertyear(self, year: int, century_specified: bool = False) -> int:
        if year < 100 and not century_specified:
            if year in self.padded:
                return year
            raise _TwoDigitYear(year)
        return int(super().convertyear(year, century_specified))


_PARSER = dateutil_parser.parser(_StrictInfo())
_PADDED_YEAR = re.compile(rf"(?<![\d{_SIGNS}])0\d{{2,3}}(?!\d)")


def _zone_reader(text: str) -> Callable[[str | None, int | None], tzinfo | None]:
    """The ``tzinfos`` callback: UTC names and numeric offsets only, never the host's local zone."""

    def tzinfos(name: str | None, offset: int | None) -> tzinfo | None:
        if offset is not None:
            if (name is None and _POSIX_UTC_OFFSET.search(text)) or (
                name is not None and re.search(rf"(?<![A-Za-z]){re.escape(name)}[+-]\d", text)
            ):
                raise _PosixOffset
            return UTC if offset == 0 else timezone(timedelta(seconds=offset))
        if name is None:
            return None
        if name.upper() in _UTC_NAMES:
            return UTC
        raise _UnknownZone(name)

    return tzinfos


def _shown(text: str) -> str:
    """The offending text for a message: at most 70 characters, secrets redacted."""
    return repr(redact(text[:70]).text)


def _parse_text(text: str, field: str) -> datetime:
    stripped = text.strip()
    if not stripped or len(stripped) > MAX_TEXT:
        raise InvalidTimeError(f"{field}: {_shown(text)} is not a time; {_EXAMPLE}")
    if _LEADING_SIGN.match(stripped):  # before isoparse, which reads "+240015" as the year 240
        raise InvalidTimeError(
            f"{field}: {_shown(stripped)} has a signed year; only years 1-9999 of the common era can be stored "
            "(no BCE dates, no expanded years)"
        )
    try:
        return dateutil_parser.isoparse(stripped)
    except (ValueError, OverflowError):
        pass
    shown = _shown(stripped)
    if _BCE.search(stripped):
        raise InvalidTimeError(
            f"{field}: {shown} is a date before the common era (BCE); only years 1-9999 can be stored"
        )
    padded = frozenset(int(run) for run in _PADDED_YEAR.findall(stripped) if int(run) < 100)
    parser = dateutil_parser.parser(_StrictInfo(padded)) if padded else _PARSER
    tzinfos = _zone_reader(stripped)
    try:
        # Two different defaults reveal fields the text left out (dateutil fills them in).
        month_first = parser.parse(stripped, default=_DEFAULT_A, dayfirst=False, tzinfos=tzinfos)
        day_first = parser.parse(stripped, default=_DEFAULT_A, dayfirst=True, tzinfos=tzinfos)
        other_default = parser.parse(stripped, default=_DEFAULT_B, dayfirst=False, tzinfos=tzinfos)
    except _TwoDigitYear as exc:
        if _SIGNED_NUMBER.search(stripped):
            raise InvalidTimeError(
                f"{field}: {shown} has a signed year; only years 1-9999 of the common era can be stored"
            ) from None
        raise InvalidTimeError(
            f"{field}: {shown} has a two-digit year ({exc.args[0]:02d}), which could be of any century; "
            f"write all four digits, e.g. '{2000 + exc.args[0]:04d}' or '{1900 + exc.args[0]:04d}'"
        ) from None
    except _UnknownZone as exc:
        raise InvalidTimeError(
            f"{field}: {shown} names the time-zone abbreviation {exc.name!r}; abbreviations are not unique "
            "(CST is US Central or China Standard Time) and are not read; give the UTC offset instead, "
            "e.g. '2024-03-01T09:30:00-08:00'"
        ) from None
    except _PosixOffset:
        raise InvalidTimeError(
            f"{field}: {shown} writes the offset after a zone name (as in 'GMT+3'), which POSIX reads as "
            "hours *behind* UTC and people as hours ahead; write the offset alone, e.g. '+03:00'"
        ) from None
    except (ValueError, OverflowError, TypeError) as exc:
        reason = redact(str(exc)).text
        raise InvalidTimeError(f"{field}: cannot read {shown} as a time ({reason}); {_EXAMPLE}") from None
    first_number = _FIRST_NUMBER.search(stripped)
    year_first = first_number is not None and len(first_number.group()) >= 3
    # A year-first date is year-month-day (dateutil's day-first reading, year-day-month, is no one's order).
    if month_first != day_first and not year_first:
        raise InvalidTimeError(
            f"{field}: {shown} is ambiguous (month/day order); use ISO-8601, e.g. "
            f"'{month_first.date().isoformat()}'"
        )
    if month_first.year != other_default.year:
        raise InvalidTimeError(f"{field}: {shown} has no year; use ISO-8601, e.g. '2024-03-01'")
    if re.search(rf"(?:^|[\s,(])[{_SIGNS}]\s*0*{month_first.year}(?!\d)", stripped):
        # dateutil drops the sign of "March 15, -1000"
        raise InvalidTimeError(f"{field}: {shown} has a signed year; only years 1-9999 of the common era can be stored")
    return month_first
