"""Times that were silently read wrong: signed (BCE) and two-digit years, zone abbreviations,
POSIX-style offsets, year-first strings with a zone, odd Python types, and float epoch seconds
far from 1970. Each is either read exactly or refused with :class:`InvalidTimeError`, and no
warning ever escapes."""

from __future__ import annotations

import time
import warnings
from collections.abc import Iterator
from datetime import UTC, date, datetime, timedelta, tzinfo
from decimal import Decimal
from fractions import Fraction

import pytest

from synapse_graph.errors import InvalidTimeError
from synapse_graph.rules.timeparse import to_micros
from tests.ci import require

EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def micros(when: datetime) -> int:
    return (when - EPOCH) // timedelta(microseconds=1)


@pytest.fixture(autouse=True)
def no_warnings() -> Iterator[None]:
    """Any warning raised while parsing fails the test (as ``-W error`` would)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        yield


@pytest.mark.parametrize(
    "text",
    ["-44-03-15", "-0001-01-01", "-0044-03-15T12:00:00Z", "−0044-03-15", "+10000-01-01", "-1000", "-44",
     "+240015", "44 BC", "15 March 44 BCE", "March 15, 44 B.C.", "March 15, -0044", "March 15, -1000",
     "15 March -2024 10:00"],
)
def test_years_before_1_or_signed_are_refused(text: str) -> None:
    with pytest.raises(InvalidTimeError, match=r"sign|before the common era|BCE"):
        to_micros(text, field="valid_at")


@pytest.mark.parametrize("text", ["03/15/44", "15/03/44", "March 5 24", "5 Mar 99", "15.03.44", "Jan 5, 01"])
def test_two_digit_years_are_refused(text: str) -> None:
    with pytest.raises(InvalidTimeError, match="two-digit year"):
        to_micros(text)


@pytest.mark.parametrize(
    ("text", "expected"),
    [("March 5 0024", datetime(24, 3, 5, tzinfo=UTC)), ("0044-03-15", datetime(44, 3, 15, tzinfo=UTC)),
     ("15 March 0099", datetime(99, 3, 15, tzinfo=UTC))],
)
def test_years_written_with_their_century_are_kept(text: str, expected: datetime) -> None:
    assert to_micros(text) == micros(expected)


@pytest.mark.parametrize("text", ["2024-03-01 09:30 PST", "March 1 2024 09:30 CET", "2024-03-01 09:30 EDT",
                                  "1 March 2024 10:00 IST", "2024-03-01 09:30 CST"])
def test_zone_abbreviations_are_named_as_the_problem(text: str) -> None:
    with pytest.raises(InvalidTimeError, match="time-zone abbreviation") as raised:
        to_micros(text, field="as_of")
    assert "ambiguous (month/day" not in str(raised.value)
    assert str(raised.value).startswith("as_of: ")


def test_the_local_zone_name_is_not_taken_as_local_time(monkeypatch: pytest.MonkeyPatch) -> None:
    # dateutil reads a name equal to time.tzname as the machine's zone: the answer would depend on the host.
    monkeypatch.setenv("TZ", "Europe/Paris")
    time.tzset()
    try:
        assert "CET" in time.tzname
        with pytest.raises(InvalidTimeError, match="time-zone abbreviation"):
            to_micros("March 1 2024 09:30 CET")
    finally:
        monkeypatch.undo()
        time.tzset()


@pytest.mark.parametrize("text", ["2024-03-01 09:30 GMT+3", "2024-03-01 09:30 UTC+3", "2024-03-01 09:30 UTC-05:00",
                                  "2024-03-01 09:30 CET+1", "2024-03-01 09:30 EST-5"])
def test_posix_style_offsets_are_refused(text: str) -> None:
    # dateutil reads "GMT+3" the POSIX way, as three hours *behind* UTC: people mean the opposite.
    with pytest.raises(InvalidTimeError, match="POSIX"):
        to_micros(text)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2024-03-01 09:30 UTC", datetime(2024, 3, 1, 9, 30, tzinfo=UTC)),
        ("2024-03-01 09:30 GMT", datetime(2024, 3, 1, 9, 30, tzinfo=UTC)),
        ("2024-03-01 09:30 Z", datetime(2024, 3, 1, 9, 30, tzinfo=UTC)),
        ("2024-03-01 09:30 UT", datetime(2024, 3, 1, 9, 30, tzinfo=UTC)),
        ("2024-03-01 09:30 +0100", datetime(2024, 3, 1, 8, 30, tzinfo=UTC)),
        ("2024/03/01 09:30 -05:00", datetime(2024, 3, 1, 14, 30, tzinfo=UTC)),
        ("2024-03-01 09:30 +0100 (CET)", datetime(2024, 3, 1, 8, 30, tzinfo=UTC)),
        ("Fri, 01 Mar 2024 09:30:00 GMT", datetime(2024, 3, 1, 9, 30, tzinfo=UTC)),
        ("Fri, 01 Mar 2024 09:30:00 +0200", datetime(2024, 3, 1, 7, 30, tzinfo=UTC)),
        ("2024.03.01", datetime(2024, 3, 1, tzinfo=UTC)),
        ("March 1 2024 09:30 UTC", datetime(2024, 3, 1, 9, 30, tzinfo=UTC)),
    ],
)
def test_year_first_and_zoned_strings_are_read_exactly(text: str, expected: datetime) -> None:
    assert to_micros(text) == micros(expected)


def test_day_month_ambiguity_is_still_refused() -> None:
    with pytest.raises(InvalidTimeError, match="ambiguous"):
        to_micros("01/02/2024 09:30 UTC")


class _BadOffset(tzinfo):
    def utcoffset(self, dt: datetime | None) -> timedelta:
        return timedelta(hours=30)  # datetime refuses offsets of a day or more

    def dst(self, dt: datetime | None) -> timedelta:
        return timedelta(0)


class _NotAnOffset(tzinfo):
    def utcoffset(self, dt: datetime | None) -> timedelta:
        return "+01:00"  # type: ignore[return-value]


class _Text(str):
    def strip(self, chars: str | None = None) -> str:
        raise RuntimeError("a str subclass that misbehaves")

    def __hash__(self) -> int:
        raise RuntimeError("unhashable")


@pytest.mark.parametrize(
    "value",
    [b"2024-03-01", bytearray(b"2024-03-01"), memoryview(b"2024-03-01"), Decimal("1709285400"), Decimal("NaN"),
     1 + 2j, None, [2024, 3, 1], {"year": 2024}, object(), date, datetime,
     datetime(2024, 3, 1, tzinfo=_BadOffset()), datetime(2024, 3, 1, tzinfo=_NotAnOffset()), True, False],
    ids=lambda v: type(v).__name__,
)
def test_odd_values_are_refused_with_a_time_error(value: object) -> None:
    with pytest.raises(InvalidTimeError):
        to_micros(value)


def test_numpy_scalars_are_read_exactly() -> None:
    numpy = require("numpy")
    assert to_micros(numpy.int64(1709285400)) == 1709285400_000000  # not through a float
    assert to_micros(numpy.int64(253402300799)) == 253402300799_000000
    assert to_micros(numpy.float64(1.5)) == 1_500_000  # a numpy float64 is a Python float
    assert to_micros(numpy.float32(0.1)) == round(Fraction(float(numpy.float32(0.1))) * 1_000_000)
    assert all(type(to_micros(v)) is int for v in (numpy.int64(1), numpy.float64(1.5), numpy.float32(2.5)))


@pytest.mark.parametrize("value", [Decimal("1709285400.5"), Fraction(1, 3)], ids=repr)
def test_numbers_that_are_no_float_are_refused(value: object) -> None:
    with pytest.raises(InvalidTimeError, match="float"):
        to_micros(value)


def test_str_subclasses_are_read_as_their_text() -> None:
    assert to_micros(_Text("2024-03-01")) == micros(datetime(2024, 3, 1, tzinfo=UTC))


@pytest.mark.parametrize(
    ("seconds", "expected"),
    [
        (202399325924.4166, 202399325924416595),  # the float's exact value, to the nearest microsecond
        (-53155587325.13403, -53155587325134033),
        (1709285400.123456, 1709285400123456),
        (-62135596800.0, -62135596800_000000),
    ],
)
def test_float_epoch_seconds_are_rounded_from_their_exact_value(seconds: float, expected: int) -> None:
    assert to_micros(seconds) == expected
    assert to_micros(seconds) == round(Fraction(seconds) * 1_000_000)


def test_huge_integers_are_refused_quickly() -> None:
    with pytest.raises(InvalidTimeError, match="outside years 1-9999"):
        to_micros(10**5000)  # more digits than int -> str converts by default
