"""Periods (rules/periods.py): during and throughout as two bounds, checked against validity intervals."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from synapse_graph import InvalidTimeError
from synapse_graph.rules import periods

instants = st.integers(-10, 10)
ends = st.none() | instants


def holds(valid_at: int, invalid_at: int | None, t: int) -> bool:
    return valid_at <= t and (invalid_at is None or t < invalid_at)


@given(valid_at=instants, invalid_at=ends, start=instants, length=st.none() | st.integers(1, 6))
def test_during_and_throughout_are_some_and_every_moment_of_the_period(valid_at: int, invalid_at: int | None,
                                                                        start: int, length: int | None) -> None:
    if invalid_at is not None and invalid_at <= valid_at:
        return
    end = None if length is None else start + length
    moments = range(start, 30 if end is None else end)  # an open period: far enough past every validity
    valid = [holds(valid_at, invalid_at, t) for t in moments]
    assert periods.during(start, end).keeps(valid_at, invalid_at) == any(valid)
    if end is not None or invalid_at is None:
        assert periods.throughout(start, end).keeps(valid_at, invalid_at) == all(valid)
    else:  # an open period lasts for ever: only a validity with no end holds throughout it
        assert not periods.throughout(start, end).keeps(valid_at, invalid_at)


@given(valid_at=instants, invalid_at=ends, t=instants)
def test_an_instant_is_a_window_of_both_bounds(valid_at: int, invalid_at: int | None, t: int) -> None:
    if invalid_at is not None and invalid_at <= valid_at:
        return
    assert periods.at(t).keeps(valid_at, invalid_at) == holds(valid_at, invalid_at, t)
    assert periods.during(t, t + 1) == periods.throughout(t, t + 1) == periods.at(t)


def test_a_period_must_end_after_it_starts_and_be_a_pair() -> None:
    assert periods.check_period(1, 2, "during") == (1, 2)
    assert periods.check_period(1, None, "during") == (1, None)
    for start, end in [(2, 2), (3, 2)]:
        with pytest.raises(InvalidTimeError, match="must end after it starts"):
            periods.check_period(start, end, "during")
    for bad in ["2020", ("2020",), ("a", "b", "c"), None, (None, "2021")]:
        with pytest.raises(InvalidTimeError, match="during"):
            periods.period_parts(bad, "during")
