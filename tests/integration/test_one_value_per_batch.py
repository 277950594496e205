"""One batch, one value per instant: a batch giving an entity two values of a single-valued predicate from the
same instant is refused whole (both backends, both APIs); values from different instants make a timeline."""

from __future__ import annotations

from typing import Any

import pytest

from synapse_graph import ConflictingValuesError, InvalidInputError, Memory, Triple
from tests.integration.helpers import snapshot, spans, utc


@pytest.mark.parametrize("options", [{}, {"valid_at": "2024-03-01"}], ids=["now", "given-instant"])
def test_two_values_of_a_single_valued_predicate_at_one_instant_are_refused_whole(
        memory: Memory, options: dict[str, Any]) -> None:
    memory.upsert(("Alice", "LIVES_IN", "Paris"), valid_at="2020-01-01")
    before = snapshot(memory)
    with pytest.raises(ConflictingValuesError) as refused:
        memory.upsert([("Bob", "KNOWS", "Alice"), ("Alice", "WORKS_AT", "Acme"), ("Alice", "WORKS_AT", "Globex")],
                      **options)
    message = str(refused.value)
    assert all(word in message for word in ("'Alice'", "WORKS_AT", "'Acme'", "'Globex'", "Nothing was written"))
    assert refused.value.indexes == (1, 2)
    assert isinstance(refused.value, InvalidInputError)
    assert snapshot(memory) == before  # nothing written, not even Bob's fact
    assert memory.entity("Bob") is None


def test_replace_makes_any_predicate_one_valued_per_batch(memory: Memory) -> None:
    memory.upsert(("Alice", "LIKES", "Tea"))
    before = snapshot(memory)
    with pytest.raises(ConflictingValuesError, match="'Coffee' and 'Cocoa'"):
        memory.upsert([("Alice", "LIKES", "Coffee"), ("Alice", "LIKES", "Cocoa")], replace=True)
    assert snapshot(memory) == before
    both = memory.upsert([("Alice", "LIKES", "Coffee"), ("Alice", "LIKES", "Cocoa")])  # not one-valued: both hold
    assert both.created == 2


def test_an_alias_of_the_same_value_is_no_conflict_and_an_alias_of_the_subject_is_one(memory: Memory) -> None:
    memory.upsert(("Acme Corporation", "LOCATED_IN", "Berlin"))
    memory.alias("Acme Corporation", "Acme")
    memory.alias("Alice", "Al")
    same = memory.upsert([("Alice", "WORKS_AT", "Acme"), ("Al", "WORKS_AT", "Acme Corporation")])
    assert (same.created, same.confirmed) == (1, 1)
    with pytest.raises(ConflictingValuesError, match="'Globex'"):
        memory.upsert([("Alice", "WORKS_AT", "Initech"), ("Al", "WORKS_AT", "Globex")], valid_at="2030-01-01")


def test_values_from_different_instants_in_one_batch_make_a_timeline(memory: Memory) -> None:
    # Given out of order: the earlier is closed where the later begins, and both stay.
    result = memory.upsert([Triple(subject="Alice", predicate="WORKS_AT", object="Globex", valid_at="2024-06-01"),
                            Triple(subject="Alice", predicate="WORKS_AT", object="Acme", valid_at="2023-01-01")])
    assert result.created == 2
    assert spans(memory.history("Alice", "WORKS_AT")) == [
        ("Acme", utc("2023-01-01"), utc("2024-06-01")), ("Globex", utc("2024-06-01"), None)]
    assert [f.object for f in memory.facts("Alice", "WORKS_AT")] == ["Globex"]


def test_a_models_low_confidence_values_stay_candidates_side_by_side(memory: Memory) -> None:
    threshold = memory.rules().candidate_below
    low = threshold / 2
    result = memory.upsert([Triple(subject="Alice", predicate="WORKS_AT", object="Acme", confidence=low),
                            Triple(subject="Alice", predicate="WORKS_AT", object="Globex", confidence=low)],
                           model="local-model")
    assert result.created == 2
    assert sorted(f.object for f in memory.pending()) == ["Acme", "Globex"]
    # One believed value beside a candidate of another is no conflict either: they keep separate timelines.
    mixed = memory.upsert([Triple(subject="Bob", predicate="WORKS_AT", object="Acme", confidence=1.0),
                           Triple(subject="Bob", predicate="WORKS_AT", object="Globex", confidence=low)],
                          model="local-model")
    assert mixed.created == 2
    assert [f.object for f in memory.facts("Bob", "WORKS_AT")] == ["Acme"]
    assert [f.object for f in memory.pending() if f.subject == "Bob"] == ["Globex"]


@pytest.mark.parametrize("position", [0, 1, 2], ids=["same-as-first", "same-as-between", "same-as-last"])
@pytest.mark.parametrize("known", [False, True], ids=["new-names", "stored-entities"])
def test_two_values_that_meet_only_through_the_batchs_own_same_as_are_refused_whole(
        memory: Memory, position: int, known: bool) -> None:
    """Ann and Bob each given a home from one instant, and SAME_AS(Ann, Bob) anywhere in the batch: merged they
    are one entity with two values at one instant, refused like the same values given to one name, alias and
    merge included (the store holds what it did before, and no change is listed)."""
    if known:
        memory.upsert([("Ann", "KNOWS", "Cat"), ("Bob", "KNOWS", "Dan")], valid_at="2020-01-01")
    before, since = snapshot(memory), memory.changes(utc("2000-01-01")).changes
    at = "2024-01-01T00:00:00+00:00"
    triples = [Triple(subject="Ann", predicate="LIVES_IN", object="Ann", valid_at=at),
               Triple(subject="Bob", predicate="LIVES_IN", object="Cat", valid_at=at, invalid_at="2024-06-01")]
    triples.insert(position, Triple(subject="Ann", predicate="SAME_AS", object="Bob"))
    with pytest.raises(ConflictingValuesError, match="'Cat'"):
        memory.upsert(triples)
    assert snapshot(memory) == before
    assert memory.changes(utc("2000-01-01")).changes == since
    assert (memory.entity("Bob") is None) is not known
