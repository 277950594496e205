"""Recall's round trips (issue 28: recall's p95 with MiniLM within 1.5x of dense): a memory's first recall in a
scope reads the scope's state and how many names each word of the question matches, then the memories; a later
recall (with an embedder too: the words that name an entity are left out of what it embeds) guesses the first
from what the last one read and reads it again with the memories, in one round trip,
and starts again from what it read when the guess was wrong (a write since, or a word that now names an
entity). The answer is the one a memory recalling in the scope for the first time gives, on both backends and
both APIs."""

from __future__ import annotations

from collections.abc import Callable, Generator
from typing import Any

import pytest

from synapse_graph import Memory
from synapse_graph.engine import recalling
from synapse_graph.models import Recall
from tests.integration.test_recall import RecordingEmbedder, TrigramEmbedder

pytestmark = pytest.mark.integration

SAID = {"Melanie": ["Melanie has a cat named Oliver.", "Melanie paints sunsets by the lake.",
                    "Melanie ran a charity race for mental health."],
        "Caroline": ["Caroline went to a support group.", "Caroline is researching adoption agencies."]}


def round_trips(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """One entry a round trip recall makes (a read, or reads sent together), on every backend and API."""
    trips: list[int] = []
    for name in ("read", "read_rows", "read_each"):
        inner = getattr(recalling, name)

        def counted(*args: Any, _inner: Any = inner) -> Generator[Any, Any, Any]:
            trips.append(1)
            return (yield from _inner(*args))

        monkeypatch.setattr(recalling, name, counted)
    return trips


def told(memory: Memory) -> Memory:
    for entity, texts in SAID.items():
        memory.observe(entity, texts, entity_type="person")
    return memory


def answer(found: Recall) -> list[tuple[Any, ...]]:
    return [(o.id, o.entity, o.relevance, o.score, o.rank, o.why.legs, o.why.lexical) for o in found.observations] + [
        (e.key, e.lexical_score) for e in found.entities]


def test_a_later_recall_is_one_round_trip_with_the_first_recalls_answer(
        make_memory: Callable[..., Memory], monkeypatch: pytest.MonkeyPatch) -> None:
    memory = told(make_memory())
    memory.recall("What does Melanie paint?")
    trips = round_trips(monkeypatch)
    found = memory.recall("What animals does Melanie have?")
    assert len(trips) == 1
    assert found.observations[0].text == "Melanie has a cat named Oliver."
    assert answer(found) == answer(make_memory(scope=memory.scope).recall("What animals does Melanie have?"))


def test_a_write_since_the_last_recall_is_seen_and_a_word_that_now_names_an_entity(
        make_memory: Callable[..., Memory]) -> None:
    memory = told(make_memory())
    other = make_memory(scope=memory.scope)
    before = memory.recall("What does Oliver like?")  # 'oliver' names no entity yet
    assert [e.name for e in before.entities] == []
    other.observe("Oliver", ["Oliver likes tuna and naps in the sun."], entity_type="animal")
    found = memory.recall("What does Oliver like?")
    assert [e.name for e in found.entities] == ["Oliver"]
    assert found.observations[0].text == "Oliver likes tuna and naps in the sun."
    assert answer(found) == answer(make_memory(scope=memory.scope).recall("What does Oliver like?"))


def test_with_an_embedder_a_later_recall_is_one_round_trip_with_the_first_recalls_answer(
        make_memory: Callable[..., Memory], monkeypatch: pytest.MonkeyPatch) -> None:
    embedder = RecordingEmbedder(TrigramEmbedder())
    memory = told(make_memory(embedder=embedder))
    memory.recall("What does Melanie paint?")
    trips = round_trips(monkeypatch)
    embedder.calls.clear()
    found = memory.recall("What animals does Melanie have?")
    assert len(trips) == 1
    assert embedder.calls == [["What animals does have?"]]  # the name guessed to name Melanie, left out
    assert found.observations[0].text == "Melanie has a cat named Oliver."
    first = make_memory(scope=memory.scope, embedder=TrigramEmbedder()).recall("What animals does Melanie have?")
    assert answer(found) == answer(first) and [o.why.vector for o in found.observations] == [
        o.why.vector for o in first.observations]


def test_with_an_embedder_a_word_that_now_names_an_entity_is_left_out_of_what_is_embedded(
        make_memory: Callable[..., Memory]) -> None:
    embedder = RecordingEmbedder(TrigramEmbedder())
    memory = told(make_memory(embedder=embedder))
    other = make_memory(scope=memory.scope, embedder=TrigramEmbedder())
    memory.recall("What does Oliver like?")  # 'oliver' names no entity yet
    other.observe("Oliver", ["Oliver likes tuna and naps in the sun."], entity_type="animal")
    embedder.calls.clear()
    found = memory.recall("What does Oliver like?")
    assert embedder.calls[-1] == ["What does like?"]  # the guess (Oliver names nothing) was wrong: embedded again
    assert [e.name for e in found.entities] == ["Oliver"]
    assert found.observations[0].text == "Oliver likes tuna and naps in the sun."
    first = make_memory(scope=memory.scope, embedder=TrigramEmbedder()).recall("What does Oliver like?")
    assert answer(found) == answer(first)


def test_in_a_larger_scope_a_new_word_naming_an_entity_is_embedded_again_without_it(
        make_memory: Callable[..., Memory], monkeypatch: pytest.MonkeyPatch) -> None:
    # A larger scope keeps its memories read when only the name hits were guessed wrong (the same state); with an
    # embedder that holds only when the text embedded is the same, so a new word naming an entity reads them again.
    monkeypatch.setattr(recalling, "SMALL_SCOPE", 0)  # as in a scope of 1,000 memories or more
    embedder = RecordingEmbedder(TrigramEmbedder())
    memory = told(make_memory(embedder=embedder))
    memory.observe("Oliver", ["Oliver likes tuna and naps in the sun."], entity_type="animal")
    memory.recall("What does Melanie paint?")  # 'oliver' not asked yet: guessed to name nothing
    embedder.calls.clear()
    found = memory.recall("What does Oliver like?")
    assert embedder.calls == [["What does Oliver like?"], ["What does like?"]]
    assert found.observations[0].text == "Oliver likes tuna and naps in the sun."
    first = make_memory(scope=memory.scope, embedder=TrigramEmbedder()).recall("What does Oliver like?")
    assert answer(found) == answer(first) and [o.why.vector for o in found.observations] == [
        o.why.vector for o in first.observations]
