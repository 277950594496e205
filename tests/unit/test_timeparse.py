"""Tests for :mod:`synapse_graph.rules.timeparse`: API times to UTC epoch microseconds."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta, timezone
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from synapse_graph.errors import InvalidTimeError
from synapse_graph.instants import from_datetime, to_datetime
from synapse_graph.rules.timeparse import MAX_MICROS, MIN_MICROS, from_micros, now_micros, to_micros

FIRST = datetime(1, 1, 1, tzinfo=UTC)
LAST = datetime(9999, 12, 31, 23, 59, 59, 999_999, tzinfo=UTC)
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def micros(when: datetime) -> int:
    """Reference conversion, independent of the module under test."""
    delta = when - EPOCH
    return delta // timedelta(microseconds=1)


aware = st.datetimes(min_value=FIRST.replace(tzinfo=None), max_value=LAST.replace(tzinfo=None), timezones=st.just(UTC))
offsets = st.builds(
    timezone, st.timedeltas(min_value=timedelta(hours=-23, minutes=-59), max_value=timedelta(hours=23, minutes=59))
)


def test_range_constants_are_years_1_to_9999() -> None:
    assert micros(FIRST) == MIN_MICROS and micros(LAST) == MAX_MICROS
    assert from_micros(MIN_MICROS) == FIRST and from_micros(MAX_MICROS) == LAST


@given(aware)
def test_round_trip_is_exact_to_the_microsecond(when: datetime) -> None:
    value = to_micros(when)
    assert value == micros(when)
    back = from_micros(value)
    assert back == when and back.tzinfo is not None and back.utcoffset() == timedelta(0)
    assert back.microsecond == when.microsecond


@given(st.integers(min_value=MIN_MICROS, max_value=MAX_MICROS))
def test_micros_round_trip(value: int) -> None:
    assert to_micros(from_micros(value)) == value


@given(st.integers(min_value=MIN_MICROS, max_value=MAX_MICROS))
def test_instants_read_back_exactly(value: int) -> None:
    """What reads return (instants.to_datetime) is the instant stored, to the microsecond, all years 1-9999."""
    when = to_datetime(value)
    assert when == from_micros(value) and when.tzinfo is not None and from_datetime(when) == value


@given(aware)
def test_naive_is_utc(when: datetime) -> None:
    assert to_micros(when.replace(tzinfo=None)) == to_micros(when)


@given(st.datetimes(min_value=datetime(1, 1, 2), max_value=datetime(9999, 12, 30)), offsets)
def test_offsets_are_converted_to_utc(local: datetime, offset: timezone) -> None:
    when = local.replace(tzinfo=offset)
    assert to_micros(when) == micros(when)
    assert from_micros(to_micros(when)) == when


@pytest.mark.parametrize(
    "when",
    [
        datetime(1, 1, 1, 0, 30, tzinfo=timezone(timedelta(hours=1))),  # 0000-12-31T23:30Z
        datetime(9999, 12, 31, 23, 30, tzinfo=timezone(timedelta(hours=-1))),  # 10000-01-01T00:30Z
    ],
)
def test_offsets_pushing_past_the_range_are_refused(when: datetime) -> None:
    with pytest.raises(InvalidTimeError, match=r"range|outside"):
        to_micros(when)


@given(st.dates())
def test_date_is_midnight_utc(day: date) -> None:
    assert to_micros(day) == micros(datetime(day.year, day.month, day.day, tzinfo=UTC))


@given(st.integers(min_value=MIN_MICROS // 1_000_000, max_value=MAX_MICROS // 1_000_000))
def test_epoch_seconds_int(seconds: int) -> None:
    assert to_micros(seconds) == seconds * 1_000_000


@given(st.floats(min_value=-62135596800.0, max_value=253402300799.0))
def test_epoch_seconds_float(seconds: float) -> None:
    assert to_micros(seconds) == round(Fraction(seconds) * 1_000_000)  # from the float's exact value


@pytest.mark.parametrize(
    ("seconds", "expected"),
    [(0, 0), (1, 1_000_000), (-1, -1_000_000), (1.5, 1_500_000), (1e-6, 1), (-0.0, 0), (1709285400, 1709285400_000000)],
)
def test_epoch_seconds_examples(seconds: float, expected: int) -> None:
    assert to_micros(seconds) == expected


@pytest.mark.parametrize(
    "value", [MAX_MICROS // 1_000_000 + 1, MIN_MICROS // 1_000_000 - 1, 10**30, 1e300, -1e300, 253402300800.0]
)
def test_epoch_seconds_out_of_range_refused(value: float) -> None:
    with pytest.raises(InvalidTimeError):
        to_micros(value)


@pytest.mark.parametrize("value", [float("nan"), float("inf"), float("-inf")])
def test_non_finite_epoch_seconds_refused(value: float) -> None:
    with pytest.raises(InvalidTimeError, match="finite"):
        to_micros(value)


@pytest.mark.parametrize("value", [True, False])
def test_bool_refused(value: bool) -> None:
    with pytest.raises(InvalidTimeError, match="boolean"):
        to_micros(value)


@pytest.mark.parametrize("value", [None, [2024, 1, 1], b"2024-01-01", object()])
def test_other_types_refused(value: object) -> None:
    with pytest.raises(InvalidTimeError, match="expected"):
        to_micros(value)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2024-02-01", datetime(2024, 2, 1, tzinfo=UTC)),
        ("13/02/2024", datetime(2024, 2, 13, tzinfo=UTC)),
        ("02/13/2024", datetime(2024, 2, 13, tzinfo=UTC)),
        ("March 5 2024", datetime(2024, 3, 5, tzinfo=UTC)),
        ("5 March 2024", datetime(2024, 3, 5, tzinfo=UTC)),
        ("2024-03-01T10:00:00+02:00", datetime(2024, 3, 1, 8, 0, tzinfo=UTC)),
        ("2024-03-01T09:30:00Z", datetime(2024, 3, 1, 9, 30, tzinfo=UTC)),
        ("2024-03-01T09:30:00", datetime(2024, 3, 1, 9, 30, tzinfo=UTC)),  # no offset: UTC
        ("2024-03-01T09:30:00.000001Z", datetime(2024, 3, 1, 9, 30, 0, 1, tzinfo=UTC)),
        ("  2024-03-01  ", datetime(2024, 3, 1, tzinfo=UTC)),
        ("2024-03-01T23:30:00-05:00", datetime(2024, 3, 2, 4, 30, tzinfo=UTC)),
        ("0001-01-01T00:00:00Z", FIRST),
        ("9999-12-31T23:59:59.999999Z", LAST),
        ("Feb 29 2000", datetime(2000, 2, 29, tzinfo=UTC)),
    ],
)
def test_unambiguous_strings_accepted(text: str, expected: datetime) -> None:
    assert to_micros(text) == micros(expected)


@pytest.mark.parametrize("text", ["01/02/2024", "02/01/2024", "1/2/2024", "03-04-2024", "05.06.2024"])
def test_ambiguous_strings_refused(text: str) -> None:
    with pytest.raises(InvalidTimeError, match="ambiguous"):
        to_micros(text)


@pytest.mark.parametrize("text", ["March 5", "5 March", "Feb 29", "March 5 10:00", "December 25th"])
def test_strings_without_a_year_refused(text: str) -> None:
    with pytest.raises(InvalidTimeError, match="no year"):
        to_micros(text)


@pytest.mark.parametrize(
    "text",
    [
        "",
        "   ",
        "not a time",
        "2024-13-01",
        "2024-02-30",
        "10000-01-01",
        "0000-12-31T23:00:00Z",
        "9999-12-31T23:30:00-01:00",  # 10000-01-01 in UTC
        "0001-01-01T00:30:00+01:00",  # year 0 in UTC
        "2024-03-01" + " " * 60 + "x",
    ],
)
def test_bad_strings_refused(text: str) -> None:
    with pytest.raises(InvalidTimeError):
        to_micros(text)


def test_error_names_the_field() -> None:
    with pytest.raises(InvalidTimeError, match=r"^valid_at: "):
        to_micros("01/02/2024", field="valid_at")


@given(aware)
def test_iso_strings_round_trip(when: datetime) -> None:
    assert to_micros(when.isoformat()) == micros(when)
    assert to_micros(when.replace(tzinfo=None).isoformat()) == micros(when)


@given(st.text(max_size=70))
def test_any_text_parses_or_is_refused_cleanly(text: str) -> None:
    try:
        value = to_micros(text)
    except InvalidTimeError:
        return
    assert MIN_MICROS <= value <= MAX_MICROS


def test_now_is_current_utc() -> None:
    before = micros(datetime.now(UTC))
    value = now_micros()
    after = micros(datetime.now(UTC))
    assert before <= value <= after
