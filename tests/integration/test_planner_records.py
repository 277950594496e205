"""The records a batch's planner reads (``writes/current_records``, each record a list of values: issue 34) are the
stored records as the map of every other read gives them, whichever way a key finds them (its entities' node ids,
their keys, or the timeline's slot), on a scope that holds every kind of record (history, candidates, disputes,
facts beginning or ending later, a merge and its undoing).
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from synapse_graph import Memory, Triple
from synapse_graph.catalogue import Q
from synapse_graph.engine import rows
from synapse_graph.engine.view import entity_ids
from synapse_graph.rules.slots import fact_slot
from synapse_graph.rules.timeline import Record
from synapse_graph.rules.trust import TIMELINE_STATES
from tests.integration.test_counted_stats import story

pytestmark = pytest.mark.integration

STATES = [*TIMELINE_STATES, "candidate"]


def stored_records(memory: Memory, keys: list[str]) -> dict[str, Record]:
    """Every current record of the entities, by id, through the fact map (``writes/entity_records``)."""
    found: dict[str, Record] = {}
    for key in keys:
        for row in memory.backend.read(Q.ENTITY_RECORDS, {"scope": memory.scope, "key": key}):
            record = rows.record(row["fact"])
            if record.expired_at is None and record.status in STATES:
                found[record.id] = record
    return found


def entity_keys(memory: Memory) -> list[str]:
    """The scope's entity keys, from its export."""
    return sorted({row["key"] for row in map(json.loads, memory.export()) if row["kind"] == "entity"})


def planner_records(memory: Memory, keys: list[list[Any]]) -> dict[str, Record]:
    [row] = memory.backend.read(Q.CURRENT_RECORDS, {"scope": memory.scope, "statuses": STATES, "keys": keys})
    return {values[rows.RECORD_ID]: rows.record_of_values(values) for values in row["records"]}


def test_the_planner_reads_each_record_as_it_is_stored(memory: Memory) -> None:
    story(memory)
    memory.upsert([Triple(subject="Ann", predicate="KNOWS", object="Bo", valid_at="2022-03-01", confidence=0.9),
                   Triple(subject="Ann", predicate="LIKES", object="Ann", source="notes.md")])
    memory.pin(memory.facts("Ann", "KNOWS")[0])
    records = stored_records(memory, entity_keys(memory))
    assert records, "the story stores current records"
    [found] = memory.backend.read(Q.RESOLVE_KEYS, {"scope": memory.scope,
                                                   "keys": sorted({k for r in records.values()
                                                                   for k in (r.subject, r.object)})})
    ids = entity_ids(found)  # none on Neo4j, which seeks entities by key
    scope = memory.scope
    by_slot = [[fact_slot(scope, r.subject, r.predicate), r.subject, r.predicate, None, None, None, None]
               for r in records.values()]
    by_pair = [[fact_slot(scope, r.subject, r.predicate), r.subject, r.predicate, r.object, None, None, None]
               for r in records.values()]
    by_id = [[fact_slot(scope, r.subject, r.predicate), r.subject, r.predicate, r.object, None, ids[r.subject],
              ids[r.object]] for r in records.values() if ids]
    for keys in (by_slot, by_pair, by_id) if ids else (by_slot, by_pair):
        assert planner_records(memory, keys) == records
