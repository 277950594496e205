"""Store format 15: observations and fact records hold the scope's search token in their fulltext indexes on FalkorDB
too (Neo4j's did since formats 4 and 14), so a search of memories keeps to its scope inside the index. A scope of
format 14 (FalkorDB: memories without a token) is given them once opened, and recalls as before, now and as
believed before a correction. Both backends (the upgrade with the sync API: it shapes the store raw)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta

import pytest

from synapse_graph import Memory
from synapse_graph.catalogue import Q
from synapse_graph.engine import migrations
from synapse_graph.engine.migrations import MEMORY_TOKEN_FORMAT
from synapse_graph.engine.scope import STORE_FORMAT
from synapse_graph.instants import Instant
from synapse_graph.rules.timeparse import now_micros
from tests.integration.helpers import raw_cypher
from tests.integration.test_recall_known_at import QUESTION, corrected, found

pytestmark = pytest.mark.integration


@pytest.mark.parametrize("api", ["sync"])
def test_a_scope_of_format_14_recalls_alike_once_opened(make_memory: Callable[..., Memory],
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(migrations, "TOKEN_PAGE", 1)  # the upgrade in pages of one memory of each kind
    old = make_memory()
    before = corrected(old, lambda: make_memory(scope=old.scope)) - timedelta(microseconds=1)
    now, then = sorted(found(old.recall(QUESTION))), sorted(found(old.recall(QUESTION, known_at=before)))
    assert (now, then) == ([("Dana", "Rome")], [("Dana", "Paris"), ("observed", "Melanie rents a flat by the city "
                                                                                "harbour.")])
    if old.backend.dialect == "falkordb":  # as format 14 stored them there: no memory holds a search token
        raw_cypher(old, "MATCH (o:Observation {scope: $scope}) SET o.scope_token = null", scope=old.scope)
        raw_cypher(old, "MATCH (:Entity {scope: $scope})-[r:FACT]->() SET r.scope_token = null", scope=old.scope)
    old.backend.write(Q.RECOUNT_SCOPE, {"scope": old.scope, "format": MEMORY_TOKEN_FORMAT - 1,
                                        "candidate": "candidate", "now": Instant(now_micros())})
    upgraded = make_memory(scope=old.scope)
    assert upgraded.backend.read(Q.SCOPE_STATE, {"scope": old.scope})[0]["state"]["format"] == STORE_FORMAT
    assert sorted(found(upgraded.recall(QUESTION))) == now
    assert sorted(found(upgraded.recall(QUESTION, known_at=before))) == then


def test_scopes_sharing_words_recall_their_own_memories(make_memory: Callable[..., Memory]) -> None:
    first = make_memory()
    second = make_memory()
    first.observe("Melanie", ["Melanie rents a flat by the city harbour."], entity_type="person")
    second.observe("Oliver", ["Oliver rents a flat by the old city harbour."], entity_type="person")
    assert found(first.recall("Who rents a flat by the harbour?")) == [
        ("observed", "Melanie rents a flat by the city harbour.")]
    assert found(second.recall("Who rents a flat by the harbour?")) == [
        ("observed", "Oliver rents a flat by the old city harbour.")]
