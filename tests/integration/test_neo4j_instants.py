"""Every instant the library stores on Neo4j is a native DATETIME (typed instants, never guessed by name)."""

from __future__ import annotations

from typing import Any

import neo4j
import pytest

from synapse_graph import Memory, Triple

pytestmark = pytest.mark.integration


def test_every_stored_time_is_a_datetime(neo4j_settings: dict[str, Any]) -> None:
    memory = Memory(neo4j_settings["location"], scope=f"instants-{id(object())}", auth=neo4j_settings["auth"],
                    max_facts=100)
    try:
        memory.upsert([("Dana", "LIVES_IN", "Paris"), ("Dana", "KNOWS", "Bob")], valid_at="2020-01-01")
        memory.upsert(("Dana", "LIVES_IN", "Rome"), valid_at="2022-01-01")
        memory.upsert(("Dana", "LIVES_IN", "Rome"))  # confirmed_at
        memory.upsert(Triple(subject="Dana", predicate="OWNS", object="boat", confidence=0.2), model="x")
        memory.reject(memory.pending()[0], "no")
        memory.alias("Dana", "Dee")
        memory.observe("Dana", ["Speaks Spanish"])
        memory.unobserve("Dana", ["Speaks Spanish"])
        memory.pin(memory.facts("Dana", "KNOWS")[0])
        memory.retract("Dana", "KNOWS", "Bob", at="2023-01-01")
        query = """
            MATCH (n) WHERE n.scope = $scope
            UNWIND keys(n) AS k WITH n, k WHERE k ENDS WITH '_at' OR k = 'at'
            RETURN labels(n)[0] AS kind, k AS property, valueType(n[k]) AS type
            UNION ALL
            MATCH (a)-[r:FACT]->() WHERE a.scope = $scope
            UNWIND keys(r) AS k WITH r, k WHERE k ENDS WITH '_at'
            RETURN 'FACT' AS kind, k AS property, valueType(r[k]) AS type
            UNION ALL
            MATCH (:Scope {scope: $scope})-[st:STATE]->()
            UNWIND keys(st) AS k WITH st, k WHERE k ENDS WITH '_at'
            RETURN 'STATE' AS kind, k AS property, valueType(st[k]) AS type"""
        with neo4j.GraphDatabase.driver(neo4j_settings["location"], auth=neo4j_settings["auth"]) as driver:
            rows = driver.execute_query(query, scope=memory.scope).records
        found = {(r["kind"], r["property"]) for r in rows}
        for expected in [("FACT", "valid_at"), ("FACT", "invalid_at"), ("FACT", "recorded_at"), ("FACT", "expired_at"),
                         ("FACT", "confirmed_at"), ("Entity", "created_at"), ("Audit", "at"),
                         ("Tombstone", "rejected_at"), ("Observation", "recorded_at"), ("Observation", "expired_at"),
                         ("STATE", "updated_at"), ("STATE", "created_at")]:
            assert expected in found, expected
        wrong = {(r["kind"], r["property"], r["type"]) for r in rows if not r["type"].startswith("ZONED DATETIME")}
        assert not wrong, wrong
    finally:
        memory.purge(scope=memory.scope)
        memory.close()
