"""Recall's cosines in process (issue 28): a memory keeps the embeddings of a small scope's memories and computes
the cosines of the vector leg itself, the store still saying which memories are scanned. A write between two
recalls (a new observation, a forgotten one, a correction, read as known before or after it) is in the second
recall's vector leg, and its answer is the one a memory recalling in the scope for the first time gives, on both
backends (the cosines in process forced on FalkorDB, where they are off by default) and both APIs."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from synapse_graph import Memory, Triple
from synapse_graph.backends.falkordb import AsyncFalkorDBBackend, FalkorDBBackend
from synapse_graph.backends.neo4j import AsyncNeo4jBackend, Neo4jBackend
from synapse_graph.engine import recall_vectors
from synapse_graph.models import Recall
from tests.integration.test_recall import TrigramEmbedder

pytestmark = pytest.mark.integration

SAID = {"Melanie": ["Melanie has a cat named Oliver.", "Melanie paints sunsets by the lake."],
        "Caroline": ["Caroline went to a support group.", "Caroline is researching adoption agencies."]}


@pytest.fixture(autouse=True)
def in_process(monkeypatch: pytest.MonkeyPatch) -> None:
    for backend in (FalkorDBBackend, AsyncFalkorDBBackend, Neo4jBackend, AsyncNeo4jBackend):
        monkeypatch.setattr(backend, "cosines_in_process", True)


def told(memory: Memory) -> Memory:
    for entity, texts in SAID.items():
        memory.observe(entity, texts, entity_type="person")
    return memory


def vector_leg(found: Recall) -> list[tuple[str, float | None]]:
    return [(o.text, o.why.vector) for o in found.observations if "vector" in o.why.legs] + [
        (f"{f.subject} {f.predicate} {f.object}", f.why.vector) for f in found.facts if "vector" in f.why.legs]


def answer(found: Recall) -> list[tuple[Any, ...]]:
    return [(o.id, o.relevance, o.rank, o.why.legs, o.why.vector) for o in found.observations] + [
        (f.id, f.relevance, f.rank, f.why.legs, f.why.vector) for f in found.facts]


def fresh(memory: Memory, make_memory: Callable[..., Memory], question: str, **options: Any) -> Recall:
    """The answer of a memory recalling in the scope for the first time (it keeps no embedding yet)."""
    return make_memory(scope=memory.scope, embedder=TrigramEmbedder()).recall(question, **options)


def test_a_new_observation_is_in_the_next_recalls_vector_leg(make_memory: Callable[..., Memory]) -> None:
    memory = told(make_memory(embedder=TrigramEmbedder()))
    question = "Which pets does Melanie keep?"
    before = memory.recall(question)
    assert "Melanie keeps a hamster named Biscuit." not in [t for t, _ in vector_leg(before)]
    make_memory(scope=memory.scope, embedder=TrigramEmbedder()).observe(
        "Melanie", ["Melanie keeps a hamster named Biscuit."], entity_type="person")
    found = memory.recall(question)
    assert "Melanie keeps a hamster named Biscuit." in [t for t, _ in vector_leg(found)]
    assert answer(found) == answer(fresh(memory, make_memory, question))


def test_a_forgotten_observation_leaves_the_next_recalls_vector_leg(make_memory: Callable[..., Memory]) -> None:
    memory = told(make_memory(embedder=TrigramEmbedder()))
    question = "What does Melanie paint?"
    assert "Melanie paints sunsets by the lake." in [t for t, _ in vector_leg(memory.recall(question))]
    make_memory(scope=memory.scope, embedder=TrigramEmbedder()).unobserve(
        "Melanie", ["Melanie paints sunsets by the lake."])
    found = memory.recall(question)
    assert "Melanie paints sunsets by the lake." not in [o.text for o in found.observations]
    assert answer(found) == answer(fresh(memory, make_memory, question))


def test_a_correction_is_in_the_vector_leg_as_known_before_and_after_it(make_memory: Callable[..., Memory]) -> None:
    memory = told(make_memory(embedder=TrigramEmbedder()))
    memory.upsert(Triple(subject="Dana", predicate="LIVES_IN", object="Paris"))
    question = "Where does Dana live?"
    assert "Dana LIVES_IN Paris" in [t for t, _ in vector_leg(memory.recall(question))]
    corrected = datetime.now(UTC)
    make_memory(scope=memory.scope, embedder=TrigramEmbedder()).upsert(
        Triple(subject="Dana", predicate="LIVES_IN", object="Rome"), replace=True)
    now = [t for t, _ in vector_leg(memory.recall(question))]
    assert "Dana LIVES_IN Rome" in now and "Dana LIVES_IN Paris" not in now
    known_before = corrected - timedelta(microseconds=1)
    then = memory.recall(question, known_at=known_before)
    assert "Dana LIVES_IN Rome" not in [t for t, _ in vector_leg(then)]  # recorded after known_at
    assert answer(then) == answer(fresh(memory, make_memory, question, known_at=known_before))


def test_the_nearest_observations_recorded_after_known_at_leave_the_vector_leg_to_those_recorded_before(
        make_memory: Callable[..., Memory]) -> None:
    # On Neo4j the scan ranks only the best cosines computed in process (recall_vectors.TOP); when fewer than the
    # leg's depth of them are eligible (here none: all recorded after known_at), the scope is scanned.
    memory = told(make_memory(embedder=TrigramEmbedder()))
    recorded = datetime.now(UTC)
    memory.observe("Melanie", [f"Melanie has a cat named Oliver the {n}th." for n in range(1, 81)],
                   entity_type="person")
    question = "Which cat named Oliver does Melanie have?"
    now = [t for t, _ in vector_leg(memory.recall(question, limit=200))]
    assert len(now) == 50 and "Melanie has a cat named Oliver." in now
    then = memory.recall(question, known_at=recorded, limit=200)
    assert {t for t, _ in vector_leg(then)} == {text for texts in SAID.values() for text in texts}
    assert answer(then) == answer(fresh(memory, make_memory, question, known_at=recorded, limit=200))


@pytest.mark.parametrize("api", ["sync"])
def test_an_observation_written_while_recalling_is_in_its_vector_leg(make_memory: Callable[..., Memory],
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    # written after the recall read the scope's state and its embeddings, before it reads the memories: on Neo4j the
    # scan is given the best cosines of the embeddings kept, so the read is checked against the state and repeated
    memory = told(make_memory(embedder=TrigramEmbedder()))
    hamster = "Melanie keeps a hamster named Biscuit."
    fill, written = recall_vectors.fill, []

    def fill_then_write(*args: Any, **options: Any) -> Any:
        yield from fill(*args, **options)
        if not written:
            written.append(hamster)
            make_memory(scope=memory.scope, embedder=TrigramEmbedder()).observe("Melanie", [hamster],
                                                                               entity_type="person")
    monkeypatch.setattr(recall_vectors, "fill", fill_then_write)
    question = "Which pets does Melanie keep?"
    found = make_memory(scope=memory.scope, embedder=TrigramEmbedder()).recall(question)
    assert written and hamster in [t for t, _ in vector_leg(found)]
    monkeypatch.setattr(recall_vectors, "fill", fill)
    assert answer(found) == answer(fresh(memory, make_memory, question))
