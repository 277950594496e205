"""Switching from Graphiti: a graph graphiti-core wrote, imported on both backends through both APIs.

Every edge arrives with its times; ``as_of`` reads here answer what Graphiti's own validity
(``valid_at <= t < invalid_at``) says at sampled times; ``known_at`` before Graphiti expired an edge sees
the edge as Graphiti held it then; a second import adds nothing; edge names that are not
``UPPER_SNAKE_CASE`` are mapped with the original kept; duplicates, secrets and quotas are handled as said.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from datetime import UTC, datetime, timedelta
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest

from synapse_graph import Memory
from synapse_graph.errors import InvalidImportError, NotFoundError, QuotaExceededError
from synapse_graph.graphiti import GraphitiImport, predicate_for, source
from synapse_graph.graphiti.lines import OPEN_SUFFIX
from tests.integration import graphiti_graphs as graphs
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


class Stop(Exception):
    pass


@pytest.mark.parametrize("api", ["sync"])
def test_an_import_stopped_midway_finishes_when_run_again(make_memory: MakeMemory, graph: BuiltGraph) -> None:
    stopped, whole = make_memory(), make_memory()

    def stop_after_a_chunk(records: int) -> None:
        if records:
            raise Stop

    with pytest.raises(Stop):
        stopped.import_graphiti(graph.source, group_id=graph.group, auth=graph.auth, batch_size=3,
                                progress=stop_after_a_chunk)
    assert 0 < len(records(stopped)) < 10
    again = stopped.import_graphiti(graph.source, group_id=graph.group, auth=graph.auth)
    assert again.records_created == 10 - 3 and again.entities_created == 0
    whole.import_graphiti(graph.source, group_id=graph.group, auth=graph.auth)
    assert records(stopped).keys() == records(whole).keys()
    assert [o.model_dump(exclude={"id"}) for o in stopped.observations()] == \
        [o.model_dump(exclude={"id"}) for o in whole.observations()]


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
def test_a_group_read_a_few_nodes_and_edges_at_a_time_arrives_whole(memory: Memory, graph: BuiltGraph,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(source, "PAGE", 2)  # Neo4j reads pages of PAGE (FalkorDB a group in one query)
    report = memory.import_graphiti(graph.source, group_id=graph.group, auth=graph.auth)
    assert (report.nodes, report.edges) == (len(graph.names), len(graph.edges))
    assert {i.removesuffix(OPEN_SUFFIX) for i in records(memory)} == {e.uuid.replace("-", "") for e in kept(graph)}


@pytest.mark.parametrize("api", ["sync"])
def test_without_a_group_id_a_graph_of_several_groups_is_refused_naming_them(memory: Memory, graph: BuiltGraph
                                                                             ) -> None:
    other = f"{graph.group}-b"
    graphs.save(graph, graphs.node(other, "Zed"))  # removed with the graph
    with pytest.raises(NotFoundError, match=rf"holds \d+ groups \(.*'{graph.group}', '{other}'.*\): choose one with "
                                            "group_id"):
        memory.import_graphiti(graph.source, auth=graph.auth)
    assert memory.facts() == []


@pytest.mark.parametrize("api", ["sync"])
def test_again_after_graphiti_added_edges_they_arrive_and_after_it_changed_one_nothing_is_written(
        make_memory: MakeMemory, graph: BuiltGraph) -> None:
    group = f"{graph.group}-c"  # removed with the graph
    ana, bo, cy = (graphs.node(group, name) for name in ("Ana", "Bo", "Cy"))
    knows = graphs.edge(group, ana, "KNOWS", bo, valid_at=datetime(2020, 1, 1, tzinfo=UTC))
    graphs.save(graph, ana, bo, cy, knows)
    memory = make_memory()
    memory.import_graphiti(graph.source, group_id=group, auth=graph.auth)
    graphs.save(graph, graphs.edge(group, ana, "KNOWS", cy, valid_at=datetime(2021, 1, 1, tzinfo=UTC)))
    assert memory.import_graphiti(graph.source, group_id=group, auth=graph.auth).records_created == 1
    before = snapshot(memory)
    # Graphiti ends an edge in place: the world time it stopped holding, and now as when it learned that.
    knows.invalid_at, knows.expired_at = datetime(2022, 1, 1, tzinfo=UTC), datetime.now(UTC)
    graphs.save(graph, knows)
    with pytest.raises(InvalidImportError, match="holds 1 fact record and 0 observations this export does not"):
        memory.import_graphiti(graph.source, group_id=group, auth=graph.auth)
    assert snapshot(memory) == before


@pytest.mark.parametrize("api", ["sync"])
def test_reading_builds_no_index_in_the_graphiti_database(memory: Memory, graph: BuiltGraph, backend_name: str
                                                          ) -> None:
    """graphiti-core's drivers build Graphiti's indexes when created in an event loop; the import's must not (on
    FalkorDB every graph of the server is asked for groups, this library's own included)."""
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

    if graph.graphiti_indexes:  # the build's own, on Neo4j: without them, one that reading builds shows
        import neo4j

        with neo4j.GraphDatabase.driver(graph.source, auth=graph.auth) as driver:
            for name in graph.graphiti_indexes:
                driver.execute_query(f"DROP INDEX `{name}` IF EXISTS")
    before = indexes()
    memory.import_graphiti(graph.source, group_id=graph.group, auth=graph.auth)
    assert indexes() == before


