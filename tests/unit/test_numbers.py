"""``rules.numbers``: counts and confidences are checked, never coerced."""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from synapse_graph.errors import InvalidInputError
from synapse_graph.rules.numbers import confidence, count
from tests.ci import require


@pytest.mark.parametrize("value", [True, False, 2.0, 2.7, "3", Decimal(2), None, [2]], ids=repr)
def test_a_count_is_a_whole_int(value: object) -> None:
    with pytest.raises(InvalidInputError, match=r"^limit must be a whole number"):
        count(value, field="limit", minimum=1)


@pytest.mark.parametrize(("value", "minimum", "maximum"), [(0, 1, None), (-1, 0, None), (3, 1, 2)])
def test_a_count_out_of_bounds_is_refused(value: int, minimum: int, maximum: int | None) -> None:
    with pytest.raises(InvalidInputError, match=f"got {value}$"):
        count(value, field="hops", minimum=minimum, maximum=maximum)


def test_counts_are_plain_ints() -> None:
    numpy = require("numpy")
    assert count(numpy.int64(2), field="hops", minimum=1, maximum=2) == 2
    assert type(count(numpy.int64(2), field="hops")) is int
    assert count(10**30, field="limit") == 10**30


@given(st.floats(min_value=0.0, max_value=1.0))
def test_a_confidence_is_kept_bit_for_bit(value: float) -> None:
    assert confidence(value).hex() == value.hex()


@pytest.mark.parametrize(
    ("value", "says"),
    [(True, "boolean"), ("0.5", "not a string"), (Decimal("0.5"), "Decimal"), (Fraction(1, 3), "not exactly"),
     (float("nan"), "finite"), (float("-inf"), "finite"), (1.0000000000000002, "between 0 and 1"), (2, "between")],
    ids=repr,
)
def test_a_bad_confidence_is_refused(value: object, says: str) -> None:
    with pytest.raises(InvalidInputError, match=r"^imported confidence") as raised:
        confidence(value, field="imported confidence")
    assert says in str(raised.value)


@pytest.mark.parametrize(("value", "expected"), [(0, 0.0), (1, 1.0), (Fraction(1, 4), 0.25)])
def test_exact_numbers_become_that_float(value: object, expected: float) -> None:
    got = confidence(value)
    assert type(got) is float and got == expected
