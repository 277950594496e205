"""Duplicate proposals kept by a memory between calls (issue 31: the review page after a write): after each kind of
write the kept answer is the one a memory that never read the scope before gives, on both backends and APIs."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from synapse_graph import DuplicateProposal, Memory, Triple
from synapse_graph.catalogue import Q
from tests.integration.plans import statements_of
from tests.integration.test_duplicates import dana_twice

pytestmark = pytest.mark.integration


def people(memory: Memory) -> None:
    """Dana written twice (test_duplicates), and more pairs that share neighbours, some weakly named."""
    dana_twice(memory)
    memory.upsert([
        Triple(subject="Alan Alda", predicate="WORKS_AT", object="Studio 8", valid_at="2019-01-01"),
        Triple(subject="Alan Alda", predicate="LIVES_IN", object="Lyon", valid_at="2019-01-01"),
        Triple(subject="Alan J. Alda", predicate="WORKS_AT", object="Studio 8", valid_at="2019-06-01"),
        Triple(subject="Maria Lopez", predicate="WORKS_AT", object="Globex", valid_at="2018-01-01"),
        Triple(subject="Maria López", predicate="LIVES_IN", object="Madrid", valid_at="2018-01-01"),
        *(Triple(subject=f"Resident {i}", predicate="LIKES", object="Jazz", valid_at="2018-01-01") for i in range(12)),
    ])


def compare(kept: Memory, fresh: Callable[[], Memory]) -> list[DuplicateProposal]:
    """The proposals the kept memory answers, checked against a full read by a memory that kept nothing."""
    found = kept.duplicates(limit=1_000)
    assert found == fresh().duplicates(limit=1_000)
    return found


def scores(found: list[DuplicateProposal]) -> dict[tuple[str, str], float]:
    return {(p.canonical, p.other): p.score for p in found}


def test_kept_proposals_equal_a_full_read_after_every_kind_of_write(make_memory: Callable[..., Memory]) -> None:
    kept = make_memory()
    people(kept)

    def fresh() -> Memory:
        return make_memory(scope=kept.scope)

    first = compare(kept, fresh)
    assert ("Maria López", "Maria Lopez") in scores(first) or ("Maria Lopez", "Maria López") in scores(first)
    assert compare(kept, fresh) == first  # nothing written: the same

    kept.observe("Alan Alda", ["Plays the piano"])  # no name, no fact changed
    assert compare(kept, fresh) == first

    kept.upsert(Triple(subject="Maria Lopez", predicate="LIVES_IN", object="Madrid", valid_at="2018-02-01"))
    shared = compare(kept, fresh)  # a fact between existing entities: a shared neighbour now
    assert scores(shared) != scores(first)

    others = make_memory(scope=kept.scope)  # another writer, no entity created: Madrid becomes a common neighbour
    others.upsert([Triple(subject=f"Resident {i}", predicate="LIVES_IN", object="Madrid", valid_at="2019-01-01")
                   for i in range(12)])
    common = compare(kept, fresh)
    assert scores(common) != scores(shared)

    [lopez_home] = [f for f in kept.facts("Maria Lopez", "LIVES_IN")]
    kept.feedback(lopez_home, "wrong")
    compare(kept, fresh)
    kept.retract("Alan J. Alda", "WORKS_AT", "Studio 8")
    compare(kept, fresh)

    kept.upsert(Triple(subject="A. Alda", predicate="WORKS_AT", object="Studio 8", valid_at="2020-01-01"))
    created = compare(kept, fresh)  # a new entity that matches
    assert any("A. Alda" in (p.canonical, p.other) for p in created)

    dana = next(p for p in created if {p.canonical, p.other} == {"Dana Reyes", "D. Reyes"})
    kept.approve_duplicate(dana)  # a merge
    merged = compare(kept, fresh)
    assert not any("D. Reyes" in (p.canonical, p.other) for p in merged)

    rejected = merged[0]
    kept.reject_duplicate(rejected, reason="two people")
    assert rejected not in compare(kept, fresh)


def test_kept_proposals_take_in_new_entities_without_reading_every_name_again(
        make_memory: Callable[..., Memory]) -> None:
    """A write that creates entities (the commonest) brings the kept proposals up to date from the new names alone:
    their pairs are found, the pairs whose evidence they change (how rare a family name is, how many entities a
    shorter name fits) are scored again, and nothing reads every entity of the scope."""
    kept = make_memory()
    people(kept)

    def fresh() -> Memory:
        return make_memory(scope=kept.scope)

    compare(kept, fresh)
    writes = [
        Triple(subject="A. Alda", predicate="WORKS_AT", object="Studio 8", valid_at="2020-01-01"),  # an initial
        Triple(subject="Maria Lopes", predicate="LIVES_IN", object="Madrid", valid_at="2018-01-01"),  # a typo
        Triple(subject="Dana", predicate="LIVES_IN", object="Lyon", valid_at="2020-01-01"),  # one word
        Triple(subject="Resident", predicate="LIKES", object="Jazz", valid_at="2018-01-01"),  # fits twelve
        Triple(subject="Arlene Alda", predicate="LIVES_IN", object="Lyon", valid_at="2021-01-01"),  # A. Alda fits two
        Triple(subject="Alan Alda", subject_type="Person", predicate="LIVES_IN", object="Lyon",
               valid_at="2019-01-01"),  # a type given
    ]
    answers: list[list[DuplicateProposal]] = []
    for triple in writes:
        kept.upsert(triple)
        read = statements_of(kept, lambda: answers.append(compare(kept, fresh)))
        found = answers[-1]
        assert Q.SCOPE_ENTITIES not in {name for name, _ in read}, triple
        if triple.subject in {"A. Alda", "Maria Lopes"}:
            assert any(triple.subject in (p.canonical, p.other) for p in found), (triple, found)
