"""Reads that seek an index instead of walking a subject's facts: slots, bounded hop 2, old stores."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from synapse_graph import Memory, NewerStoreFormatError, Triple
from synapse_graph.catalogue import Q
from synapse_graph.engine.scope import STORE_FORMAT
from synapse_graph.instants import Instant
from synapse_graph.rules.timeparse import now_micros
from tests.integration.helpers import objects, raw_cypher, triples


def test_point_reads_and_supersession_on_a_subject_with_many_facts(memory: Memory) -> None:
    memory.set_rules(single_valued=memory.rules().single_valued | {"LIVES_IN"})
    memory.upsert([Triple(subject="Hub", predicate=f"REL_{i % 20}", object=f"Thing {i}", valid_at="2020-01-01")
                   for i in range(300)])
    memory.upsert(Triple(subject="Hub", predicate="LIVES_IN", object="Oslo", valid_at="2021-01-01"))
    memory.upsert(Triple(subject="Hub", predicate="LIVES_IN", object="Rome", valid_at="2023-01-01"))

    assert objects(memory.facts("Hub", "LIVES_IN", as_of="2022-06-01")) == ["Oslo"]
    assert objects(memory.facts("Hub", "LIVES_IN")) == ["Rome"]
    assert sorted(objects(memory.facts("Hub", "REL_3"))) == sorted(f"Thing {i}" for i in range(3, 300, 20))
    assert len(memory.facts("Hub")) == 301
    again = memory.upsert(Triple(subject="Hub", predicate="REL_3", object="Thing 23"))
    assert (again.created, again.confirmed) == (0, 1)


@pytest.mark.parametrize("padding", [0, 100], ids=["one-round-trip", "large-batch"])
def test_a_repeat_on_a_hub_or_a_self_loop_confirms_the_one_record_it_repeats(memory: Memory, padding: int) -> None:
    # A key with an object reads the records between its two entities, not its subject's whole
    # (subject, predicate): both the small batch's read and the large batch's must find exactly it.
    memory.upsert([Triple(subject="Hub", predicate="REL", object=f"Thing {i}", valid_at="2020-01-01")
                   for i in range(150)] + [Triple(subject="Loop", predicate="LINKS", object="Loop",
                                                  valid_at="2020-01-01")])
    extra = [Triple(subject="Pad", predicate="REL", object=f"Pad {i}", valid_at="2020-01-01") for i in range(padding)]
    again = memory.upsert([Triple(subject="Hub", predicate="REL", object="Thing 7", valid_at="2021-01-01"),
                           Triple(subject="Loop", predicate="LINKS", object="Loop", valid_at="2021-01-01"), *extra])
    assert (again.created, again.confirmed) == (padding, 2)
    [thing] = memory.facts("Hub", "REL", "Thing 7")
    [loop] = memory.facts("Loop", "LINKS", "Loop")
    assert (thing.confirmations, loop.confirmations) == (2, 2)
    assert len(memory.facts("Hub", "REL")) == 150


def test_a_large_write_between_stored_entities_creates_every_record_with_its_values(memory: Memory) -> None:
    # From SEEK_BY_ID_FROM records on, a record between two stored entities is created between nodes sought
    # by id (engine/writes.py creates): each must be there, between the right two entities, with its values.
    from synapse_graph.engine.writes import SEEK_BY_ID_FROM

    people = [f"Person {i}" for i in range(SEEK_BY_ID_FROM + 8)]
    memory.upsert([Triple(subject=p, predicate="LIVES_IN", object="Oslo", valid_at="2020-01-01") for p in people])
    written = memory.upsert([Triple(subject=p, predicate="KNOWS", object=people[(i + 1) % len(people)],
                                    valid_at="2021-06-01T12:30:00Z", confidence=0.5) for i, p in enumerate(people)],
                            source="import")
    assert (written.created, written.entities_created) == (len(people), 0)
    for i, p in enumerate(people):
        [fact] = memory.facts(p, "KNOWS")
        assert (fact.object, fact.confidence, fact.source) == (people[(i + 1) % len(people)], 0.5, "import")
        assert fact.valid_at.isoformat().startswith("2021-06-01T12:30:00")
    assert len(memory.facts(people[0])) == 2


def _counted_and_recounted(memory: Memory, backend_settings: dict[str, Any]) -> tuple[dict[str, int], dict[str, int]]:
    """Each entity's stored count of records (``records`` on its COUNTED relationship to itself) and the count of
    its records' ends in the store (one per end: engine/writes.py record_counts)."""
    settings = dict(backend_settings)
    with Memory(settings.pop("location"), scope=memory.scope, **settings) as probe:  # a sync one, for raw_cypher
        # r.id returned: FalkorDB returns one row per pair of nodes for a pattern whose relationship is not used.
        ends = raw_cypher(probe, "MATCH (a:Entity {scope: $scope})-[r:FACT]->(b:Entity) "
                                 "RETURN a.key AS a, b.key AS b, r.id AS id", scope=memory.scope)
        stored = raw_cypher(probe, "MATCH (e:Entity {scope: $scope})-[c:COUNTED]->(e) "
                                   "RETURN e.key AS key, c.records AS records", scope=memory.scope)
    expected: dict[str, int] = {}
    for row in ends:
        for key in (row["a"], row["b"]):
            expected[key] = expected.get(key, 0) + 1
    return {row["key"]: row["records"] for row in stored}, expected


