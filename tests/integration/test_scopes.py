"""Scopes: two memories on one database never see or change each other's data."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any

import pytest

from synapse_graph import InvalidScopeError, Memory, Triple
from tests.integration.helpers import objects, populated_scope, snapshot, triples, utc, words

MakeMemory = Callable[..., Memory]


@pytest.fixture
def scope_a(make_memory: MakeMemory, backend_name: str) -> Memory:
    """A populated scope whose data every test below checks is left alone."""
    memory = populated_scope(make_memory, backend_name)
    assert memory.facts("Dana")  # the data the other scope must not see
    return memory


def neighbour_of(make_memory: MakeMemory, scope_a: Memory) -> Memory:
    """A fresh scope whose name starts with A's (so a prefix match would leak)."""
    return make_memory(scope=f"{scope_a.scope}-{uuid.uuid4().hex[:8]}")


@pytest.fixture
def scope_b(make_memory: MakeMemory, scope_a: Memory) -> Memory:
    """A neighbour of A sharing the name Dana but nothing else."""
    memory = neighbour_of(make_memory, scope_a)
    memory.upsert([("Dana", "LIKES", "Jazz"), ("Erin", "KNOWS", "Dana")], valid_at="2024-01-01")
    return memory


B_FACTS = {("Dana", "LIKES", "Jazz"), ("Erin", "KNOWS", "Dana")}


def test_same_entity_and_fact_live_independently(make_memory: MakeMemory) -> None:
    tag = uuid.uuid4().hex[:8]
    a, b = make_memory(scope=f"a-{tag}"), make_memory(scope=f"b-{tag}")
    for memory in (a, b):
        memory.upsert(("Dana", "LIVES_IN", "Paris"), valid_at="2020-01-01")

    [in_a], [in_b] = a.facts("Dana"), b.facts("Dana")
    assert in_a.id != in_b.id
    assert in_a.confirmations == in_b.confirmations == 1  # not one fact confirmed twice

    b.upsert(("Dana", "LIVES_IN", "London"), valid_at="2023-01-01")
    assert objects(a.facts("Dana")) == ["Paris"]
    assert objects(b.facts("Dana")) == ["London"]
    assert (a.stats().entities, b.stats().entities) == (2, 3)


# -- reads in B never see A ------------------------------------------------------------------------


def test_facts_in_b_never_see_a(scope_a: Memory, scope_b: Memory) -> None:
    assert triples(scope_b.facts()) == B_FACTS
    assert triples(scope_b.facts(include_history=True)) == B_FACTS
    assert triples(scope_b.facts("Dana")) == {("Dana", "LIKES", "Jazz")}
    assert triples(scope_b.facts(object="Dana")) == {("Erin", "KNOWS", "Dana")}
    assert scope_b.facts(predicate="LIVES_IN") == []
    assert scope_b.facts(object="Paris") == []
    assert scope_b.facts("Dee") == []  # A's alias
    assert scope_b.facts("Dana", as_of="2021-01-01", known_at=utc("9999-01-01")) == []


def test_history_in_b_never_sees_a(scope_a: Memory, scope_b: Memory) -> None:
    assert triples(scope_b.history("Dana")) == {("Dana", "LIKES", "Jazz")}
    assert scope_b.history("Robert") == []


def test_neighbourhood_in_b_never_sees_a(scope_a: Memory, scope_b: Memory) -> None:
    assert triples(scope_b.neighbourhood("Dana", hops=2)) == B_FACTS
    assert triples(scope_b.neighbourhood("Erin", hops=2)) == B_FACTS
    assert scope_b.neighbourhood("Robert", hops=2) == []


def test_entity_in_b_never_sees_a(scope_a: Memory, scope_b: Memory) -> None:
    dana = scope_b.entity("Dana")
    assert dana is not None and dana.aliases == []
    assert scope_b.entity("Dee") is None
    assert scope_b.entity("Robert") is None
    assert scope_b.entity("Bob") is None


def test_stats_in_b_never_see_a(scope_a: Memory, scope_b: Memory) -> None:
    stats = scope_b.stats()
    assert (stats.entities, stats.aliases, stats.facts, stats.valid_now, stats.expired_records) == (3, 0, 2, 2, 0)


