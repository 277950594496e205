"""Switching from Graphiti: a graph graphiti-core wrote, imported on both backends through both APIs.

Every edge arrives with its times; ``as_of`` reads here answer what Graphiti's own validity
(``valid_at <= t < invalid_at``) says at sampled times; ``known_at`` before Graphiti expired an edge sees
the edge as Graphiti held it then; a second import adds nothing; edge names that are not
``UPPER_SNAKE_CASE`` are mapped with the original kept; duplicates, secrets and quotas are handled as said.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from datetime import UTC, datetime, timedelta
from itertools import pairwise
from typing import Any

import pytest

from synapse_graph import Memory
from synapse_graph.errors import NotFoundError, QuotaExceededError
from synapse_graph.graphiti import GraphitiImport, predicate_for
from synapse_graph.graphiti.lines import OPEN_SUFFIX
from tests.integration.graphiti_graphs import SECRET, BuiltGraph, falkordb_graph, neo4j_graph
from tests.integration.helpers import snapshot

pytestmark = pytest.mark.integration
MakeMemory = Callable[..., Memory]
MICRO = timedelta(microseconds=1)


@pytest.fixture(scope="module")
def graphiti_graphs(request: pytest.FixtureRequest) -> Iterator[Callable[[str], BuiltGraph]]:
    """One Graphiti graph per backend for the module, built on first use and removed at the end."""
    built: dict[str, BuiltGraph] = {}
    with ExitStack() as stack:
        def get(backend: str) -> BuiltGraph:
            if backend not in built:
                if backend == "neo4j":
                    settings = request.getfixturevalue("neo4j_settings")
                    place = neo4j_graph(settings["location"], settings["auth"])
                else:
                    location = request.getfixturevalue("falkordb_location")
                    keeper = stack.enter_context(Memory(location, scope="graphiti-keeper"))  # holds the server
                    server = getattr(keeper.backend, "server", None)
                    place = falkordb_graph(location if server is None else f"unix://{server.connect_path}")
                built[backend] = stack.enter_context(place)()
            return built[backend]

        yield get


@pytest.fixture
def graph(backend_name: str, graphiti_graphs: Callable[[str], BuiltGraph]) -> BuiltGraph:
    return graphiti_graphs(backend_name)


@pytest.fixture
def imported(memory: Memory, graph: BuiltGraph) -> GraphitiImport:
    return memory.import_graphiti(graph.source, group_id=graph.group, auth=graph.auth)


def records(memory: Memory) -> dict[str, dict[str, Any]]:
    return {line["id"]: line for line in map(json.loads, memory.export()) if line["kind"] == "fact"}


def instant(text: str | None) -> datetime | None:
    return None if text is None else datetime.fromisoformat(text)


def kept(graph: BuiltGraph) -> list[Any]:
    """The edges the import keeps: all but the one to the entity named by an e-mail address."""
    return [e for e in graph.edges if "@" not in graph.names[e.target_node_uuid]]


def test_every_edge_arrives_with_graphitis_times(memory: Memory, graph: BuiltGraph, imported: GraphitiImport
                                                 ) -> None:
    held = records(memory)
    assert len(graph.edges) == len(kept(graph)) + 1 == imported.edges == 9
    for edge in kept(graph):
        record = held[edge.uuid.replace("-", "")]
        start = edge.valid_at or edge.reference_time or edge.created_at
        assert (instant(record["valid_at"]), instant(record["invalid_at"])) == (start, edge.invalid_at)
        assert instant(record["recorded_at"]) == max(edge.created_at, edge.expired_at or edge.created_at)
        assert record["expired_at"] is None
        assert record["predicate"] == predicate_for(edge.name)
        assert record["source"].startswith(f"graphiti: {edge.fact.split(SECRET)[0]}")
        if edge.expired_at is not None:  # what Graphiti held before it learned the end
            before = held[edge.uuid.replace("-", "") + OPEN_SUFFIX]
            assert (instant(before["valid_at"]), before["invalid_at"]) == (start, None)
            assert (instant(before["recorded_at"]), instant(before["expired_at"])) == (edge.created_at,
                                                                                      edge.expired_at)
    expired = [e for e in graph.edges if e.expired_at is not None]
    assert len(expired) == imported.expired == 2  # Paris (ended by London) and Chess Club (arrived ended)
    assert len(held) == imported.records == imported.records_created == len(kept(graph)) + len(expired)


def test_as_of_reads_answer_what_graphitis_validity_says(memory: Memory, graph: BuiltGraph,
                                                         imported: GraphitiImport) -> None:
    dated = [e for e in kept(graph) if e.valid_at is not None]
    slots = {(graph.names[e.source_node_uuid].casefold(), predicate_for(e.name)) for e in dated}
    bounds = sorted({t for e in dated for t in (e.valid_at, e.invalid_at) if t is not None})
    samples = {t + d for t in bounds for d in (-MICRO, timedelta(0), MICRO)}
    samples |= {a + (b - a) / 2 for a, b in pairwise(bounds)} | {datetime.now(UTC)}
    checked = 0
    for at in sorted(samples):
        for subject, predicate in sorted(slots):
            graphiti_says = {graph.names[e.target_node_uuid].casefold() for e in dated
                             if (graph.names[e.source_node_uuid].casefold(), predicate_for(e.name))
                             == (subject, predicate)
                             and e.valid_at <= at and (e.invalid_at is None or at < e.invalid_at)}
            found = {f.object.casefold() for f in memory.facts(subject, predicate, as_of=at)}
            assert found == graphiti_says, (subject, predicate, at)
            checked += bool(graphiti_says)
    assert checked > 20  # the samples see facts, not only empty answers


def test_known_at_before_graphiti_expired_an_edge_sees_it_as_graphiti_held_it(
        memory: Memory, graph: BuiltGraph, imported: GraphitiImport) -> None:
    paris, london = graph.edge("LIVES_IN", "Paris"), graph.edge("LIVES_IN", "London")
    assert paris.invalid_at == london.valid_at and paris.expired_at is not None
    later = day_after(london.valid_at)

    def lives_in(**at: datetime) -> set[str]:
        return {f.object for f in memory.facts("Dana", "LIVES_IN", as_of=later, **at)}

    assert lives_in(known_at=paris.created_at - MICRO) == set()  # not recorded yet
    assert lives_in(known_at=london.created_at - MICRO) == {"Paris"}  # open-ended then
    assert lives_in(known_at=paris.expired_at - MICRO) == {"Paris", "London"}
    assert lives_in(known_at=paris.expired_at) == lives_in() == {"London"}
    club = graph.edge("MEMBER_OF", "Chess Club")
    assert club.created_at < club.expired_at  # Graphiti expires an edge that arrives ended as it resolves it
    in_club = [f.object for f in memory.facts("Sam", "MEMBER_OF", as_of=day_after(club.invalid_at),
                                              known_at=club.expired_at - MICRO)]
    assert in_club == ["Chess Club"]
    assert memory.facts("Sam", "MEMBER_OF", as_of=day_after(club.invalid_at)) == []
    assert [f.object for f in memory.facts("Sam", "MEMBER_OF", as_of=club.valid_at)] == ["Chess Club"]


def day_after(at: datetime) -> datetime:
    return at + timedelta(days=1)


def test_a_second_import_adds_nothing(memory: Memory, graph: BuiltGraph, imported: GraphitiImport) -> None:
    before = [line for line in snapshot(memory) if line["kind"] != "audit"]
    again = memory.import_graphiti(graph.source, group_id=graph.group, auth=graph.auth)
    assert [line for line in snapshot(memory) if line["kind"] != "audit"] == before
    assert (again.entities_created, again.records_created, again.summaries_created) == (0, 0, 0)
    assert (again.entities, again.records, again.summaries) == (imported.entities, imported.records,
                                                                imported.summaries)
    assert imported.entities_created == imported.entities > 0 and imported.summaries_created == 2


def test_an_edge_name_not_in_upper_snake_case_is_mapped_and_kept(memory: Memory, imported: GraphitiImport
                                                                 ) -> None:
    [fact] = memory.facts("Dana", "WORKS_WITH")
    assert fact.object == "Sam"
    assert fact.source == "graphiti: Dana works with Sam [name: works with]"
    assert imported.renamed == {"works with": "WORKS_WITH"}


def test_fact_text_and_episodes_are_the_source(memory: Memory, graph: BuiltGraph, imported: GraphitiImport
                                               ) -> None:
    [fact] = memory.facts("Dana", "WORKS_AT")
    assert fact.source == f"graphiti: Dana WORKS_AT Acme [episodes: {graph.episode}]"
    assert fact.client == memory.client
    assert [entry.action for entry in memory.audit()] == ["import", "import"]  # entities, then the facts


def test_nodes_of_one_name_are_one_entity_and_the_merge_is_reported(memory: Memory, graph: BuiltGraph,
                                                                    imported: GraphitiImport) -> None:
    dana = memory.entity("dana")
    assert (dana.name, dana.type) == ("Dana", "Person")
    assert sorted(o.text for o in memory.observations("Dana")) == ["A second Dana node.", "Dana is an engineer."]
    assert graph.duplicate in imported.merged["Dana"] and len(imported.merged["Dana"]) == 2
    assert [f.object for f in memory.facts("Dana", "KNOWS")] == ["Sam"]  # the duplicate's edge


def test_secrets_are_not_kept_in_clear_and_what_is_left_out_is_listed(memory: Memory, graph: BuiltGraph,
                                                                      imported: GraphitiImport) -> None:
    assert SECRET not in "\n".join(memory.export())
    [fact] = memory.facts("Sam", "USES")
    assert "[REDACTED:api_key]" in (fact.source or "")
    emails = graph.edge("EMAILS", "dana@example.com")
    assert {(item.kind, item.uuid) for item in imported.left_out} == {
        ("entity", emails.target_node_uuid), ("edge", emails.uuid)}
    assert "contains a secret (email)" in imported.left_out[0].reason


def test_the_scopes_quota_holds(make_memory: MakeMemory, graph: BuiltGraph) -> None:
    small = make_memory(max_facts=3)
    with pytest.raises(QuotaExceededError):
        small.import_graphiti(graph.source, group_id=graph.group, auth=graph.auth)


def test_a_group_the_graph_does_not_hold_is_refused_naming_those_it_holds(memory: Memory, graph: BuiltGraph
                                                                         ) -> None:
    with pytest.raises(NotFoundError, match=f"holds no group 'nope'; it holds .*'{graph.group}'"):
        memory.import_graphiti(graph.source, group_id="nope", auth=graph.auth)
    assert memory.facts() == []


@pytest.mark.parametrize("api", ["sync"])
def test_reading_changes_nothing_in_the_graphiti_database(memory: Memory, graph: BuiltGraph,
                                                          backend_name: str) -> None:
    def indexes() -> Any:
        if backend_name == "neo4j":
            import neo4j

            with neo4j.GraphDatabase.driver(graph.source, auth=graph.auth) as driver:
                return sorted(r["name"] for r in driver.execute_query("SHOW INDEXES YIELD name").records)
        import redis

        from synapse_graph.backends.falkordb import redis_url

        with redis.Redis.from_url(redis_url(graph.source)) as client:
            graphs = client.execute_command("GRAPH.LIST")
            listed = {name: client.execute_command("GRAPH.RO_QUERY", name, "CALL db.indexes()")[1] for name in graphs}
            return {name: sorted(str(row[:3]) for row in rows) for name, rows in listed.items()}  # label, fields, kinds

    before = indexes()
    memory.import_graphiti(graph.source, group_id=graph.group, auth=graph.auth)
    assert indexes() == before
