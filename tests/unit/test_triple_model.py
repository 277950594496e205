"""``Triple``: bad field values raise a SynapseError naming the field, and nothing is coerced.

Before, ``Triple(valid_at=True)`` was kept as the epoch second 1 (1970-01-01T00:00:01),
``confidence=True`` as 1.0, ``subject=b"Dana"`` as ``"Dana"`` and ``confidence="0.5"`` as 0.5,
and ``confidence="high"`` raised pydantic's ValidationError, which is no SynapseError.
"""

from __future__ import annotations

import math
from datetime import UTC, date, datetime
from decimal import Decimal
from fractions import Fraction
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from synapse_graph import SynapseError, Triple
from synapse_graph.errors import InvalidInputError, InvalidTimeError
from tests.ci import require

BASE: dict[str, Any] = {"subject": "Dana", "predicate": "LIVES_IN", "object": "Paris"}


def make(**fields: Any) -> Triple:
    return Triple(**{**BASE, **fields})


@pytest.mark.parametrize("field", ["valid_at", "invalid_at"])
@pytest.mark.parametrize("value", [True, False])
def test_a_boolean_is_not_a_time(field: str, value: bool) -> None:
    with pytest.raises(InvalidTimeError, match=rf"^Triple {field}: .*boolean"):
        make(**{field: value})


@pytest.mark.parametrize("field", ["valid_at", "invalid_at"])
@pytest.mark.parametrize("value", [b"2024-03-01", Decimal("1709285400"), [2024, 3, 1], object()],
                         ids=lambda v: type(v).__name__)
def test_other_types_are_not_times(field: str, value: object) -> None:
    with pytest.raises(InvalidTimeError, match=rf"^Triple {field}: expected a datetime"):
        make(**{field: value})


@pytest.mark.parametrize(
    ("value", "says"),
    [
        (True, "boolean"),
        (False, "boolean"),
        ("high", "not a string"),
        ("0.5", "not a string"),
        (Decimal("0.5"), "Decimal"),
        (float("nan"), "finite"),
        (float("inf"), "finite"),
        (1.5, "between 0 and 1"),
        (-0.1, "between 0 and 1"),
        ([0.5], "list"),
    ],
)
def test_a_bad_confidence_is_an_input_error_naming_the_field(value: object, says: str) -> None:
    with pytest.raises(InvalidInputError, match=r"^Triple confidence") as raised:
        make(confidence=value)
    assert isinstance(raised.value, SynapseError)
    assert says in str(raised.value)
    assert "between 0 and 1" in str(raised.value)  # what to do
    assert isinstance(raised.value.__cause__, ValidationError)


@pytest.mark.parametrize(
    ("fields", "says"),
    [
        ({"subject": b"Dana"}, "subject must be a string"),
        ({"object": 7}, "object must be a string"),
        ({"predicate": None}, "predicate must be a string"),
        ({"subject_type": 3}, "subject_type must be a string"),
        ({"colour": "blue"}, "no field 'colour'"),
    ],
)
def test_other_bad_fields_are_input_errors(fields: dict[str, Any], says: str) -> None:
    with pytest.raises(InvalidInputError, match=says):
        make(**fields)


def test_a_missing_field_is_an_input_error() -> None:
    with pytest.raises(InvalidInputError, match="object is missing"):
        Triple(subject="Dana", predicate="LIVES_IN")  # type: ignore[call-arg]


def test_every_bad_field_is_named() -> None:
    with pytest.raises(InvalidInputError) as raised:
        make(confidence="high", valid_at=True)
    assert "confidence" in str(raised.value) and "valid_at" in str(raised.value)


def test_model_validate_raises_the_same_errors() -> None:
    with pytest.raises(InvalidTimeError, match=r"^Triple valid_at"):
        Triple.model_validate({**BASE, "valid_at": True})
    assert Triple.model_validate(BASE) == Triple(**BASE)


@pytest.mark.parametrize(
    "value",
    ["2024-03-01", "01/02/2024", datetime(2024, 3, 1, tzinfo=UTC), datetime(2024, 3, 1), date(2024, 3, 1),
     1709285400, 1709285400.25, -1, 10**30],
    ids=repr,
)
def test_times_are_kept_as_given(value: object) -> None:
    # The model checks the kind only; the time rules read it (and refuse "01/02/2024") at write time.
    triple = make(valid_at=value, invalid_at=value)
    assert triple.valid_at is value and triple.invalid_at is value


@given(st.floats(min_value=0.0, max_value=1.0))
def test_confidence_is_kept_bit_for_bit(value: float) -> None:
    kept = make(confidence=value).confidence
    assert type(kept) is float and kept.hex() == value.hex()


@pytest.mark.parametrize("value", [0, 1])
def test_integer_confidences_become_floats(value: int) -> None:
    kept = make(confidence=value).confidence
    assert type(kept) is float and kept == value


def test_numpy_scalars_are_plain_numbers() -> None:
    numpy = require("numpy")
    kept = make(confidence=numpy.float64(0.9999999999999999)).confidence
    assert type(kept) is float and kept == 0.9999999999999999
    assert make(confidence=numpy.float32(0.5)).confidence == 0.5
    assert make(valid_at=numpy.float64(1.5)).valid_at == 1.5  # a float64 is a float: epoch seconds
    kept_time = make(valid_at=numpy.int64(5)).valid_at
    assert type(kept_time) is numpy.int64  # kept as given (not turned into the float 5.0); read exactly later
    with pytest.raises(InvalidInputError, match="not exactly a float"):
        make(confidence=Fraction(1, 3))
    assert make(confidence=Fraction(1, 4)).confidence == 0.25


def test_none_and_defaults() -> None:
    triple = make(valid_at=None, confidence=None)
    assert (triple.valid_at, triple.invalid_at, triple.confidence) == (None, None, None)
    assert not math.isnan(make(confidence=0.0).confidence or 0.0)
