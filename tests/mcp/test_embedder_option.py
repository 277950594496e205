"""The MCP server and the CLI's ``recall`` take an embedder (``--embedder``/``--embedder-model`` or
``$SYNAPSE_EMBEDDER``/``$SYNAPSE_EMBEDDER_MODEL``), through their real entry points, on both backends: with it,
recall finds a memory by its meaning ("an automobile" finds a car); without it, by its words only."""

from __future__ import annotations

import json
import os
import subprocess
from typing import Any

import anyio
import pytest

from synapse_graph import Memory
from synapse_graph.embedders.endpoint import OpenAIEmbedder
from tests.embedding_server import embeddings_endpoint
from tests.mcp.conftest import SYNAPSE_GRAPH, ServerCommand, call, connect

pytestmark = pytest.mark.integration

CAR = "Dana bought a car last week."


def _recall_cli(server: ServerCommand, env: dict[str, str]) -> dict[str, Any]:
    base = {k: v for k, v in os.environ.items() if not k.startswith("SYNAPSE_")}
    done = subprocess.run([str(SYNAPSE_GRAPH), "recall", "an automobile", "--db", server.db, "--scope", server.scope,
                           "--json"], env={**base, **server.env, **env}, capture_output=True, text=True, timeout=120,
                          check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    found: dict[str, Any] = json.loads(done.stdout)
    return found


def test_the_server_and_cli_recall_find_memories_by_meaning_with_an_embedder(server: ServerCommand) -> None:
    auth = None if not server.env else (server.env["SYNAPSE_NEO4J_USER"], server.env["SYNAPSE_NEO4J_PASSWORD"])
    with embeddings_endpoint() as endpoint:
        memory = Memory(server.db, scope=server.scope, auth=auth, embedder=OpenAIEmbedder(endpoint.url, "fake-embed"))
        try:
            memory.observe("Dana", [CAR, "Dana plays chess."])

            async def main() -> None:
                async with connect(server, "--embedder", endpoint.url, "--embedder-model", "fake-embed") as client:
                    _, found = await call(client, "recall_context", {"query": "an automobile"})
                    assert [m["text"] for m in found["memories"]][:1] == [CAR]
                async with connect(server) as client:  # no embedder: no shared word, nothing found
                    _, found = await call(client, "recall_context", {"query": "an automobile"})
                    assert CAR not in [m.get("text") for m in found.get("memories", [])]

            anyio.run(main)
            found = _recall_cli(server, {"SYNAPSE_EMBEDDER": endpoint.url, "SYNAPSE_EMBEDDER_MODEL": "fake-embed"})
            assert [o["text"] for o in found["observations"]][:1] == [CAR]
            assert CAR not in [o["text"] for o in _recall_cli(server, {})["observations"]]
            assert any("an automobile" in r["input"] for r in endpoint.requests)  # the question was embedded
        finally:
            memory.purge(scope=memory.scope)
            memory.close()