def test_a_large_write_keeps_every_entity_s_count_of_records_exact(memory: Memory,
                                                                   backend_settings: dict[str, Any]) -> None:
    # Each entity's count of records after a write of SEEK_BY_ID_FROM records or more (the form that seeks stored
    # entities by id): hubs, self-loops, stored and new entities must all count right, whichever way the apply
    # statement finds or keeps the counts (issue 34).
    from synapse_graph.engine.writes import SEEK_BY_ID_FROM

    people = [f"Person {i}" for i in range(SEEK_BY_ID_FROM + 8)]
    memory.upsert([Triple(subject=p, predicate="LIVES_IN", object="Oslo", valid_at="2020-01-01") for p in people])
    memory.upsert([*(Triple(subject=p, predicate="KNOWS", object=people[(i + 3) % len(people)], valid_at="2021-01-01")
                     for i, p in enumerate(people)),
                   Triple(subject="Oslo", predicate="TWINNED_WITH", object="Oslo", valid_at="2021-01-01"),
                   *(Triple(subject=p, predicate="LIKES", object=f"Book {i}", valid_at="2021-01-01")
                     for i, p in enumerate(people[:5]))])
    stored, expected = _counted_and_recounted(memory, backend_settings)
    assert stored == expected
    assert expected["oslo"] == len(people) + 2


def test_a_large_write_that_merges_keeps_every_count_of_records_exact(memory: Memory,
                                                                      backend_settings: dict[str, Any]) -> None:
    # The counts of stored entities a large write finds are sought by node id (counts_by_id, issue 34): one the
    # same write merges away (SAME_AS) is deleted, so its records' counts move to its target, sought by key or id.
    from synapse_graph.engine.writes import SEEK_BY_ID_FROM

    people = [f"Person {i}" for i in range(SEEK_BY_ID_FROM + 8)]
    memory.upsert([Triple(subject=p, predicate="LIVES_IN", object="Oslo", valid_at="2020-01-01") for p in people]
                  + [Triple(subject="Kristiania", predicate="IN", object="Norway", valid_at="2020-01-01")])
    memory.upsert([Triple(subject="Oslo", predicate="SAME_AS", object="Kristiania"),
                   *(Triple(subject=p, predicate="KNOWS", object=people[(i + 5) % len(people)], valid_at="2021-01-01")
                     for i, p in enumerate(people)),
                   *(Triple(subject=p, predicate="VISITED", object="Kristiania", valid_at="2021-01-01")
                     for p in people[:6])])
    stored, expected = _counted_and_recounted(memory, backend_settings)
    assert stored == expected
    assert expected["oslo"] == len(people) + 6 + 1 and "kristiania" not in expected