def test_export_in_b_never_sees_a(scope_a: Memory, scope_b: Memory) -> None:
    lines = snapshot(scope_b)
    data = [line for line in lines if line["kind"] not in ("header", "audit")]  # audit: B's own writes
    assert sorted(line["kind"] for line in data) == ["entity"] * 3 + ["fact"] * 2
    assert {line["name"] for line in data if line["kind"] == "entity"} == {"Dana", "Jazz", "Erin"}
    exported = words("\n".join(scope_b.export()))
    for only_in_a in ("Paris", "Berlin", "London", "Acme", "Robert", "Tea", "chat 1", "session-1", "model-x"):
        assert only_in_a.casefold() not in exported
    with pytest.raises(InvalidScopeError):
        list(scope_b.export(scope=scope_a.scope))


# -- writes in B never change A ---------------------------------------------------------------------

WRITES: dict[str, Callable[[Memory, Memory], Any]] = {
    "upsert-new-value": lambda a, b: b.upsert(("Dana", "LIVES_IN", "Oslo"), valid_at="2024-06-01"),
    "upsert-same-fact": lambda a, b: b.upsert(("Dana", "LIVES_IN", "Berlin"), valid_at="2024-02-01"),
    "upsert-late-value": lambda a, b: b.upsert(("Dana", "LIVES_IN", "Rome"), valid_at="2019-06-01"),
    "upsert-replace": lambda a, b: b.upsert(("Bob", "LIKES", "Rock"), replace=True),
    "retract-now": lambda a, b: b.retract("Dana", "LIVES_IN"),
    "retract-at": lambda a, b: b.retract("Dana", "KNOWS", at="2022-01-01"),
    "alias-merge": lambda a, b: b.alias("Dana", "Robert"),
    "alias-name": lambda a, b: b.alias("Paris", "Paname"),
    "same-as-triple": lambda a, b: b.upsert(("Berlin", "SAME_AS", "London")),
    "purge-entity": lambda a, b: b.purge("Dana"),
    "purge-own-scope": lambda a, b: b.purge(scope=b.scope),
    "import": lambda a, b: b.import_(list(a.export())),
}


def seed_like_a(memory: Memory) -> None:
    """In one write, the names and facts of A that the writes above aim at, so a leaking write would find A's."""
    memory.upsert(
        [
            Triple(subject="Dana", predicate="LIVES_IN", object="Berlin", valid_at="2024-01-01"),
            Triple(subject="Dana", predicate="KNOWS", object="Robert", valid_at="2021-06-01"),
            Triple(subject="Bob", predicate="LIKES", object="Jazz", valid_at="2021-01-01"),
            Triple(subject="London", predicate="NEAR", object="Paris", valid_at="2021-01-01"),
        ]
    )


@pytest.mark.parametrize("write", WRITES)
def test_writes_in_b_never_change_a(make_memory: MakeMemory, scope_a: Memory, write: str) -> None:
    scope_b = neighbour_of(make_memory, scope_a)
    if write != "import":
        seed_like_a(scope_b)
    a_before, b_before = snapshot(scope_a), snapshot(scope_b)

    WRITES[write](scope_a, scope_b)

    assert snapshot(scope_b) != b_before  # the write did something...
    assert snapshot(scope_a) == a_before  # ...but only in B


def test_purge_of_another_scope_is_refused(scope_a: Memory, scope_b: Memory) -> None:
    a_before, b_before = snapshot(scope_a), snapshot(scope_b)
    for other in (scope_a.scope, "other"):
        with pytest.raises(InvalidScopeError):
            scope_b.purge(scope=other)
    assert (snapshot(scope_a), snapshot(scope_b)) == (a_before, b_before)


@pytest.mark.parametrize(
    "scope",
    [" ", "has space", "-dash-first", "../escape", "a" * 129, "tab\there", "quote'", "brace}", "ümlaut", "a\x00b", 42],
)
def test_invalid_scope_is_refused(make_memory: MakeMemory, scope: object) -> None:
    with pytest.raises(InvalidScopeError):
        make_memory(scope=scope)


def test_empty_scope_is_refused(memory: Memory) -> None:
    # The fixture turns "" into a fresh scope name, so open this one directly on the same database.
    with pytest.raises(InvalidScopeError):
        Memory(memory.location, scope="")


def test_upsert_writes_only_the_memorys_scope(scope_a: Memory, scope_b: Memory) -> None:
    scope_b.upsert(Triple(subject="Dana", predicate="LIVES_IN", object="Oslo", valid_at="2024-06-01"))
    assert objects(scope_b.facts("Dana", "LIVES_IN")) == ["Oslo"]
    assert objects(scope_a.facts("Dana", "LIVES_IN")) == ["Berlin"]
