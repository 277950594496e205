"""A store keeps each thing once: a believed record stores no state, an entity without aliases no alias
list, a write's audit entry no second list of the record ids its detail names. Reads give the same
answers as from a store written in the older, fuller shape (which stays readable, and is not migrated)."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from synapse_graph import Memory, Triple
from tests.integration.helpers import populate, raw_cypher, snapshot

MakeMemory = Callable[..., Memory]


@pytest.fixture
def written(make_memory: MakeMemory, backend_settings: dict[str, Any]) -> Iterator[tuple[Memory, Memory]]:
    """A scope with history, aliases, a candidate and a disputed record; and a plain Memory on it for
    statements outside the catalogue."""
    memory = make_memory()
    populate(memory)
    memory.upsert(Triple(subject="Dana", predicate="LIKES", object="Chess", confidence=0.3),
                  source="extracted", model="extractor")  # a candidate
    memory.feedback(memory.facts("Robert", "LIKES")[0], "stale")  # disputed
    settings = dict(backend_settings)
    with Memory(settings.pop("location"), scope=memory.scope, **settings) as plain:
        yield memory, plain


def answers(memory: Memory) -> dict[str, Any]:
    return {
        "export": [json.loads(line) for line in memory.export()],
        "stats": memory.stats().model_dump(),
        "audit": [e.model_dump() for e in memory.audit()],
        "dana": [f.model_dump() for f in memory.facts("Dana", include_history=True)],
        "pending": [f.model_dump() for f in memory.pending()],
        "disputed": [f.model_dump() for f in memory.facts("Robert", include_disputed=True)],
        "recall": [f.model_dump() for f in memory.recall("Dana Paris").facts],
        "entities": memory.entities(limit=100).model_dump(),
    }


def test_each_thing_is_stored_once(written: tuple[Memory, Memory]) -> None:
    memory, plain = written
    [states] = raw_cypher(plain, "MATCH (:Entity {scope: $scope})-[r:FACT]->() "
                                 "RETURN collect(r.status) AS stored, count(r) AS records, count(r.scope) AS scopes",
                          scope=memory.scope)
    assert sorted(states["stored"]) == ["candidate", "disputed"]
    assert states["records"] > 10
    assert states["scopes"] == 0  # a record's scope is its entities' (every statement checks the subject's)
    # Nor a full confidence or a single confirmation (the defaults), while other values are kept.
    [numbers] = raw_cypher(plain, "MATCH (:Entity {scope: $scope})-[r:FACT]->() RETURN collect(r.confidence) AS "
                                  "confidences, collect(r.confirmations) AS confirmations", scope=memory.scope)
    records = [x for x in map(json.loads, memory.export()) if x["kind"] == "fact"]
    assert sorted(numbers["confidences"]) == sorted(x["confidence"] for x in records if x["confidence"] != 1.0)
    assert sorted(numbers["confirmations"]) == sorted(x["confirmations"] for x in records if x["confirmations"] != 1)
    assert 0.3 in numbers["confidences"] and 2 in numbers["confirmations"] and len(records) == states["records"]
    assert {1.0, 0.3} <= {x["confidence"] for x in records} and {1, 2} <= {x["confirmations"] for x in records}
    [entities] = raw_cypher(plain, "MATCH (n:Entity {scope: $scope}) RETURN collect(n.key) AS keys, "
                                   "collect(n.aliases) AS aliases, collect(n.updated_at) AS updated",
                            scope=memory.scope)
    assert sorted(entities["aliases"]) == [["Bob"], ["Dee"]] and len(entities["keys"]) > 5  # Robert's, Dana's
    # An entity stores when it was updated only once it was (Robert and Dana got aliases); the others read
    # their creation time.
    assert len(entities["updated"]) == 2
    read = {e.name: e for e in memory.entities(limit=100).entities}
    assert read["Tea"].updated_at == read["Tea"].created_at
    assert read["Robert"].updated_at > read["Robert"].created_at
    [entries] = raw_cypher(plain, "MATCH (a:Audit {scope: $scope}) RETURN count(a) AS entries, "
                                  "collect(a.facts) AS lists", scope=memory.scope)
    assert entries["entries"] >= 8 and entries["lists"] == []
    # ... and the log still names every record each write created, expired or updated.
    logged = {i for e in memory.audit() for i in e.facts}
    assert {f.id for f in memory.facts(include_history=True, include_candidates=True, include_disputed=True,
                                       limit=1000)} <= logged
    first = memory.audit()[-1]
    assert first.action == "upsert" and sorted(first.facts) == sorted(first.detail["created"]) and len(first.facts) == 4


def test_a_store_in_the_older_fuller_shape_reads_the_same(written: tuple[Memory, Memory]) -> None:
    memory, plain = written
    before = answers(memory)
    # Shape the scope as earlier versions wrote it: every state, confidence, count and scope stored, empty alias
    # lists, every entity's updated_at, id lists in the log.
    [fuller] = raw_cypher(plain, "MATCH (:Entity {scope: $scope})-[r:FACT]->() WHERE r.status IS NULL "
                                 "SET r.status = 'believed' RETURN count(r) AS records", scope=memory.scope)
    raw_cypher(plain, "MATCH (n:Entity {scope: $scope}) WHERE n.aliases IS NULL SET n.aliases = []",
               scope=memory.scope)
    raw_cypher(plain, "MATCH (n:Entity {scope: $scope}) SET n.updated_at = coalesce(n.updated_at, n.created_at)",
               scope=memory.scope)
    raw_cypher(plain, "MATCH (:Entity {scope: $scope})-[r:FACT]->() SET r.scope = $scope, "
                      "r.confidence = coalesce(r.confidence, 1.0), r.confirmations = coalesce(r.confirmations, 1)",
               scope=memory.scope)
    lists = [{"id": e.id, "facts": e.facts} for e in memory.audit()]
    [logged] = raw_cypher(plain, "UNWIND $lists AS x MATCH (a:Audit {scope: $scope}) WHERE a.id = x.id "
                                 "SET a.facts = x.facts RETURN count(a) AS entries", scope=memory.scope, lists=lists)
    assert fuller["records"] > 5 and logged["entries"] == len(lists)

    assert answers(memory) == before
    # ... and writes go on from it: a supersession closes a record stored with its state.
    memory.upsert(Triple(subject="Dana", predicate="LIVES_IN", object="Oslo", valid_at="2025-01-01"))
    assert [f.object for f in memory.facts("Dana", "LIVES_IN")] == ["Oslo"]
    assert memory.stats().facts == before["stats"]["facts"] + 1


def test_an_imported_entry_whose_list_names_more_than_its_detail_keeps_its_list(
        make_memory: MakeMemory) -> None:
    source = make_memory()
    source.upsert(("Dana", "LIKES", "Tea"))
    lines = [json.loads(line) for line in source.export()]
    [entry] = [x for x in lines if x["kind"] == "audit"]
    entry.update(facts=[*entry["facts"], "0a1b2c"], detail={"note": "written by another tool"})
    target = make_memory()
    target.import_([json.dumps(x) for x in lines])

    [copied] = [e for e in target.audit() if e.id == entry["id"]]
    assert copied.facts == sorted(entry["facts"]) and copied.detail == {"note": "written by another tool"}
    assert snapshot(target) != [] and len(copied.facts) == 2


def test_the_values_records_share_are_stored_as_written(written: tuple[Memory, Memory]) -> None:
    # A record's scope, predicate, provenance and state, and an entry's action, provenance and entity keys,
    # are set apart from its other values (FalkorDB keeps one copy of each such string): each is stored.
    memory, plain = written
    [record] = raw_cypher(plain, "MATCH (a)-[r:FACT]->(b) WHERE a.scope = $scope AND r.status = 'candidate' "
                                 "RETURN a.scope AS scope, r.predicate AS predicate, r.model AS model, "
                                 "r.client AS client, r.source AS source, r.session AS session, a.key AS subject, "
                                 "b.key AS object, b.scope AS object_scope", scope=memory.scope)
    [candidate] = memory.pending()
    assert record == {"scope": memory.scope, "predicate": "LIKES", "model": "extractor", "client": "synapse-graph",
                      "source": "extracted", "session": None, "subject": "dana", "object": "chess",
                      "object_scope": memory.scope}
    assert (candidate.client, candidate.source, candidate.model) == ("synapse-graph", "extracted", "extractor")
    [entry] = raw_cypher(plain, "MATCH (x:Audit {scope: $scope}) WHERE x.model = 'extractor' RETURN x.scope AS scope, "
                                "x.action AS action, x.client AS client, x.entities AS entities", scope=memory.scope)
    assert entry == {"scope": memory.scope, "action": "upsert", "client": "synapse-graph",
                     "entities": ["chess", "dana"]}


def test_a_scope_whose_node_holds_its_state_reads_the_same_and_moves_it_when_opened(
        written: tuple[Memory, Memory], make_memory: MakeMemory) -> None:
    # Before store format 5 a scope's node held its state (version, counters, rules, clock); now a STATE
    # relationship of the node to itself does (FalkorDB sets a node's property only after merging the labels
    # of nodes created since, at a cost that grows with the graph: benchmarks/node_update_cost.py).
    memory, plain = written
    memory.set_rules(max_facts=500)
    before = answers(memory)
    [moved] = raw_cypher(plain, "MATCH (s:Scope {scope: $scope})-[st:STATE]->(s) SET s += properties(st), "
                                "s.format = 4 DELETE st RETURN s.version AS version", scope=memory.scope)
    assert raw_cypher(plain, "MATCH (:Scope {scope: $scope})-[st:STATE]->() RETURN st", scope=memory.scope) == []

    assert answers(memory) == before  # read as it is
    assert memory.rules().max_facts == 500

    upgraded = make_memory(scope=memory.scope)  # opening for writing moves the state
    [held] = raw_cypher(plain, "MATCH (s:Scope {scope: $scope})-[st:STATE]->(s) RETURN properties(s) AS node, "
                               "st.version AS version, st.format AS format, st.max_facts AS max_facts, "
                               "st.facts AS facts", scope=memory.scope)
    assert held["node"] == {"scope": memory.scope}
    assert held["version"] > moved["version"] and held["format"] >= 5 and held["max_facts"] == 500
    assert held["facts"] == before["stats"]["facts"]
    assert answers(upgraded) == before
    upgraded.upsert(Triple(subject="Dana", predicate="LIVES_IN", object="Oslo", valid_at="2025-01-01"))
    assert [f.object for f in upgraded.facts("Dana", "LIVES_IN")] == ["Oslo"]
    assert upgraded.stats().facts == before["stats"]["facts"] + 1


def test_each_record_of_a_batch_keeps_its_own_values(memory: Memory) -> None:
    # A batch sends the values its records share once (engine/writes.py Kinds) and the rest by record: records
    # of one predicate with different sources, confidences, ends and trust, between stored and new entities
    # (sought by node id from SEEK_BY_ID_FROM records on, else by key), each read back with its own.
    memory.upsert([Triple(subject=f"person {i}", predicate="MET", object=f"person {i + 100}") for i in range(49)])
    sources = (None, "chat", "mail")
    confidences = (None, 0.9, 0.1 + 0.2, 0.75)
    triples = [Triple(subject=f"person {i}", predicate=("LIKES", "KNOWS", "VISITED")[i % 3],
                      object=f"person {i + 1}" if i % 3 == 1 else f"thing {i}", source=sources[i % 3],
                      confidence=confidences[i % 4], valid_at=f"2020-01-{i % 28 + 1:02d}T00:00:00Z",
                      invalid_at="2030-01-01T00:00:00Z" if i % 5 == 0 else None) for i in range(48)]
    memory.upsert(triples, model="extractor")
    stored = {(f.subject, f.predicate, f.object): f
              for f in memory.facts(include_history=True, include_candidates=True, limit=1000)}
    below = memory.rules().candidate_below
    for i, t in enumerate(triples):
        fact = stored[(t.subject, t.predicate, t.object)]
        confidence = 1.0 if t.confidence is None else t.confidence
        assert (fact.source, fact.confidence, fact.model, fact.client) == (
            t.source, confidence, "extractor", "synapse-graph"), t
        assert (fact.valid_at.day, fact.invalid_at is None) == (i % 28 + 1, i % 5 != 0), t
        assert fact.status == ("candidate" if confidence < below else "believed"), t
