"""Servers of the reference memory server's nine tools, driven alike: the reference itself, or our profile.

A :class:`Target` is one such server on a store of its own: the reference server
(``@modelcontextprotocol/server-memory`` under Node, over stdio, on a ``memory.jsonl`` of its own), or
``synapse-graph``'s ``reference-memory`` profile in process on a fresh scope of one backend. A test
written against :class:`Graph` runs unchanged on each, which is how the ported cases show they say
what the reference does (they pass on it) and that the profile does the same.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client, StdioServerParameters
from mcp.types import CallToolResult

from synapse_graph import Memory
from synapse_graph.aio import AsyncMemory
from synapse_graph.mcp import ServerOptions, build_server
from tests.mcp.conftest import SYNAPSE_GRAPH, NodeTools

TARGETS = ("reference", "falkordb", "neo4j")


def text_of(result: CallToolResult) -> str:
    return "\n".join(getattr(block, "text", "") for block in result.content)


def E(name: str, entity_type: str, *observations: str) -> dict[str, Any]:
    return {"name": name, "entityType": entity_type, "observations": list(observations)}


def R(source: str, target: str, relation_type: str) -> dict[str, str]:
    return {"from": source, "to": target, "relationType": relation_type}


class Graph:
    """A connected client of one target, with the reference tools as methods returning structured content."""

    def __init__(self, client: Client) -> None:
        self.client = client

    async def call(self, tool: str, **arguments: Any) -> Any:
        result = await self.client.call_tool(tool, arguments)
        assert not result.is_error, f"{tool}({arguments}): {text_of(result)}"
        assert result.structured_content is not None
        return result.structured_content

    async def error(self, tool: str, **arguments: Any) -> str:
        result = await self.client.call_tool(tool, arguments)
        assert result.is_error, f"{tool}({arguments}) was accepted: {text_of(result)}"
        return text_of(result)

    async def create_entities(self, *entities: dict[str, Any]) -> list[dict[str, Any]]:
        return list((await self.call("create_entities", entities=list(entities)))["entities"])

    async def create_relations(self, *relations: dict[str, str]) -> list[dict[str, Any]]:
        return list((await self.call("create_relations", relations=list(relations)))["relations"])

    async def add_observations(self, *items: tuple[str, list[str]]) -> list[dict[str, Any]]:
        found = await self.call("add_observations", observations=[
            {"entityName": name, "contents": contents} for name, contents in items])
        return list(found["results"])

    async def delete_entities(self, *names: str) -> None:
        await self.call("delete_entities", entityNames=list(names))

    async def delete_observations(self, *items: tuple[str, list[str]]) -> None:
        await self.call("delete_observations", deletions=[
            {"entityName": name, "observations": texts} for name, texts in items])

    async def delete_relations(self, *relations: dict[str, str]) -> None:
        await self.call("delete_relations", relations=list(relations))

    async def _pages(self, tool: str, **arguments: Any) -> dict[str, Any]:
        """Every page of a read (the reference answers in one), as one graph."""
        graph: dict[str, Any] = {"entities": [], "relations": []}
        cursor = None
        while True:
            page = await self.call(tool, **arguments, **({"cursor": cursor} if cursor else {}))
            graph["entities"] += page["entities"]
            graph["relations"] += page["relations"]
            cursor = page.get("nextCursor")
            if cursor is None:
                return graph

    async def read_graph(self) -> dict[str, Any]:
        return await self._pages("read_graph")

    async def search_nodes(self, query: str) -> dict[str, Any]:
        return await self._pages("search_nodes", query=query)

    async def open_nodes(self, names: list[str]) -> dict[str, Any]:
        return await self._pages("open_nodes", names=names)


@dataclass
class Target:
    """One server of the nine tools on a store of its own; every :meth:`connect` is a new server on that store."""

    name: str
    _connect: Callable[[], contextlib.AbstractAsyncContextManager[Client]]
    _load: Callable[[Path], None]
    notes: dict[str, Any] = field(default_factory=dict)

    @contextlib.asynccontextmanager
    async def connect(self) -> AsyncIterator[Graph]:
        async with self._connect() as client:
            yield Graph(client)

    def run(self, case: Callable[[Graph], Awaitable[None]]) -> None:
        """Run ``case`` against a new server of this target."""
        async def main() -> None:
            async with self.connect() as graph:
                await case(graph)
        anyio.run(main)

    def load(self, memory_file: Path) -> None:
        """Take a reference ``memory.jsonl`` as this target's store (ours: ``synapse-graph import``)."""
        self._load(memory_file)

    @contextlib.asynccontextmanager
    async def native(self, options: ServerOptions | None = None) -> AsyncIterator[Client]:
        """Ours only: a server of the native tools on the same store and scope."""
        async with AsyncMemory(self.notes["location"], scope=self.notes["scope"], auth=self.notes["auth"]) as memory, \
                Client(build_server(memory, options)) as client:
            yield client

    def memory(self) -> Memory:
        """Ours only: the synchronous Memory of the same store and scope (close it)."""
        return Memory(self.notes["location"], scope=self.notes["scope"], auth=self.notes["auth"])


def reference_target(node_tools: NodeTools, folder: Path) -> Target:
    folder.mkdir(parents=True, exist_ok=True)
    memory_file = folder / "memory.jsonl"

    def connect() -> contextlib.AbstractAsyncContextManager[Client]:
        return Client(StdioServerParameters(command=str(node_tools.memory_server), args=[], env={
            "PATH": node_tools.path, "MEMORY_FILE_PATH": str(memory_file)}))

    def load(source: Path) -> None:
        memory_file.write_bytes(source.read_bytes())

    return Target("reference", connect, load, {"memory_file": memory_file})


def our_target(backend: str, location: str, auth: tuple[str, str] | None, options: ServerOptions | None = None,
               ) -> Target:
    scope = f"ref-{uuid.uuid4().hex[:12]}"
    options = options or ServerOptions(profile="reference-memory")

    @contextlib.asynccontextmanager
    async def connect() -> AsyncIterator[Client]:
        async with AsyncMemory(location, scope=scope, auth=auth) as memory, \
                Client(build_server(memory, options)) as client:
            yield client

    def load(source: Path) -> None:
        env = {**os.environ, **({"SYNAPSE_NEO4J_USER": auth[0], "SYNAPSE_NEO4J_PASSWORD": auth[1]} if auth else {})}
        done = subprocess.run([str(SYNAPSE_GRAPH), "import", "--format", "reference-memory", str(source), "--db",
                               location, "--scope", scope, "--json"], env=env, capture_output=True, text=True,
                              timeout=120, check=False)
        assert done.returncode == 0, done.stderr

    return Target(backend, connect, load, {"scope": scope, "location": location, "auth": auth})


def make_target(request: pytest.FixtureRequest, name: str, tmp_path: Path,
                options: ServerOptions | None = None) -> Target:
    if name == "reference":
        return reference_target(request.getfixturevalue("node_tools"), tmp_path)
    if name == "falkordb":
        return our_target(name, request.getfixturevalue("falkordb_location"), None, options)
    settings = request.getfixturevalue("neo4j_settings")
    return our_target(name, settings["location"], tuple(settings["auth"]), options)  # type: ignore[arg-type]
