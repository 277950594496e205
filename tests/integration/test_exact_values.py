"""Values come back exactly as they were given, or are refused; on every backend.

* Confidences read back bit for bit through ``facts()``, ``export()`` and an import of the
  export, including after a confirmation (FalkorDB prints doubles in its replies with 15
  significant digits: 0.9999999999999999 came back as 1.0, and a confirmation then wrote
  that 1.0 back).
* Times that could only be guessed are refused before anything is written; year-first
  strings with a zone are read exactly.
* A secret is never an entity's name (redacted names merged different entities).
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import pytest

from synapse_graph import InvalidInputError, InvalidNameError, InvalidTimeError, Memory, Triple
from tests.integration.helpers import snapshot

pytestmark = pytest.mark.integration

CONFIDENCES = [
    0.9999999999999999,
    0.1 + 0.2,
    5e-324,
    1 / 3,
    2.2250738585072014e-308,
    math.nextafter(0.5, 1.0),
    0.7,
    1.0,
    0.0,
]


def exported_confidences(memory: Memory) -> dict[str, float]:
    """Confidence of each exported fact by its subject's name (S0, S1...)."""
    lines = [json.loads(line) for line in memory.export()]
    return {line["subject"].upper(): line["confidence"] for line in lines if line["kind"] == "fact"}


def write_confidences(memory: Memory) -> None:
    memory.upsert(
        [Triple(subject=f"S{i}", predicate="RATES", object="Tea", valid_at="2024-01-01", confidence=value)
         for i, value in enumerate(CONFIDENCES)]
    )


def test_confidences_read_back_bit_for_bit(memory: Memory) -> None:
    write_confidences(memory)
    read = {fact.subject: fact.confidence for fact in memory.facts(predicate="RATES")}
    exported = exported_confidences(memory)
    for i, value in enumerate(CONFIDENCES):
        assert read[f"S{i}"].hex() == value.hex(), (i, value, read[f"S{i}"])
        assert exported[f"S{i}"].hex() == value.hex(), (i, value, exported[f"S{i}"])


def test_an_import_keeps_confidences_bit_for_bit(make_memory: Callable[..., Memory]) -> None:
    source = make_memory()
    write_confidences(source)
    target = make_memory()
    target.import_(list(source.export()))
    assert exported_confidences(target) == exported_confidences(source)
    assert {k: v.hex() for k, v in exported_confidences(target).items()} == {
        f"S{i}": value.hex() for i, value in enumerate(CONFIDENCES)
    }


def test_a_confirmation_keeps_the_highest_confidence_given(memory: Memory) -> None:
    lower, higher = math.nextafter(1.0, 0.0) - 2**-53, math.nextafter(1.0, 0.0)  # 0.9999999999999998, ...99
    fact = {"subject": "Dana", "predicate": "LIKES", "object": "Tea", "valid_at": "2024-01-01"}
    memory.upsert(Triple(**fact, confidence=lower))
    memory.upsert(Triple(**fact, confidence=higher))
    memory.upsert(Triple(**fact, confidence=lower))
    [read] = memory.facts("Dana")
    assert read.confirmations == 3
    assert read.confidence.hex() == higher.hex()  # never a rounded 1.0 that no one wrote


def test_a_year_first_time_with_a_zone_is_read_exactly(memory: Memory) -> None:
    memory.upsert(("Dana", "LIVES_IN", "Paris"), valid_at="2024-03-01 09:30 UTC")
    memory.upsert(("Dana", "WORKS_AT", "Acme"), valid_at="2024-03-01 09:30 +0100")
    starts = {fact.predicate: fact.valid_at for fact in memory.facts("Dana")}
    assert starts == {
        "LIVES_IN": datetime(2024, 3, 1, 9, 30, tzinfo=UTC),
        "WORKS_AT": datetime(2024, 3, 1, 8, 30, tzinfo=UTC),
    }


GUESSES = [
    pytest.param(lambda m: m.upsert(("Dana", "LIVES_IN", "Rome"), valid_at="-44-03-15"), "signed year", id="bce"),
    pytest.param(lambda m: m.upsert(("Dana", "LIVES_IN", "Rome"), valid_at="-0001-01-01"), "signed year",
                 id="year-minus-1"),
    pytest.param(lambda m: m.upsert(("Dana", "LIVES_IN", "Rome"), valid_at="03/15/44"), "two-digit year",
                 id="two-digit-year"),
    pytest.param(lambda m: m.upsert({"subject": "Dana", "predicate": "LIVES_IN", "object": "Rome", "valid_at": True}),
                 "boolean", id="boolean-valid-at"),
    pytest.param(lambda m: m.upsert([("Eve", "LIKES", "Tea"),
                                     {"subject": "Dana", "predicate": "LIVES_IN", "object": "Rome",
                                      "invalid_at": False}]), "boolean", id="boolean-invalid-at-in-a-batch"),
    pytest.param(lambda m: m.facts("Dana", as_of="2024-03-01 09:30 PST"), "time-zone abbreviation", id="pst"),
    pytest.param(lambda m: m.retract("Dana", "LIVES_IN", at="2024-03-01 09:30 GMT+3"), "POSIX", id="gmt-plus-3"),
]


@pytest.mark.parametrize(("call", "says"), GUESSES)
def test_times_that_could_only_be_guessed_are_refused(memory: Memory, call: Callable[[Memory], Any], says: str) -> None:
    memory.upsert(("Dana", "LIVES_IN", "Paris"), valid_at="2020-01-01")
    before = snapshot(memory)
    with pytest.raises(InvalidTimeError, match=says):
        call(memory)
    assert snapshot(memory) == before


@pytest.mark.parametrize(
    "value", [True, "high", "0.9", float("nan"), 1.5], ids=["bool", "word", "numeric-text", "nan", "above-1"]
)
def test_a_bad_confidence_is_refused_and_changes_nothing(memory: Memory, value: object) -> None:
    memory.upsert(("Dana", "LIVES_IN", "Paris"), valid_at="2020-01-01")
    before = snapshot(memory)
    with pytest.raises(InvalidInputError, match="confidence"):
        memory.upsert({"subject": "Dana", "predicate": "LIKES", "object": "Tea", "confidence": value})
    assert snapshot(memory) == before


EMAILS = ("dana.smith@example.com", "sam.okafor@example.org")
KEY = "sk-" + "Ab3dE" * 8  # assembled at runtime: no secret-shaped literal in the repository


@pytest.mark.parametrize(
    "names", [EMAILS, (f"Dana's key {KEY}", f"Dana's key {KEY[:-4]}wxyz")], ids=["whole-name", "among-words"]
)
def test_secrets_never_become_shared_entity_names(memory: Memory, names: tuple[str, str]) -> None:
    memory.upsert(("Dana", "LIVES_IN", "Paris"), valid_at="2020-01-01")
    before = snapshot(memory)
    for name in names:
        with pytest.raises(InvalidNameError, match="secret"):
            memory.upsert((name, "LIKES", "Tea"))
    assert snapshot(memory) == before  # before the fix both became one entity, [REDACTED:...], sharing its facts
