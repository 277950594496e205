"""Graphiti graphs written by graphiti-core itself, for the import tests (not a test module).

Graphiti writes each triple with ``Graphiti.add_triplet`` and its offline clients (the benchmarks' exact
oracle LLM, hashed-word embedder and word-overlap ranker): it resolves nodes, de-duplicates edges and
ends the value a single-valued predicate had, setting ``invalid_at`` and ``expired_at`` as it does with
a real model. A duplicate node (Graphiti keeps them when its resolution misses) and an episode node are
saved through graphiti-core's models. What the tests compare with is read back through graphiti-core.
"""

from __future__ import annotations

import asyncio
import os
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from benchmarks.graphiti_peer import graphiti_index_names, offline_clients
from tests.ci import require

os.environ.setdefault("GRAPHITI_TELEMETRY_ENABLED", "false")
SINGLE_VALUED = frozenset({"LIVES_IN"})
SECRET = "sk-live-4f9a1c2b3d4e5f60718293a4b5c6d7e8"


def day(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=UTC)


# (subject, edge name, object, valid_at, invalid_at, fact text or None for "S NAME O")
STORY: list[tuple[str, str, str, datetime | None, datetime | None, str | None]] = [
    ("Dana", "LIVES_IN", "Paris", day("2019-01-01"), None, None),
    ("Dana", "WORKS_AT", "Acme", day("2020-03-01"), None, None),
    ("Dana", "LIVES_IN", "London", day("2021-06-01T09:30:00.250001"), None, None),  # Graphiti ends Paris here
    ("Dana", "works with", "Sam", day("2022-01-01"), None, "Dana works with Sam"),
    ("Sam", "MEMBER_OF", "Chess Club", day("2018-01-01"), day("2020-01-01"), None),  # arrives ended
    ("Sam", "LIKES", "Tea", None, None, None),  # no valid_at
    ("Sam", "USES", "Vault", day("2023-02-01"), None, f"Sam's api_key={SECRET}"),
    ("Sam", "EMAILS", "dana@example.com", day("2023-03-01"), None, None),  # a name that is a secret
]


@dataclass
class BuiltGraph:
    """A Graphiti group, where it is, and what graphiti-core reads back from it."""

    source: str
    auth: tuple[str, str] | None
    group: str
    episode: str
    duplicate: str
    """The uuid of the second node named Dana."""
    edges: list[Any] = field(default_factory=list)
    names: dict[str, str] = field(default_factory=dict)
    """Node name by uuid."""
    graphiti_indexes: list[str] = field(default_factory=list)
    """Neo4j: Graphiti's indexes that building the graph created (none was there before)."""

    def edge(self, name: str, target: str) -> Any:
        [found] = [e for e in self.edges if e.name == name and self.names[e.target_node_uuid] == target]
        return found


async def _write(driver: Any, group: str) -> tuple[str, str]:
    from graphiti_core import Graphiti
    from graphiti_core.edges import EntityEdge
    from graphiti_core.nodes import EntityNode, EpisodeType, EpisodicNode

    llm, embedder, ranker = offline_clients(SINGLE_VALUED)
    graphiti = Graphiti(graph_driver=driver, llm_client=llm, embedder=embedder, cross_encoder=ranker)
    await graphiti.build_indices_and_constraints()
    episode = EpisodicNode(name="chat 1", group_id=group, source=EpisodeType.message, source_description="chat",
                           content="Dana: I work at Acme.", valid_at=day("2020-03-01"))
    await episode.save(driver)
    uuids: dict[str, str] = {}

    def node(name: str) -> EntityNode:
        summary = "Dana is an engineer." if name == "Dana" else ""
        return EntityNode(uuid=uuids.setdefault(name, str(uuid.uuid4())), name=name, group_id=group,
                          labels=["Entity", "Person"] if name in ("Dana", "Sam") else ["Entity"], summary=summary)

    for subject, name, obj, valid_at, invalid_at, fact in STORY:
        edge = EntityEdge(group_id=group, source_node_uuid=node(subject).uuid, target_node_uuid=node(obj).uuid,
                          name=name, fact=fact or f"{subject} {name} {obj}", created_at=datetime.now(UTC),
                          valid_at=valid_at, invalid_at=invalid_at,
                          episodes=[episode.uuid] if name == "WORKS_AT" else [])
        result = await graphiti.add_triplet(node(subject), edge, node(obj))
        for resolved in result.nodes:
            uuids[resolved.name] = resolved.uuid
    twin = EntityNode(name="dana", group_id=group, labels=["Entity"], summary="A second Dana node.")
    await twin.generate_name_embedding(embedder)
    await twin.save(driver)
    knows = EntityEdge(group_id=group, source_node_uuid=twin.uuid, target_node_uuid=uuids["Sam"], name="KNOWS",
                       fact="dana KNOWS Sam", created_at=datetime.now(UTC), valid_at=day("2023-01-01"))
    await graphiti.add_triplet(twin, knows, node("Sam"))
    return episode.uuid, twin.uuid


