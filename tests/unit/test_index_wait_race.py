"""While the embedded server builds its indexes (DELAY_INDEXING), every caller of one backend waits for those its
statement needs, not only the first: tasks of one asyncio backend (an MCP server's concurrent tool calls right
after a cold start) and threads of one sync backend. The server is scripted: no I/O."""

from __future__ import annotations

import asyncio
import threading
import time
from typing import Any

import pytest

from synapse_graph.backends import falkordb_steps as steps
from synapse_graph.backends.falkordb import AsyncFalkorDBBackend, FalkorDBBackend
from tests.unit.test_lock_steps import ALL_BUILDING, ALL_BUILT, READ, SCAN

EMPTY = [[], [], ["Query internal execution time: 0.1 ms"]]


class BuildingServer:
    """Reports its indexes building for the first ``looks`` times it is asked, and records every statement that
    reaches it before it reported them built."""

    def __init__(self, looks: int) -> None:
        self.looks, self.asked, self.early, self.lock = looks, 0, 0, threading.Lock()

    def answer(self, args: tuple[Any, ...]) -> Any:
        with self.lock:
            if args[0] == "GRAPH.RO_QUERY" and "db.indexes()" in args[2]:
                self.asked += 1
                return ALL_BUILDING if self.asked <= self.looks else ALL_BUILT
            if args[0] == "GRAPH.EXPLAIN":
                return SCAN
            if self.asked <= self.looks:
                self.early += 1
            return EMPTY


class SyncClient:
    def __init__(self, server: BuildingServer) -> None:
        self.server = server

    def execute_command(self, *args: Any) -> Any:
        time.sleep(0.001)
        return self.server.answer(args)


class AsyncClient:
    def __init__(self, server: BuildingServer) -> None:
        self.server = server

    async def execute_command(self, *args: Any) -> Any:
        await asyncio.sleep(0.001)
        return self.server.answer(args)


@pytest.fixture(autouse=True)
def quick_polls(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(steps, "INDEX_POLL_S", 0.005)


def test_concurrent_tasks_all_wait_for_the_indexes_their_statement_needs() -> None:
    server = BuildingServer(looks=6)
    backend = AsyncFalkorDBBackend(AsyncClient(server), "here", graph="g")  # type: ignore[arg-type]

    async def both() -> None:
        await asyncio.gather(*(backend._execute(*READ) for _ in range(4)))
    asyncio.run(both())
    assert server.early == 0, f"{server.early} statements ran while the indexes they need were being built"
    asked = server.asked
    asyncio.run(both())
    assert server.asked == asked, "once the indexes were built, nobody asks again"


def test_concurrent_threads_all_wait_for_the_indexes_their_statement_needs() -> None:
    server = BuildingServer(looks=6)
    backend = FalkorDBBackend(SyncClient(server), "here", graph="g")  # type: ignore[arg-type]
    threads = [threading.Thread(target=backend._execute, args=READ) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert server.early == 0, f"{server.early} statements ran while the indexes they need were being built"
    asked = server.asked
    backend._execute(*READ)
    assert server.asked == asked, "once the indexes were built, nobody asks again"
