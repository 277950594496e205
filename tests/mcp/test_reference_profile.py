"""The reference-memory profile beyond the reference's own cases: a drop-in, on a temporal store.

- The nine tools are published under the reference's names with its input schemas (read from the
  reference server itself) and its annotations.
- A store the reference server wrote imports losslessly (``synapse-graph import --format
  reference-memory``): read back through the profile, it is the reference's graph, observation for
  observation; and the same calls made to the profile directly give the same graph.
- What the store adds: relations are facts (deleting one closes it; history and as_of through the
  native tools), observations are recalled and count in the quota, forgotten ones stay in history,
  reads come in pages that lose nothing, and deleting an entity erases it.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections import Counter
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client, StdioServerParameters

from synapse_graph.mcp import ServerOptions
from synapse_graph.mcp.formatting import CHARS_PER_TOKEN
from tests.mcp.conftest import REFERENCE_TOOLS, SYNAPSE_GRAPH, NodeTools, ServerCommand, connect
from tests.mcp.reference_targets import E, Graph, R, Target, make_target, our_target

pytestmark = pytest.mark.integration


@pytest.fixture
def ours(request: pytest.FixtureRequest, backend_name: str, tmp_path: Path) -> Target:
    return make_target(request, backend_name, tmp_path)


@pytest.fixture
def reference(node_tools: NodeTools, tmp_path: Path, request: pytest.FixtureRequest) -> Target:
    return make_target(request, "reference", tmp_path / "reference")


def as_sets(graph: dict[str, list[dict[str, Any]]]) -> tuple[Counter[str], Counter[str]]:
    """A graph without its order: entities (observations in their order) and relations, as multisets."""
    return (Counter(json.dumps(e, sort_keys=True, ensure_ascii=False) for e in graph["entities"]),
            Counter(json.dumps(r, sort_keys=True, ensure_ascii=False) for r in graph["relations"]))


def test_tools_have_the_reference_names_input_schemas_and_annotations(node_tools: NodeTools,
                                                                      embedded_server: ServerCommand,
                                                                      tmp_path: Path) -> None:
    async def tools_of(client: Client) -> list[Any]:
        return list((await client.list_tools()).tools)

    async def main() -> None:
        reference = StdioServerParameters(command=str(node_tools.memory_server), args=[], env={
            "PATH": node_tools.path, "MEMORY_FILE_PATH": str(tmp_path / "memory.jsonl")})
        async with Client(reference) as client:
            theirs = await tools_of(client)
        async with connect(embedded_server, "--profile", "reference-memory") as client:
            mine = await tools_of(client)
        assert [t.name for t in mine] == [t.name for t in theirs] == REFERENCE_TOOLS
        for their, my in zip(theirs, mine, strict=True):
            schema = json.loads(json.dumps(my.input_schema))
            if their.name in ("read_graph", "search_nodes", "open_nodes"):  # the one addition: pages
                assert schema["properties"].pop("cursor")["type"] == "string"
                assert "cursor" not in schema.get("required", [])
            if their.name == "add_observations":  # the one extension: when the observations happened, if known
                item = schema["properties"]["observations"]["items"]
                assert item["properties"].pop("validAt")["type"] == "string" and "validAt" not in item["required"]
            assert schema == their.input_schema, their.name
            assert my.annotations == their.annotations, their.name
            assert my.title == their.title and my.description.startswith(their.description), their.name

    anyio.run(main)


async def rich_story(kg: Graph) -> None:
    """Calls a user of the reference server makes: unicode, quotes, long text, free-text relation types."""
    await kg.create_entities(
        E("Zoë Ångström", "software engineer", 'Says "ship it" a lot', "Moved to Lisbon in 2021 🎉",
          "Line one\nline two", "x" * 3000),
        E("Acme Corp", "organization", "Makes bikes"),
        E("default_user", "person", "Prefers morning meetings"),
        E("Project Phoenix", "project"))
    await kg.create_relations(R("Zoë Ångström", "Acme Corp", "works at"),
                              R("default_user", "Zoë Ångström", "reportsTo"),
                              R("Zoë Ångström", "Project Phoenix", "leads"),
                              R("default_user", "Project Phoenix", "is_interested_in"))
    await kg.add_observations(("Acme Corp", ["Founded 1999", "Makes bikes"]), ("Project Phoenix", ["Due in Q3"]))
    await kg.delete_observations(("default_user", ["Prefers morning meetings"]))
    await kg.create_relations(R("Acme Corp", "Project Phoenix", "funds"))
    await kg.delete_relations(R("Acme Corp", "Project Phoenix", "funds"))


def test_a_reference_store_imports_losslessly_and_the_profile_behaves_alike(reference: Target, ours: Target,
                                                                           request: pytest.FixtureRequest,
                                                                           backend_name: str, tmp_path: Path) -> None:
    reference.run(rich_story)
    graphs: dict[str, Any] = {}

    def read_into(name: str) -> Callable[[Graph], Awaitable[None]]:
        async def read(kg: Graph) -> None:
            graphs[name] = await kg.read_graph()
        return read

    reference.run(read_into("reference"))
    ours.load(reference.notes["memory_file"])  # synapse-graph import --format reference-memory memory.jsonl
    ours.run(read_into("imported"))
    direct = our_target(backend_name, ours.notes["location"], ours.notes["auth"])
    direct.run(rich_story)  # the same calls, made to the profile directly
    direct.run(read_into("direct"))

    assert len(graphs["reference"]["entities"]) == 4 and len(graphs["reference"]["relations"]) == 4
    assert as_sets(graphs["imported"]) == as_sets(graphs["reference"])
    assert as_sets(graphs["direct"]) == as_sets(graphs["reference"])

    ours.load(reference.notes["memory_file"])  # twice: nothing is added
    ours.run(read_into("imported twice"))
    assert as_sets(graphs["imported twice"]) == as_sets(graphs["reference"])


def test_relations_are_facts_closed_not_erased(ours: Target) -> None:
    async def story(kg: Graph) -> None:
        await kg.create_entities(E("Alice", "person"), E("Acme", "company"), E("Globex", "company"))
        await kg.create_relations(R("Alice", "Acme", "works_at"), R("Alice", "Globex", "is_friend_of"))
        await kg.delete_relations(R("Alice", "Globex", "is_friend_of"))
        assert (await kg.read_graph())["relations"] == [R("Alice", "Acme", "works_at")]
        # A single-valued relation (works at one place at a time): a new value closes the old one.
        assert await kg.create_relations(R("Alice", "Globex", "works_at")) == [R("Alice", "Globex", "works_at")]
        assert (await kg.read_graph())["relations"] == [R("Alice", "Globex", "works_at")]

    ours.run(story)

    async def native() -> None:
        async with ours.native() as client:
            history = await client.call_tool("fact_history", {"subject": "Alice"})
            assert history.structured_content is not None
            facts = history.structured_content["facts"]
            intervals = {tuple(f["fact"][1:]): (f["valid"].partition("/")[0], f["valid"].partition("/")[2] or None)
                         for f in facts}
            assert set(intervals) == {("WORKS_AT", "Acme"), ("WORKS_AT", "Globex"), ("IS_FRIEND_OF", "Globex")}
            assert intervals[("WORKS_AT", "Globex")][1] is None
            assert intervals[("WORKS_AT", "Acme")][1] and intervals[("IS_FRIEND_OF", "Globex")][1]
            began = intervals[("WORKS_AT", "Acme")][0]  # as it held, and as the memory believed it, back then
            then = await client.call_tool("query_facts", {"subject": "Alice", "as_of": began, "known_at": began})
            assert then.structured_content is not None
            assert {tuple(f["fact"][1:]) for f in then.structured_content["facts"]} == {
                ("WORKS_AT", "Acme"), ("IS_FRIEND_OF", "Globex")}  # one call, one write: both held from then

    anyio.run(native)


def test_observations_are_recalled_count_in_the_quota_and_keep_their_history(ours: Target) -> None:
    memory = ours.memory()
    try:
        async def story(kg: Graph) -> None:
            await kg.create_entities(E("Alice", "person", "Speaks fluent Spanish", "Has a dog named Rex"))
            await kg.create_relations(R("Alice", "Alice", "self"))
            memory.set_rules(max_facts=4)  # 2 observations + 1 relation held: room for one more
            await kg.add_observations(("Alice", ["Plays chess"]))
            refused = await kg.error("add_observations", observations=[{"entityName": "Alice",
                                                                          "contents": ["Runs marathons"]}])
            assert "quota" in refused.lower()
            await kg.delete_observations(("Alice", ["Has a dog named Rex"]))

        ours.run(story)
        history = {o.text: o.expired_at for o in memory.observations("Alice", include_history=True)}
        assert set(history) == {"Speaks fluent Spanish", "Has a dog named Rex", "Plays chess"}
        assert history["Has a dog named Rex"] is not None and history["Speaks fluent Spanish"] is None

        async def recall() -> None:
            async with ours.native() as client:
                found = await client.call_tool("recall_context", {"query": "who speaks Spanish"})
                assert found.structured_content is not None
                assert [m.get("text") for m in found.structured_content["memories"]] == ["Speaks fluent Spanish"]

        anyio.run(recall)
    finally:
        memory.close()


def test_read_graph_comes_in_pages_within_the_budget_that_lose_nothing(request: pytest.FixtureRequest,
                                                                         backend_name: str, tmp_path: Path) -> None:
    budget = 1_000
    target = make_target(request, backend_name, tmp_path, ServerOptions(profile="reference-memory",
                                                                         max_result_tokens=budget))
    people = [E(f"Person {i:03d}", "person", f"Works on team {i % 7}", f"Joined in {2000 + i % 20}")
              for i in range(60)]

    async def story(kg: Graph) -> None:
        await kg.create_entities(*people)
        await kg.create_relations(*(R(f"Person {i:03d}", f"Person {(i + 1) % 60:03d}", "knows") for i in range(60)))
        pages, cursor = [], None
        while True:
            result = await kg.client.call_tool("read_graph", {"cursor": cursor} if cursor else {})
            assert result.structured_content is not None and not result.is_error
            text = "".join(getattr(block, "text", "") for block in result.content)
            size = len(text) + len(json.dumps(result.structured_content, ensure_ascii=False, separators=(",", ":")))
            assert size <= budget * CHARS_PER_TOKEN
            pages.append(result.structured_content)
            if len(pages) == 1:  # written after the first page: the later pages read the first page's snapshot
                await kg.create_entities(E("Late Comer", "person"))
            cursor = result.structured_content.get("nextCursor")
            if cursor is None:
                break
        assert len(pages) > 3
        entities = [e for page in pages for e in page["entities"]]
        relations = [r for page in pages for r in page["relations"]]
        assert entities == people  # each once, oldest first, whole
        assert sorted((r["from"], r["to"]) for r in relations) == sorted(
            (f"Person {i:03d}", f"Person {(i + 1) % 60:03d}") for i in range(60))
        assert "Late Comer" in [e["name"] for e in (await kg.read_graph())["entities"]]  # a new read sees it

    target.run(story)


def test_delete_entities_erases_as_the_reference_does(ours: Target) -> None:
    async def story(kg: Graph) -> None:
        await kg.create_entities(E("Alice", "person", "secret plans"), E("Bob", "person"))
        await kg.create_relations(R("Alice", "Bob", "knows"))
        await kg.delete_entities("Alice")

    ours.run(story)
    memory = ours.memory()
    try:
        assert memory.entity("Alice") is None and memory.history("Bob") == []
        assert memory.facts(None, None, "Bob", include_history=True) == []
        assert memory.observations(include_history=True) == []
    finally:
        memory.close()


def test_import_refuses_what_it_could_not_keep_exactly(ours: Target, tmp_path: Path) -> None:
    def run(lines: list[dict[str, Any]], *extra: str) -> subprocess.CompletedProcess[str]:
        source = tmp_path / "memory.jsonl"
        source.write_text("\n".join(json.dumps(line, ensure_ascii=False) for line in lines), encoding="utf-8")
        auth = ours.notes["auth"]
        env = {"SYNAPSE_NEO4J_USER": auth[0], "SYNAPSE_NEO4J_PASSWORD": auth[1]} if auth else {}
        return subprocess.run([str(SYNAPSE_GRAPH), "import", "--format", "reference-memory", str(source), "--db",
                               ours.notes["location"], "--scope", ours.notes["scope"], "--json", *extra],
                              env={**os.environ, **env}, capture_output=True, text=True, timeout=120,
                              check=False)

    alice = {"type": "entity", "name": "Alice", "entityType": "person", "observations": []}
    cases = [
        ([alice, {**alice, "name": "alice", "entityType": "handle"}], "import line 2", "case-insensitive"),
        ([alice, {"type": "relation", "from": "Alice", "to": "Alice", "relationType": "knows"},
          {"type": "relation", "from": "Alice", "to": "Alice", "relationType": "Knows"}], "import line 3",
         "one relation"),
        ([{**alice, "observations": ["mail me at alice@example.com"]}], "import line 1", "secret"),
        ([alice, {"type": "node", "name": "x"}], "import line 2", "unknown type"),
        ([alice, {"type": "relation", "from": "Alice", "to": "Acme", "relationType": "works at"},
          {"type": "relation", "from": "Alice", "to": "Globex", "relationType": "works at"}], "import line 3",
         "one value at a time"),  # written together, one of two values of a single-valued predicate is lost
    ]
    for lines, where, why in cases:
        done = run(lines)
        assert done.returncode == 2, done.stdout
        message = json.loads(done.stderr)["message"]
        assert where in message and why in message, message
    memory = ours.memory()
    try:
        assert memory.stats().entities == 0  # nothing of the refused files was written
        done = run([{**alice, "observations": ["mail me at alice@example.com"]}], "--redact-secrets")
        assert done.returncode == 0 and json.loads(done.stdout)["observations"] == 1, done.stderr
        [kept] = memory.observations("Alice")
        assert "alice@example.com" not in kept.text and kept.text.startswith("mail me at ")
    finally:
        memory.close()


def test_a_write_call_refused_for_one_item_writes_none_of_them(ours: Target) -> None:
    async def story(kg: Graph) -> None:
        await kg.create_entities(E("Alice", "person", "likes tea"))
        too_long = "x" * 10_001  # an observation longer than the store keeps
        assert "observation" in await kg.error("create_entities", entities=[
            E("Bob", "person", "plays chess"), E("Carol", "person", too_long)])
        assert "long" in await kg.error("create_relations", relations=[
            R("Alice", "Dana", "knows"), R("Alice", "Erin", "y" * 600)])  # a relation type too long to keep
        assert "observation" in await kg.error("add_observations", observations=[
            {"entityName": "Alice", "contents": ["has a dog"]}, {"entityName": "Alice", "contents": [too_long]}])
        assert await kg.read_graph() == {"entities": [E("Alice", "person", "likes tea")], "relations": []}

    ours.run(story)


def test_two_values_of_a_single_valued_relation_in_one_call_are_refused_naming_both(ours: Target) -> None:
    """The reference server would store both; here WORKS_AT holds one value at a time, and both written at one
    instant would leave the first without a trace. The call is refused whole, as the import refuses such a file."""
    async def story(kg: Graph) -> None:
        await kg.create_entities(E("Alice", "person"))
        said = await kg.error("create_relations", relations=[
            R("Alice", "Acme", "works at"), R("Alice", "Bob", "knows"), R("Alice", "Globex", "works_at")])
        for part in ('"Alice"', '"Acme"', '"works at"', '"Globex"', '"works_at"', "one value at a time",
                     "nothing was written"):
            assert part in said, said
        assert (await kg.read_graph())["relations"] == []  # all or nothing: not even Bob
        held = await kg.create_relations(R("Alice", "Acme", "works at"), R("Alice", "Bob", "knows"))
        assert held == [R("Alice", "Acme", "works at"), R("Alice", "Bob", "knows")]
        # A value held already beside a new one: two values given as holding now, refused the same way.
        said = await kg.error("create_relations", relations=[R("Alice", "Acme", "works at"),
                                                             R("Alice", "Globex", "works at")])
        assert '"Acme"' in said and '"Globex"' in said, said
        assert sorted(json.dumps(r) for r in (await kg.read_graph())["relations"]) == sorted(
            json.dumps(r) for r in held)
        # One value a call: the later one closes the earlier (history keeps it), as documented.
        assert await kg.create_relations(R("Alice", "Globex", "works at")) == [R("Alice", "Globex", "works at")]

    ours.run(story)


def _import_reference(target: Target, source: Path) -> subprocess.CompletedProcess[str]:
    auth = target.notes["auth"]
    env = {"SYNAPSE_NEO4J_USER": auth[0], "SYNAPSE_NEO4J_PASSWORD": auth[1]} if auth else {}
    return subprocess.run([str(SYNAPSE_GRAPH), "import", "--format", "reference-memory", str(source), "--db",
                           target.notes["location"], "--scope", target.notes["scope"], "--json"],
                          env={**os.environ, **env}, capture_output=True, text=True, timeout=120, check=False)


def test_importing_a_reference_file_again_restores_what_was_deleted_since(ours: Target, tmp_path: Path) -> None:
    source = tmp_path / "memory.jsonl"
    source.write_text("\n".join(json.dumps(line) for line in [
        {"type": "entity", "name": "Alice", "entityType": "person", "observations": ["likes tea", "has a dog"]},
        {"type": "entity", "name": "Bob", "entityType": "person", "observations": []},
        {"type": "relation", "from": "Alice", "to": "Bob", "relationType": "knows"}]), encoding="utf-8")
    first = _import_reference(ours, source)
    assert first.returncode == 0, first.stderr

    async def delete_and_add(kg: Graph) -> None:
        await kg.delete_relations(R("Alice", "Bob", "knows"))
        await kg.delete_observations(("Alice", ["likes tea"]))
        await kg.create_entities(E("Carol", "person", "writes poems"))  # the scope holds more than the file now
        assert (await kg.read_graph())["relations"] == []

    ours.run(delete_and_add)
    again = _import_reference(ours, source)
    assert again.returncode == 0, again.stderr
    report = json.loads(again.stdout)
    assert (report["relations"], report["observations"]) == (1, 1)  # what was restored, and nothing else
    assert (report["skipped_relations"], report["skipped_observations"]) == (0, 1)

    async def check(kg: Graph) -> None:
        graph = await kg.read_graph()
        assert graph["relations"] == [R("Alice", "Bob", "knows")]
        assert sorted((e["name"], sorted(e["observations"])) for e in graph["entities"]) == [
            ("Alice", ["has a dog", "likes tea"]), ("Bob", []), ("Carol", ["writes poems"])]

    ours.run(check)
    unchanged = _import_reference(ours, source)  # a third time: everything is held
    assert (json.loads(unchanged.stdout)["relations"], json.loads(unchanged.stdout)["observations"]) == (0, 0)


def test_a_reference_line_json_cannot_read_is_refused_in_one_line_naming_it(ours: Target, tmp_path: Path) -> None:
    alice = json.dumps({"type": "entity", "name": "Alice", "entityType": "person", "observations": []})
    source = tmp_path / "memory.jsonl"
    for bad in ('{"type": "entity", "name": ' + "[" * 100_000 + "]" * 100_000 + "}",
                '{"type": "entity", "name": "Bob", "entityType": "person", "observations": [], "n": ' + "9" * 5_001
                + "}"):
        source.write_text(f"{alice}\n{bad}\n", encoding="utf-8")
        done = _import_reference(ours, source)
        assert done.returncode == 2, done.stderr
        message = json.loads(done.stderr)["message"]
        assert "import line 2" in message and len(done.stderr.splitlines()) == 1, done.stderr
    memory = ours.memory()
    try:
        assert memory.stats().entities == 0
    finally:
        memory.close()
