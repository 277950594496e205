"""Two server processes on one store (two agent windows on one embedded file, or on one Neo4j) writing at once.

Both write distinct facts into the same timeline (one subject, one multi-valued predicate), one call each, at
the same time; every call must succeed, and afterwards each server sees every fact of both: exactly 2N.
"""

from __future__ import annotations

from typing import Any

import anyio
import pytest
from mcp import Client

from tests.mcp.conftest import ServerCommand, connect

pytestmark = pytest.mark.integration
N = 40


async def facts_of(client: Client, **query: Any) -> list[dict[str, Any]]:
    result = await client.call_tool("query_facts", {"limit": 1000, **query})
    assert not result.is_error and result.structured_content is not None
    assert result.structured_content.get("next_cursor") is None
    return list(result.structured_content["facts"])


def test_two_stdio_servers_on_one_store_lose_nothing(server: ServerCommand) -> None:
    finished = {"a": anyio.Event(), "b": anyio.Event()}
    seen: dict[str, list[dict[str, Any]]] = {}

    async def window(name: str, other: str) -> None:
        async with connect(server) as client:
            for i in range(N):
                result = await client.call_tool("upsert_graph_triples", {"triples": [
                    {"subject": "Team", "predicate": "WROTE", "object": f"note {name}-{i:02d}"}], "source": name})
                assert not result.is_error, result.content
                assert result.structured_content is not None and result.structured_content["created"] == 1
            finished[name].set()
            await finished[other].wait()
            seen[name] = await facts_of(client, subject="Team", predicate="WROTE")

    async def main() -> None:
        async with anyio.create_task_group() as group:
            group.start_soon(window, "a", "b")
            group.start_soon(window, "b", "a")

    anyio.run(main)
    expected = {f"note {name}-{i:02d}" for name in "ab" for i in range(N)}
    for name in "ab":
        objects = [f["fact"][2] for f in seen[name]]
        assert len(objects) == 2 * N and set(objects) == expected, name
        assert {f["source"] for f in seen[name]} == {"a", "b"}