# -- the command line --------------------------------------------------------------------------------------


def synapse_graph(*args: str, env: dict[str, str], code: int = 0) -> subprocess.CompletedProcess[str]:
    """The installed ``synapse-graph`` command, as a person or script runs it."""
    entry = Path(sys.executable).parent / "synapse-graph"
    plain = {k: v for k, v in os.environ.items() if not k.startswith(("SYNAPSE_", "NEO4J_")) and k != "COLUMNS"}
    done = subprocess.run([str(entry), *args], env={**plain, **env}, capture_output=True, text=True, timeout=300,
                          check=False, stdin=subprocess.DEVNULL)
    assert done.returncode == code, done
    return done


def test_the_cli_imports_each_group_into_a_scope_of_its_own_and_again_adds_nothing(
        graph: BuiltGraph, backend_settings: dict[str, Any]) -> None:
    base = f"cli-{uuid.uuid4().hex[:10]}"
    env = {"NEO4J_USER": graph.auth[0], "NEO4J_PASSWORD": graph.auth[1]} if graph.auth else {}
    if "auth" in backend_settings:
        user, password = backend_settings["auth"]
        env |= {"SYNAPSE_NEO4J_USER": user, "SYNAPSE_NEO4J_PASSWORD": password}
    common = ("import", "--format", "graphiti", "--from", graph.source, "--db", backend_settings["location"])
    scopes = [f"{base}/{graph.group}"]
    try:
        every = json.loads(synapse_graph(*common, "--scope", base, "--json", env=env).stdout)
        scopes += [report["scope"] for report in every]  # the shared server may hold other Graphiti groups
        [ours] = [report for report in every if report["group_id"] == graph.group]
        assert (ours["scope"], ours["records_created"]) == (scopes[0], 10)
        done = synapse_graph(*common, "--group-id", graph.group, "--scope", scopes[0], env=env)
        assert done.stderr == ""  # no warning of the drivers (a Neo4j without Graphiti's optional keys warns)
        assert done.stdout.startswith(
            f"imported Graphiti group '{graph.group}' -> scope '{scopes[0]}': 8 entities (0 new) from 10 nodes, "
            "2 summaries (0 new), 10 fact records (0 new) from 9 edges")
        assert "works with -> WORKS_WITH" in done.stdout and "Dana (2 nodes)" in done.stdout
        assert f"edge {graph.edge('EMAILS', 'dana@example.com').uuid}: " in done.stdout
        with Memory(backend_settings["location"], scope=scopes[0], auth=backend_settings.get("auth")) as memory:
            assert [f.object for f in memory.facts("Dana", "LIVES_IN", as_of="2020-01-01")] == ["Paris"]
    finally:
        for scope in set(scopes):
            with Memory(backend_settings["location"], scope=scope, auth=backend_settings.get("auth")) as memory:
                memory.purge(scope=scope)


@pytest.mark.parametrize(("args", "says"), [
    (["--format", "graphiti", "export.jsonl"], "give --from URL"),
    (["--format", "graphiti"], "give --from URL"),
    (["export.jsonl", "--group-id", "team"], "--from and --group-id are for --format graphiti"),
    (["--format", "graphiti", "--from", "http://localhost:7474"], "is not a Graphiti database"),
])
def test_the_cli_says_what_an_import_of_graphiti_needs(args: list[str], says: str, tmp_path: Path) -> None:
    (tmp_path / "export.jsonl").write_text("", encoding="utf-8")
    done = subprocess.run([str(Path(sys.executable).parent / "synapse-graph"), "import", *args, "--db",
                           str(tmp_path / "store.db")], cwd=tmp_path, capture_output=True, text=True, timeout=120,
                          check=False, stdin=subprocess.DEVNULL)
    assert (done.returncode, done.stdout) == (2, "")
    assert says in done.stderr and done.stderr.startswith("error: "), done.stderr