def test_hop_two_is_bounded_per_neighbour_and_exact_when_it_fits(memory: Memory) -> None:
    memory.upsert([("Ada", "KNOWS", "Hub"), ("Ada", "KNOWS", "Bea"), ("Ada", "KNOWS", "Cy")], valid_at="2024-01-01")
    memory.upsert([("Hub", "OWNS", f"Item {i:02}") for i in range(60)], valid_at="2024-02-01")
    memory.upsert([("Bea", "LIKES", "Tea"), ("Cy", "LIKES", "Jazz"), ("Hub", "KNOWS", "Bea")], valid_at="2024-03-01")
    memory.upsert(("Cy", "LIKES", "Rock"), valid_at="2020-01-01", )
    memory.retract("Cy", "LIKES", "Rock", at="2021-01-01")  # not valid now: never in a neighbourhood

    everything = memory.neighbourhood("Ada", hops=2)
    expected_hop2 = {("Hub", "OWNS", f"Item {i:02}") for i in range(60)} | {
        ("Bea", "LIKES", "Tea"), ("Cy", "LIKES", "Jazz"), ("Hub", "KNOWS", "Bea")}
    assert triples(everything[:3]) == {("Ada", "KNOWS", n) for n in ("Hub", "Bea", "Cy")}
    assert triples(everything[3:]) == expected_hop2 and len(everything) == 3 + len(expected_hop2)

    cut = memory.neighbourhood("Ada", hops=2, limit=10)
    assert len(cut) == 10
    assert triples(cut[:3]) == {("Ada", "KNOWS", n) for n in ("Hub", "Bea", "Cy")}
    assert triples(cut[3:]) <= expected_hop2
    assert [f.valid_at for f in cut[3:]] == sorted(f.valid_at for f in cut[3:])
    assert triples(memory.neighbourhood("Ada", hops=2, limit=2)) <= {("Ada", "KNOWS", n) for n in ("Hub", "Bea", "Cy")}
    assert len(memory.neighbourhood("Ada", hops=1)) == 3


def test_hop_two_shares_the_limit_so_a_hub_next_door_does_not_crowd_out_the_others(memory: Memory) -> None:
    memory.upsert([("Ada", "KNOWS", "Hub"), ("Ada", "KNOWS", "Bea"), ("Ada", "KNOWS", "Cy")], valid_at="2024-01-01")
    memory.upsert([("Hub", "OWNS", f"Item {i:02}") for i in range(60)], valid_at="2024-02-01")  # older than the rest
    memory.upsert([("Bea", "LIKES", "Tea"), ("Cy", "LIKES", "Jazz")], valid_at="2024-03-01")

    for limit in (9, 13, 40):
        cut = memory.neighbourhood("Ada", hops=2, limit=limit)
        hub_items = triples(cut) - {("Ada", "KNOWS", n) for n in ("Hub", "Bea", "Cy")} - {
            ("Bea", "LIKES", "Tea"), ("Cy", "LIKES", "Jazz")}
        # Every neighbour is heard from, and what the small ones leave unused fills the limit from the hub.
        assert {("Bea", "LIKES", "Tea"), ("Cy", "LIKES", "Jazz")} <= triples(cut), limit
        assert len(cut) == limit and len(hub_items) == limit - 5, limit
        assert hub_items <= {("Hub", "OWNS", f"Item {i:02}") for i in range(60)}
        assert [f.valid_at for f in cut[3:]] == sorted(f.valid_at for f in cut[3:])
    assert len(memory.neighbourhood("Ada", hops=2, limit=200)) == 3 + 60 + 2


def test_a_merged_entity_keeps_answering_point_reads_by_either_name(memory: Memory) -> None:
    memory.upsert([("Robert", "WORKS_AT", "Acme"), ("Robert", "LIKES", "Chess")], valid_at="2024-01-01")
    memory.upsert(("Bob", "LIKES", "Go"), valid_at="2024-02-01")
    memory.alias("Bob", "Robert")
    for name in ("Bob", "Robert"):
        assert sorted(objects(memory.facts(name, "LIKES"))) == ["Chess", "Go"]
        assert objects(memory.facts(name, "WORKS_AT")) == ["Acme"]
    memory.upsert(("Robert", "WORKS_AT", "Initech"), valid_at="2024-06-01")
    assert objects(memory.facts("Bob", "WORKS_AT")) == ["Initech"]


