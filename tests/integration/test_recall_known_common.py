"""Recall remembers, per scope, which full-text calls of ``recall/memory_lexical_each`` reach their cap (a common
stem, none of whose memories is kept) or find no observation, and does not make them again while the scope's state
is the same (issue 28: the harness's large-scope recall rows). The answer is the one a reader that remembers
nothing gives: when the stems are all common (no call is made at all), when one is rare, and after a write that
makes a common stem rare, on both backends and both APIs."""

from __future__ import annotations

from collections.abc import Callable, Generator
from typing import Any

import pytest

from synapse_graph import Memory, Triple
from synapse_graph.engine import recalling

pytestmark = pytest.mark.integration

PLAYERS = [f"Player{i}" for i in range(10)]


def answer(memory: Memory, question: str) -> list[dict[str, Any]]:
    return [m.model_dump(exclude={"usage"}) for m in memory.recall(question, limit=10).memories]


@pytest.fixture
def scope(memory: Memory, monkeypatch: pytest.MonkeyPatch) -> Memory:
    """A scope searched stem by stem where "plays" and "chess" are common (10 facts, a cap of 6) and "tea" rare."""
    monkeypatch.setattr(recalling, "SMALL_SCOPE", 0)  # as in a scope of 1,000 memories or more
    monkeypatch.setattr(recalling, "POOL", 5)
    monkeypatch.setattr(recalling, "COMMON", 1, raising=False)
    memory.upsert([Triple(subject=p, predicate="PLAYS", object="chess") for p in PLAYERS])
    memory.upsert([Triple(subject="Player3", predicate="DRINKS", object="tea")])
    return memory


@pytest.mark.parametrize("question", ["Who plays chess?", "Who plays chess and drinks tea?"])
def test_known_common_calls_give_the_answer_of_a_reader_that_knows_none(
        scope: Memory, make_memory: Callable[..., Memory], question: str) -> None:
    first = answer(scope, question)
    assert answer(scope, question) == first  # the second time with what the first learned
    assert answer(scope, question) == first
    assert answer(make_memory(scope=scope.scope), question) == first


@pytest.mark.parametrize("question", ["Who plays chess?", "Who plays chess and drinks tea?"])
def test_a_write_that_makes_a_common_stem_rare_is_seen(
        scope: Memory, make_memory: Callable[..., Memory], question: str) -> None:
    reader = make_memory(scope=scope.scope)
    answer(reader, question)
    before = answer(reader, question)
    for player in PLAYERS[:6]:  # 4 facts hold "plays" and "chess" now: below the cap, they are kept
        scope.retract(player, "PLAYS", "chess")
    after = answer(reader, question)
    assert after == answer(make_memory(scope=scope.scope), question)
    assert after != before


def test_a_word_that_now_names_an_entity_reads_the_names_again_not_the_memories(
        scope: Memory, make_memory: Callable[..., Memory], monkeypatch: pytest.MonkeyPatch) -> None:
    scope.recall("Who plays chess?")  # 'player3' not asked: the next recall guesses it names nothing
    trips: list[str] = []
    for name in ("read", "read_rows", "read_each"):
        inner = getattr(recalling, name)

        def counted(*args: Any, _inner: Any = inner, _name: str = name) -> Generator[Any, Any, Any]:
            trips.append(_name)
            return (yield from _inner(*args))

        monkeypatch.setattr(recalling, name, counted)
    found = scope.recall("What does Player3 drink?", limit=10)
    assert trips[:2] == ["read_each", "read"]  # the guess with the memories, then the names alone
    assert [e.name for e in found.entities][:1] == ["Player3"]
    fresh = make_memory(scope=scope.scope).recall("What does Player3 drink?", limit=10)
    assert [m.model_dump(exclude={"usage"}) for m in found.memories] == [
        m.model_dump(exclude={"usage"}) for m in fresh.memories]
    assert found.entities == fresh.entities