async def _read_back(driver: Any, built: BuiltGraph) -> None:
    from graphiti_core.edges import EntityEdge
    from graphiti_core.nodes import EntityNode

    built.edges = list(await EntityEdge.get_by_group_ids(driver, [built.group]))
    built.names = {n.uuid: n.name for n in await EntityNode.get_by_group_ids(driver, [built.group])}


def save(graph: BuiltGraph, *items: Any) -> None:
    """Nodes and edges saved as they are by graphiti-core into the graph's database (its graph on FalkorDB)."""

    async def run() -> None:
        driver = _driver(graph.source, graph.auth, graph.group)
        try:
            for item in items:
                await item.save(driver)
        finally:
            await driver.close()

    asyncio.run(run())


def node(group: str, name: str) -> Any:
    from graphiti_core.nodes import EntityNode

    return EntityNode(name=name, group_id=group, labels=["Entity"], name_embedding=[1.0, 0.0])


def edge(group: str, source: Any, name: str, target: Any, **times: Any) -> Any:
    from graphiti_core.edges import EntityEdge

    return EntityEdge(group_id=group, source_node_uuid=source.uuid, target_node_uuid=target.uuid, name=name,
                      fact=f"{source.name} {name} {target.name}", fact_embedding=[1.0, 0.0],
                      created_at=datetime.now(UTC), **times)


def _driver(source: str, auth: tuple[str, str] | None, group: str) -> Any:
    """A graphiti-core driver, without the index build it starts in a running loop (the build is explicit)."""
    from synapse_graph.graphiti.source import _no_index_build

    if source.startswith("bolt"):
        from graphiti_core.driver.neo4j_driver import Neo4jDriver

        assert auth is not None
        return _no_index_build(Neo4jDriver(source, auth[0], auth[1]))
    from falkordb.asyncio import FalkorDB
    from graphiti_core.driver.falkordb_driver import FalkorDriver

    from synapse_graph.backends.falkordb import redis_url

    return _no_index_build(FalkorDriver(falkor_db=FalkorDB.from_url(redis_url(source)), database=group))


def build(source: str, auth: tuple[str, str] | None, group: str) -> BuiltGraph:
    """Graphiti writes :data:`STORY` into ``group`` at ``source``; returns what it holds."""
    require("graphiti_core")

    async def run() -> BuiltGraph:
        driver = _driver(source, auth, group)
        try:
            episode, duplicate = await _write(driver, group)
            built = BuiltGraph(source, auth, group, episode, duplicate)
            await _read_back(driver, built)
            return built
        finally:
            await driver.close()

    return asyncio.run(run())


@contextmanager
def neo4j_graph(location: str, auth: tuple[str, str]) -> Iterator[Callable[[], BuiltGraph]]:
    """A Graphiti group of its own on the shared Neo4j; afterwards its nodes are deleted, and Graphiti's
    indexes too unless they were there before (they would slow the library's writes)."""
    import neo4j

    group = f"synapse-test-{uuid.uuid4().hex[:12]}"
    with neo4j.GraphDatabase.driver(location, auth=auth) as driver:
        before = {r["name"] for r in driver.execute_query("SHOW INDEXES YIELD name").records}
        def built() -> BuiltGraph:
            graph = build(location, auth, group)
            graph.graphiti_indexes = sorted(set(graphiti_index_names()) - before)
            return graph

        try:
            yield built
        finally:
            driver.execute_query("MATCH (n) WHERE n.group_id STARTS WITH $group DETACH DELETE n", group=group)
            for name in set(graphiti_index_names()) - before:
                driver.execute_query(f"DROP INDEX `{name}` IF EXISTS")


@contextmanager
def falkordb_graph(source: str) -> Iterator[Callable[[], BuiltGraph]]:
    """A Graphiti group in a graph of its own on a FalkorDB server (``source``), deleted afterwards."""
    import redis

    from synapse_graph.backends.falkordb import redis_url

    group = f"synapse_test_{uuid.uuid4().hex[:12]}"
    try:
        yield lambda: build(source, None, group)
    finally:
        with redis.Redis.from_url(redis_url(source)) as client:
            if group.encode() in client.execute_command("GRAPH.LIST"):
                client.execute_command("GRAPH.DELETE", group)
