"""The reference memory server's own behaviour cases, ported to the protocol and run on three servers.

Each test is one ``it(...)`` of ``src/memory/__tests__/knowledge-graph.test.ts`` in
modelcontextprotocol/servers (36 cases, in its order and under its names), which calls the
server's ``KnowledgeGraphManager`` directly; here the same steps are MCP tool calls. Every case
runs against the reference server itself (``@modelcontextprotocol/server-memory``, pinned in
``tests/mcp/node/package.json``), which shows the port says what the reference does, and against
``synapse-graph mcp --profile reference-memory`` on each backend.

Where a case reads the reference's file, the port checks what that file is for: "file
persistence" is a new server process on the same store, and "JSONL format" is a file of the
reference's lines taken as the store (the reference reads it; ours imports it with
``synapse-graph import --format reference-memory``).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.mcp.reference_targets import TARGETS, E, Graph, R, Target, make_target

pytestmark = pytest.mark.integration


@pytest.fixture(params=TARGETS)
def target(request: pytest.FixtureRequest, tmp_path: Path) -> Target:
    return make_target(request, str(request.param), tmp_path)


def names(graph: dict[str, list[dict[str, str]]]) -> list[str]:
    return [e["name"] for e in graph["entities"]]


# -- createEntities -------------------------------------------------------------------------------------


def test_create_entities_should_create_new_entities(target: Target) -> None:
    async def case(kg: Graph) -> None:
        entities = [E("Alice", "person", "works at Acme Corp"), E("Bob", "person", "likes programming")]
        assert await kg.create_entities(*entities) == entities
        assert len((await kg.read_graph())["entities"]) == 2
    target.run(case)


def test_create_entities_should_not_create_duplicate_entities(target: Target) -> None:
    async def case(kg: Graph) -> None:
        await kg.create_entities(E("Alice", "person", "works at Acme Corp"))
        assert await kg.create_entities(E("Alice", "person", "works at Acme Corp")) == []
        assert len((await kg.read_graph())["entities"]) == 1
    target.run(case)


def test_create_entities_should_handle_empty_entity_arrays(target: Target) -> None:
    async def case(kg: Graph) -> None:
        assert await kg.create_entities() == []
    target.run(case)


# -- createRelations ------------------------------------------------------------------------------------


def test_create_relations_should_create_new_relations(target: Target) -> None:
    async def case(kg: Graph) -> None:
        await kg.create_entities(E("Alice", "person"), E("Bob", "person"))
        assert await kg.create_relations(R("Alice", "Bob", "knows")) == [R("Alice", "Bob", "knows")]
        assert len((await kg.read_graph())["relations"]) == 1
    target.run(case)


def test_create_relations_should_not_create_duplicate_relations(target: Target) -> None:
    async def case(kg: Graph) -> None:
        await kg.create_entities(E("Alice", "person"), E("Bob", "person"))
        await kg.create_relations(R("Alice", "Bob", "knows"))
        assert await kg.create_relations(R("Alice", "Bob", "knows")) == []
        assert len((await kg.read_graph())["relations"]) == 1
    target.run(case)


def test_create_relations_should_handle_empty_relation_arrays(target: Target) -> None:
    async def case(kg: Graph) -> None:
        assert await kg.create_relations() == []
    target.run(case)


# -- addObservations ------------------------------------------------------------------------------------


def test_add_observations_should_add_observations_to_existing_entities(target: Target) -> None:
    async def case(kg: Graph) -> None:
        await kg.create_entities(E("Alice", "person", "works at Acme Corp"))
        results = await kg.add_observations(("Alice", ["likes coffee", "has a dog"]))
        assert len(results) == 1 and results[0]["entityName"] == "Alice"
        assert len(results[0]["addedObservations"]) == 2
        alice = next(e for e in (await kg.read_graph())["entities"] if e["name"] == "Alice")
        assert len(alice["observations"]) == 3
    target.run(case)


def test_add_observations_should_not_add_duplicate_observations(target: Target) -> None:
    async def case(kg: Graph) -> None:
        await kg.create_entities(E("Alice", "person", "works at Acme Corp"))
        await kg.add_observations(("Alice", ["likes coffee"]))
        results = await kg.add_observations(("Alice", ["likes coffee", "has a dog"]))
        assert results[0]["addedObservations"] == ["has a dog"]
        alice = next(e for e in (await kg.read_graph())["entities"] if e["name"] == "Alice")
        assert len(alice["observations"]) == 3
    target.run(case)


def test_add_observations_should_throw_error_for_non_existent_entity(target: Target) -> None:
    async def case(kg: Graph) -> None:
        message = await kg.error("add_observations", observations=[
            {"entityName": "NonExistent", "contents": ["some observation"]}])
        assert "Entity with name NonExistent not found" in message
    target.run(case)


# -- deleteEntities -------------------------------------------------------------------------------------


def test_delete_entities_should_delete_entities(target: Target) -> None:
    async def case(kg: Graph) -> None:
        await kg.create_entities(E("Alice", "person"), E("Bob", "person"))
        await kg.delete_entities("Alice")
        assert names(await kg.read_graph()) == ["Bob"]
    target.run(case)


def test_delete_entities_should_cascade_delete_relations_when_deleting_entities(target: Target) -> None:
    async def case(kg: Graph) -> None:
        await kg.create_entities(E("Alice", "person"), E("Bob", "person"), E("Charlie", "person"))
        await kg.create_relations(R("Alice", "Bob", "knows"), R("Bob", "Charlie", "knows"))
        await kg.delete_entities("Bob")
        graph = await kg.read_graph()
        assert len(graph["entities"]) == 2 and graph["relations"] == []
    target.run(case)


def test_delete_entities_should_handle_deleting_non_existent_entities(target: Target) -> None:
    async def case(kg: Graph) -> None:
        await kg.delete_entities("NonExistent")
        assert (await kg.read_graph())["entities"] == []
    target.run(case)


# -- deleteObservations ---------------------------------------------------------------------------------


def test_delete_observations_should_delete_observations_from_entities(target: Target) -> None:
    async def case(kg: Graph) -> None:
        await kg.create_entities(E("Alice", "person", "works at Acme Corp", "likes coffee"))
        await kg.delete_observations(("Alice", ["likes coffee"]))
        alice = next(e for e in (await kg.read_graph())["entities"] if e["name"] == "Alice")
        assert alice["observations"] == ["works at Acme Corp"]
    target.run(case)


def test_delete_observations_should_handle_deleting_from_non_existent_entities(target: Target) -> None:
    async def case(kg: Graph) -> None:
        await kg.delete_observations(("NonExistent", ["some observation"]))  # no error
        assert (await kg.read_graph())["entities"] == []
    target.run(case)


# -- deleteRelations ------------------------------------------------------------------------------------


def test_delete_relations_should_delete_specific_relations(target: Target) -> None:
    async def case(kg: Graph) -> None:
        await kg.create_entities(E("Alice", "person"), E("Bob", "person"))
        await kg.create_relations(R("Alice", "Bob", "knows"), R("Alice", "Bob", "works_with"))
        await kg.delete_relations(R("Alice", "Bob", "knows"))
        relations = (await kg.read_graph())["relations"]
        assert len(relations) == 1 and relations[0]["relationType"] == "works_with"
    target.run(case)


# -- readGraph ------------------------------------------------------------------------------------------


def test_read_graph_should_return_empty_graph_when_file_does_not_exist(target: Target) -> None:
    async def case(kg: Graph) -> None:
        assert await kg.read_graph() == {"entities": [], "relations": []}
    target.run(case)


def test_read_graph_should_return_complete_graph_with_entities_and_relations(target: Target) -> None:
    async def case(kg: Graph) -> None:
        await kg.create_entities(E("Alice", "person", "works at Acme Corp"))
        await kg.create_relations(R("Alice", "Alice", "self"))
        graph = await kg.read_graph()
        assert len(graph["entities"]) == 1 and len(graph["relations"]) == 1
    target.run(case)


# -- searchNodes ----------------------------------------------------------------------------------------


async def _search_world(kg: Graph) -> None:
    await kg.create_entities(E("Alice", "person", "works at Acme Corp", "likes programming"),
                             E("Bob", "person", "works at TechCo"), E("Acme Corp", "company", "tech company"))
    await kg.create_relations(R("Alice", "Acme Corp", "works_at"), R("Bob", "Acme Corp", "competitor"))


def test_search_nodes_should_search_by_entity_name(target: Target) -> None:
    async def case(kg: Graph) -> None:
        await _search_world(kg)
        assert names(await kg.search_nodes("Alice")) == ["Alice"]
    target.run(case)


def test_search_nodes_should_search_by_entity_type(target: Target) -> None:
    async def case(kg: Graph) -> None:
        await _search_world(kg)
        assert names(await kg.search_nodes("company")) == ["Acme Corp"]
    target.run(case)


def test_search_nodes_should_search_by_observation_content(target: Target) -> None:
    async def case(kg: Graph) -> None:
        await _search_world(kg)
        assert names(await kg.search_nodes("programming")) == ["Alice"]
    target.run(case)


def test_search_nodes_should_be_case_insensitive(target: Target) -> None:
    async def case(kg: Graph) -> None:
        await _search_world(kg)
        assert names(await kg.search_nodes("ALICE")) == ["Alice"]
    target.run(case)


def test_search_nodes_should_include_relations_where_at_least_one_endpoint_matches(target: Target) -> None:
    async def case(kg: Graph) -> None:
        await _search_world(kg)
        found = await kg.search_nodes("Acme")
        assert sorted(names(found)) == ["Acme Corp", "Alice"]
        # Alice -> Acme Corp (Alice matched) and Bob -> Acme Corp (Acme Corp matched)
        assert len(found["relations"]) == 2
    target.run(case)


def test_search_nodes_should_include_outgoing_relations_to_unmatched_entities(target: Target) -> None:
    async def case(kg: Graph) -> None:
        await _search_world(kg)
        found = await kg.search_nodes("Alice")
        assert len(found["entities"]) == 1
        assert [(r["from"], r["to"]) for r in found["relations"]] == [("Alice", "Acme Corp")]
    target.run(case)


def test_search_nodes_should_return_empty_graph_for_no_matches(target: Target) -> None:
    async def case(kg: Graph) -> None:
        await _search_world(kg)
        assert await kg.search_nodes("NonExistent") == {"entities": [], "relations": []}
    target.run(case)


# -- openNodes ------------------------------------------------------------------------------------------


async def _open_world(kg: Graph) -> None:
    await kg.create_entities(E("Alice", "person"), E("Bob", "person"), E("Charlie", "person"))
    await kg.create_relations(R("Alice", "Bob", "knows"), R("Bob", "Charlie", "knows"))


def test_open_nodes_should_open_specific_nodes_by_name(target: Target) -> None:
    async def case(kg: Graph) -> None:
        await _open_world(kg)
        assert sorted(names(await kg.open_nodes(["Alice", "Bob"]))) == ["Alice", "Bob"]
    target.run(case)


def test_open_nodes_should_include_all_relations_connected_to_opened_nodes(target: Target) -> None:
    async def case(kg: Graph) -> None:
        await _open_world(kg)
        found = await kg.open_nodes(["Alice", "Bob"])
        assert sorted((r["from"], r["to"]) for r in found["relations"]) == [("Alice", "Bob"), ("Bob", "Charlie")]
    target.run(case)


def test_open_nodes_should_include_relations_connected_to_opened_nodes(target: Target) -> None:
    async def case(kg: Graph) -> None:
        await _open_world(kg)
        found = await kg.open_nodes(["Bob"])
        assert sorted((r["from"], r["to"]) for r in found["relations"]) == [("Alice", "Bob"), ("Bob", "Charlie")]
    target.run(case)


def test_open_nodes_should_include_outgoing_relations_to_nodes_not_in_the_open_set(target: Target) -> None:
    async def case(kg: Graph) -> None:
        await _open_world(kg)
        found = await kg.open_nodes(["Alice"])
        assert names(found) == ["Alice"]
        assert [(r["from"], r["to"]) for r in found["relations"]] == [("Alice", "Bob")]
    target.run(case)


def test_open_nodes_should_include_incoming_relations_from_nodes_not_in_the_open_set(target: Target) -> None:
    async def case(kg: Graph) -> None:
        await _open_world(kg)
        found = await kg.open_nodes(["Charlie"])
        assert names(found) == ["Charlie"]
        assert [(r["from"], r["to"]) for r in found["relations"]] == [("Bob", "Charlie")]
    target.run(case)


def test_open_nodes_should_handle_opening_non_existent_nodes(target: Target) -> None:
    async def case(kg: Graph) -> None:
        await _open_world(kg)
        assert (await kg.open_nodes(["NonExistent"]))["entities"] == []
    target.run(case)


def test_open_nodes_should_handle_empty_node_list(target: Target) -> None:
    async def case(kg: Graph) -> None:
        await _open_world(kg)
        assert await kg.open_nodes([]) == {"entities": [], "relations": []}
    target.run(case)


# -- file persistence -----------------------------------------------------------------------------------


def test_file_persistence_should_persist_data_across_manager_instances(target: Target) -> None:
    async def write(kg: Graph) -> None:
        await kg.create_entities(E("Alice", "person", "persistent data"))

    async def read(kg: Graph) -> None:  # a new server on the same store
        assert (await kg.read_graph())["entities"] == [E("Alice", "person", "persistent data")]

    target.run(write)
    target.run(read)


def test_file_persistence_should_handle_jsonl_format_correctly(target: Target, tmp_path: Path) -> None:
    lines = [{"type": "entity", "name": "Alice", "entityType": "person", "observations": []},
             {"type": "relation", "from": "Alice", "to": "Alice", "relationType": "self"}]
    memory_file = tmp_path / "from-the-reference.jsonl"
    memory_file.write_text("\n".join(json.dumps(line) for line in lines))  # as the reference writes it
    target.load(memory_file)

    async def case(kg: Graph) -> None:
        assert await kg.read_graph() == {"entities": [E("Alice", "person")], "relations": [R("Alice", "Alice", "self")]}
    target.run(case)


async def _no_type_field(found: dict[str, list[dict[str, object]]]) -> None:
    for entity in found["entities"]:
        assert set(entity) == {"name", "entityType", "observations"}
    for relation in found["relations"]:
        assert set(relation) == {"from", "to", "relationType"}


def test_file_persistence_should_strip_type_field_from_entities_when_loading_from_file(target: Target) -> None:
    async def write(kg: Graph) -> None:
        await kg.create_entities(E("Alice", "person", "test observation"), E("Bob", "person"))
        await kg.create_relations(R("Alice", "Bob", "knows"))

    async def read(kg: Graph) -> None:
        graph = await kg.read_graph()
        assert len(graph["entities"]) == 2 and len(graph["relations"]) == 1
        await _no_type_field(graph)

    target.run(write)
    target.run(read)


def test_file_persistence_should_strip_type_field_from_search_nodes_results(target: Target) -> None:
    async def write(kg: Graph) -> None:
        await kg.create_entities(E("Alice", "person", "works at Acme"))
        await kg.create_relations(R("Alice", "Alice", "self"))

    async def read(kg: Graph) -> None:
        found = await kg.search_nodes("Alice")
        assert names(found) == ["Alice"] and [r["from"] for r in found["relations"]] == ["Alice"]
        await _no_type_field(found)

    target.run(write)
    target.run(read)


def test_file_persistence_should_strip_type_field_from_open_nodes_results(target: Target) -> None:
    async def write(kg: Graph) -> None:
        await kg.create_entities(E("Alice", "person"), E("Bob", "person"))
        await kg.create_relations(R("Alice", "Bob", "knows"))

    async def read(kg: Graph) -> None:
        found = await kg.open_nodes(["Alice", "Bob"])
        assert len(found["entities"]) == 2 and len(found["relations"]) == 1
        await _no_type_field(found)

    target.run(write)
    target.run(read)
