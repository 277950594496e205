"""Recall as believed at an earlier time (``known_at``): a memory corrected or forgotten since was believed then, so
every leg that reads memories (full-text, vector; the graph leg already did) finds it, and one recorded after that
time is in none. A scope of store format 13 (Neo4j: expired memories without a search token) finds them once
opened (format 14). Both backends, both APIs, with and without an embedder."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta

import pytest

from synapse_graph import Memory, Triple
from synapse_graph.catalogue import Q
from synapse_graph.engine.migrations import HISTORY_TOKEN_FORMAT
from synapse_graph.engine.scope import STORE_FORMAT
from synapse_graph.instants import Instant
from synapse_graph.models import Recall
from synapse_graph.rules.timeparse import now_micros
from tests.integration.helpers import raw_cypher
from tests.integration.test_recall import TrigramEmbedder

pytestmark = pytest.mark.integration

QUESTION = "Which city does someone live in?"  # names no entity: the graph leg cannot find the facts
FLAT = "Melanie rents a flat by the city harbour."


def found(recalled: Recall) -> list[tuple[str, str]]:
    return [(f.subject, f.object) for f in recalled.facts] + [("observed", o.text) for o in recalled.observations]


def corrected(memory: Memory, again: Callable[[], Memory]) -> datetime:
    """Dana lives in Paris and Melanie rents a flat, then (the returned instant) Dana lives in Rome instead and
    the flat is forgotten, written by another memory of the scope."""
    memory.upsert(Triple(subject="Dana", predicate="LIVES_IN", object="Paris", valid_at="2020-01-01"))
    memory.observe("Melanie", [FLAT, "Melanie has a cat named Oliver."], entity_type="person")
    assert {("Dana", "Paris"), ("observed", FLAT)} <= set(found(memory.recall(QUESTION)))
    at = datetime.now(UTC)
    other = again()
    other.upsert(Triple(subject="Dana", predicate="LIVES_IN", object="Rome", valid_at="2020-01-01"), replace=True)
    other.unobserve("Melanie", [FLAT])
    return at


@pytest.mark.parametrize("embedded", [False, True], ids=["lexical", "vector"])
def test_memories_corrected_or_forgotten_since_are_recalled_as_believed_before(
        make_memory: Callable[..., Memory], embedded: bool) -> None:
    first = make_memory(embedder=TrigramEmbedder()) if embedded else make_memory()

    def again() -> Memory:
        options = {"embedder": TrigramEmbedder()} if embedded else {}
        return make_memory(scope=first.scope, **options)

    before = corrected(first, again) - timedelta(microseconds=1)
    for memory in (first, again()):  # one that recalled before the correction, one that never did
        now, then = set(found(memory.recall(QUESTION))), set(found(memory.recall(QUESTION, known_at=before)))
        assert ("Dana", "Rome") in now and not {("Dana", "Paris"), ("observed", FLAT)} & now
        assert {("Dana", "Paris"), ("observed", FLAT)} <= then and ("Dana", "Rome") not in then
        if not embedded:  # the full-text leg alone: exactly what holds the question's words
            assert (sorted(now), sorted(then)) == ([("Dana", "Rome")], [("Dana", "Paris"), ("observed", FLAT)])


@pytest.mark.parametrize("api", ["sync"])
def test_a_scope_of_format_13_recalls_its_expired_memories_as_believed_before_once_opened(
        make_memory: Callable[..., Memory]) -> None:
    old = make_memory()
    before = corrected(old, lambda: make_memory(scope=old.scope)) - timedelta(microseconds=1)
    # as format 13 stored them: an expired memory carries no search token (Neo4j's; FalkorDB stores none)
    raw_cypher(old, "MATCH (o:Observation {scope: $scope}) WHERE o.scope_token IS NOT NULL "
                    "AND o.expired_at IS NOT NULL SET o.scope_token = null", scope=old.scope)
    raw_cypher(old, "MATCH (:Entity {scope: $scope})-[r:FACT]->() WHERE r.scope_token IS NOT NULL "
                    "AND r.expired_at IS NOT NULL SET r.scope_token = null", scope=old.scope)
    old.backend.write(Q.RECOUNT_SCOPE, {"scope": old.scope, "format": HISTORY_TOKEN_FORMAT - 1,
                                        "candidate": "candidate", "now": Instant(now_micros())})
    upgraded = make_memory(scope=old.scope)
    assert upgraded.backend.read(Q.SCOPE_STATE, {"scope": old.scope})[0]["state"]["format"] == STORE_FORMAT
    assert sorted(found(upgraded.recall(QUESTION, known_at=before))) == [("Dana", "Paris"), ("observed", FLAT)]
    assert found(upgraded.recall(QUESTION)) == [("Dana", "Rome")]
