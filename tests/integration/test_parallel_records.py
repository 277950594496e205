"""Several fact records between the same two entities: every count over them counts each record. FalkorDB returns
one row per pair of nodes for a pattern whose relationship variable is not used after it (``MATCH (a)-[r:FACT]->(b)
RETURN a, b``: one row for three records from a to b); no catalogue statement counts such a pattern (checked
statement by statement), and these outcomes keep it so."""

from __future__ import annotations

import pytest

from synapse_graph import Memory, Triple
from tests.integration.test_record_counts import check

pytestmark = pytest.mark.integration

PREDICATES = ("LIVES_IN", "WORKS_IN", "VISITED", "OWNS_A_FLAT_IN")


def test_the_counts_over_records_between_the_same_two_entities_count_every_record(memory: Memory) -> None:
    # Alice: 4 records, all to Paris; Bob: 3, each with another entity; Paris: 6 (a pair count would rank Bob
    # above Alice, and give Paris 3).
    memory.upsert([*(Triple(subject="Alice", predicate=p, object="Paris", valid_at="2020-01-01") for p in PREDICATES),
                   Triple(subject="Bob", predicate="VISITED", object="Paris", valid_at="2020-01-01"),
                   Triple(subject="Carol", predicate="VISITED", object="Paris", valid_at="2020-01-01"),
                   Triple(subject="Dan", predicate="KNOWS", object="Bob", valid_at="2020-01-01"),
                   Triple(subject="Bob", predicate="KNOWS", object="Erin", valid_at="2020-01-01")])
    check(memory, "four records from Alice to Paris")
    stats = memory.stats()
    assert (stats.facts, stats.valid_now) == (8, 8)
    assert memory.digest().entities[:3] == ["Paris", "Alice", "Bob"]
    assert len(memory.facts("Alice")) == 4 and len(memory.facts(object="Paris")) == 6
    assert len(memory.facts("Alice", object="Paris")) == 4
    memory.purge("Alice")
    check(memory, "a purge of an entity with four records to another")
    assert memory.stats().facts == 4
    assert memory.digest().entities[:2] == ["Bob", "Paris"]  # Bob: 3 records, Paris: 2