def test_a_store_written_before_slots_is_upgraded_on_open(make_memory: Callable[..., Memory]) -> None:
    old = make_memory()
    old.set_rules(single_valued=old.rules().single_valued | {"LIVES_IN"})
    old.upsert([("Dana", "LIVES_IN", "Paris"), ("Dana", "SPEAKS", "French")], valid_at="2024-01-01")
    # Make the scope look like format 1: no slot on any fact, no format or tombstone count on the scope.
    ids = [row["id"] for row in old.backend.read(Q.SLOTLESS_FACTS, {"scope": old.scope, "limit": 10})]
    assert ids == []
    facts = old.facts("Dana", include_history=True)
    old.backend.write(Q.SET_SLOTS, {"scope": old.scope, "slots": [{"id": f.id, "slot": None} for f in facts]})
    old.backend.write(Q.RECOUNT_SCOPE, {"scope": old.scope, "format": None, "candidate": "candidate",
                                        "now": Instant(now_micros())})
    assert old.facts("Dana", "LIVES_IN") == []  # the slot index no longer finds them
    assert len(old.backend.read(Q.SLOTLESS_FACTS, {"scope": old.scope, "limit": 10})) == 2

    upgraded = make_memory(scope=old.scope)
    assert old.backend.read(Q.SLOTLESS_FACTS, {"scope": old.scope, "limit": 10}) == []
    assert objects(upgraded.facts("Dana", "LIVES_IN")) == ["Paris"]
    upgraded.upsert(("Dana", "LIVES_IN", "Lyon"), valid_at="2024-06-01")
    assert objects(upgraded.facts("Dana", "LIVES_IN")) == ["Lyon"]
    assert objects(upgraded.facts("Dana", "LIVES_IN", as_of="2024-03-01")) == ["Paris"]
    assert upgraded.backend.read(Q.SCOPE_STATE, {"scope": old.scope})[0]["state"]["format"] == STORE_FORMAT


def test_a_store_written_by_a_newer_version_is_refused_on_open_and_left_as_it_is(
        make_memory: Callable[..., Memory]) -> None:
    newer = make_memory()
    newer.upsert(("Dana", "LIVES_IN", "Paris"), valid_at="2024-01-01")
    newer.backend.write(Q.RECOUNT_SCOPE, {"scope": newer.scope, "format": STORE_FORMAT + 1, "candidate": "candidate",
                                        "now": Instant(now_micros())})
    before = newer.backend.read(Q.SCOPE_STATE, {"scope": newer.scope})[0]["state"]
    assert before["format"] == STORE_FORMAT + 1

    with pytest.raises(NewerStoreFormatError, match="upgrade synapse-graph"):
        make_memory(scope=newer.scope)
    assert newer.backend.read(Q.SCOPE_STATE, {"scope": newer.scope})[0]["state"] == before
    assert objects(newer.facts("Dana", "LIVES_IN")) == ["Paris"]


def test_a_store_written_before_scope_tokens_is_upgraded_on_open(make_memory: Callable[..., Memory],
                                                                  backend_name: str) -> None:
    old = make_memory()
    old.upsert([("Project Apollo", "OWNED_BY", "Dana"), ("Dana", "LIVES_IN", "Paris")], valid_at="2024-01-01")
    old.alias("Project Apollo", "Moonshot")
    old.observe("Dana", ["builds a zeppelin model"])
    # Make the scope look like format 3: no search token on its entities, aliases and observations.
    # Only Neo4j's indexes need the token: FalkorDB's search filters by the scope property and stores none.
    removed = old.backend.write(Q.SET_SCOPE_TOKENS, {"scope": old.scope, "scope_token": None})[0]["updated"]
    assert removed == {"neo4j": 5, "falkordb": 0}[backend_name]
    old.backend.write(Q.RECOUNT_SCOPE, {"scope": old.scope, "format": 3, "candidate": "candidate",
                                        "now": Instant(now_micros())})

    upgraded = make_memory(scope=old.scope)
    assert upgraded.backend.read(Q.SCOPE_STATE, {"scope": old.scope})[0]["state"]["format"] == STORE_FORMAT
    assert [e.name for e in upgraded.recall("project apollo").entities][:1] == ["Project Apollo"]
    assert [e.name for e in upgraded.recall("moonshot").entities] == ["Project Apollo"]
    assert [o.text for o in upgraded.recall("zeppelin").observations] == ["builds a zeppelin model"]
