"""Aliases: merging an entity into another, chains, idempotence, resolution by alias, `me` -> User."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from synapse_graph import Memory, Triple
from tests.integration.helpers import objects, snapshot, spans, utc

MERGES: dict[str, Callable[[Memory], bool]] = {
    "alias-call": lambda memory: memory.alias("Robert", "Bob").merged,
    "same-as-triple": lambda memory: memory.upsert(("Robert", "SAME_AS", "Bob")).aliases_merged == 1,
}


def bob_and_robert(memory: Memory) -> None:
    """One person written down under two names, each with facts, history and a shared fact."""
    memory.upsert(
        [
            Triple(subject="Bob", predicate="LIVES_IN", object="Paris", valid_at="2019-01-01"),
            Triple(subject="Bob", predicate="LIKES", object="Tea", valid_at="2020-01-01", invalid_at="2021-06-01",
                   confidence=0.9),
            Triple(subject="Carol", predicate="KNOWS", object="Bob", valid_at="2018-01-01"),
        ]
    )
    memory.upsert(Triple(subject="Bob", predicate="LIVES_IN", object="London", valid_at="2022-01-01"))
    robert_tea = Triple(subject="Robert", predicate="LIKES", object="Tea", valid_at="2021-01-01",
                        invalid_at="2022-01-01", confidence=0.5)
    memory.upsert(robert_tea)
    memory.upsert(robert_tea)  # confirmed: 2 confirmations


@pytest.mark.parametrize("merge", MERGES)
def test_merge_moves_facts_and_history_onto_the_canonical_entity(memory: Memory, merge: str) -> None:
    bob_and_robert(memory)
    first_written = memory.history("Carol")[0].recorded_at
    entities = memory.stats().entities

    assert MERGES[merge](memory) is True

    assert memory.stats().entities == entities - 1
    assert spans(memory.history("Robert", "LIVES_IN")) == [
        ("Paris", utc("2019-01-01"), utc("2022-01-01")),
        ("London", utc("2022-01-01"), None),
    ]
    # Belief history moved too: what the store believed before London was known.
    assert spans(memory.history("Robert", "LIVES_IN", known_at=first_written)) == [("Paris", utc("2019-01-01"), None)]
    # The shared fact: intervals united, confirmations summed, highest confidence kept.
    [tea] = memory.history("Robert", "LIKES")
    assert spans([tea]) == [("Tea", utc("2020-01-01"), utc("2022-01-01"))]
    assert (tea.confirmations, tea.confidence) == (3, 0.9)
    assert memory.facts("Robert", "LIKES", as_of="2021-03-01") == [tea]  # once, not once per former entity
    # Facts pointing at Bob now point at Robert.
    assert [(f.subject, f.object) for f in memory.facts(object="Robert")] == [("Carol", "Robert")]


def test_alias_says_what_it_merged(memory: Memory) -> None:
    bob_and_robert(memory)
    result = memory.alias("Robert", "bob")
    # Bob's records: Paris and London (LIVES_IN), Tea (LIKES), Carol KNOWS Bob; history moves with them.
    assert (result.canonical, result.alias, result.changed, result.merged, result.facts_moved) == (
        "Robert", "bob", True, True, 4)
    assert str(result) == "'bob' is now an alias of 'Robert' (entities merged: 4 fact records moved)"
    assert memory.audit()[0].action == "alias"


@pytest.mark.parametrize("merge", MERGES)
def test_merged_entity_disappears_and_its_name_becomes_an_alias(memory: Memory, merge: str) -> None:
    bob_and_robert(memory)
    MERGES[merge](memory)

    bob = memory.entity("Bob")
    assert bob is not None
    assert bob == memory.entity("Robert")
    assert bob.name == "Robert"
    assert bob.aliases == ["Bob"]
    stored = snapshot(memory)
    assert "bob" not in [line["key"] for line in stored if line["kind"] == "entity"]
    assert {"kind": "alias", "key": "bob", "name": "Bob", "target": "robert"} in stored
    records = [line for line in stored if line["kind"] == "fact"]
    assert records and all("bob" not in (line["subject"], line["object"]) for line in records)


@pytest.mark.parametrize("order", ["C-to-B-first", "B-to-A-first"])
def test_alias_chains_resolve_to_the_end(memory: Memory, order: str) -> None:
    memory.upsert([("Robert", "LIKES", "Tea"), ("Bob", "LIKES", "Jazz"), ("Bobby", "LIKES", "Chess")])
    steps = [("Bob", "Bobby"), ("Robert", "Bob")]
    for canonical, alias in steps if order == "C-to-B-first" else reversed(steps):
        memory.alias(canonical, alias)

    robert = memory.entity("Robert")
    assert robert is not None
    assert sorted(robert.aliases) == ["Bob", "Bobby"]
    for name in ("Robert", "Bob", "Bobby"):
        assert memory.entity(name) == robert
        assert sorted(objects(memory.facts(name))) == ["Chess", "Jazz", "Tea"]
    assert memory.stats().entities == 4  # Robert, Tea, Jazz, Chess


@pytest.mark.parametrize("merge", MERGES)
def test_merging_twice_changes_nothing(memory: Memory, merge: str) -> None:
    bob_and_robert(memory)
    MERGES[merge](memory)
    before = (memory.stats(), snapshot(memory), memory.facts(include_history=True))

    assert MERGES[merge](memory) is False
    assert (memory.stats(), snapshot(memory), memory.facts(include_history=True)) == before


def test_a_new_alias_name_is_recorded_once(memory: Memory) -> None:
    memory.upsert(("Robert", "LIKES", "Tea"))
    first = memory.alias("Robert", "Rob")  # no entity merged, only a name added
    assert (first.changed, first.merged, first.facts_moved) == (True, False, 0)
    before = (memory.stats(), snapshot(memory), len(memory.audit()))

    again = memory.alias("Robert", "Rob")
    assert (again.changed, again.merged) == (False, False)
    assert str(again) == "nothing changed: 'Rob' already names 'Robert'"
    assert memory.upsert(("Robert", "SAME_AS", "Rob")).aliases_merged == 0
    assert (memory.stats(), snapshot(memory), len(memory.audit())) == before  # nothing written, nothing logged
    robert = memory.entity("Rob")
    assert robert is not None
    assert (robert.name, robert.aliases) == ("Robert", ["Rob"])


def test_reads_and_writes_by_alias_resolve_to_the_canonical_entity(memory: Memory) -> None:
    memory.upsert(("Robert", "LIVES_IN", "Paris"), valid_at="2020-01-01")
    memory.alias("Robert", "Bob")
    entities = memory.stats().entities

    memory.upsert(("Bob", "WORKS_AT", "Acme"), valid_at="2021-01-01")
    memory.upsert(("Carol", "KNOWS", "BOB"), valid_at="2021-01-01")  # names match case-insensitively
    assert memory.stats().entities == entities + 2  # Acme and Carol; no entity Bob

    assert [(f.subject, f.object) for f in memory.facts("Bob")] == [("Robert", "Paris"), ("Robert", "Acme")]
    assert memory.history("Bob") == memory.history("Robert")
    assert [(f.subject, f.object) for f in memory.facts(object="bob")] == [("Carol", "Robert")]
    assert len(memory.neighbourhood("Bob")) == 3
    assert memory.retract("Bob", "WORKS_AT", "Acme") == 1
    assert objects(memory.facts("Robert")) == ["Paris"]


def test_first_person_words_all_mean_the_user(memory: Memory) -> None:
    memory.upsert(
        [
            ("me", "LIKES", "Tea"),
            ("I", "LIKES", "Jazz"),
            ("user", "LIKES", "Chess"),
            ("  MySelf ", "LIKES", "Go"),
            ("Dana", "KNOWS", "me"),
        ]
    )
    user = memory.entity("User")
    assert user is not None and user.name == "User"
    for word in ("me", "I", "user", "myself", "ME"):
        assert memory.entity(word) == user
    assert sorted(objects(memory.facts("me"))) == ["Chess", "Go", "Jazz", "Tea"]
    assert {f.subject for f in memory.facts("i")} == {"User"}
    assert objects(memory.facts("Dana")) == ["User"]
    assert memory.stats().entities == 6  # User, Tea, Jazz, Chess, Go, Dana
