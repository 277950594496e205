"""The overview's sections share the reads they have in common: its list of the latest writes and its "What
changed" (what those writes changed) read the audit log once per request (issue 31)."""

from __future__ import annotations

import asyncio
from typing import Any

from synapse_graph.ui import views


class CountingMemory:
    """Stands for an ``AsyncMemory`` whose scope has no write yet, counting its reads of the audit log."""

    def __init__(self) -> None:
        self.audit_reads: list[int] = []

    async def audit(self, *, limit: int, brief: int | None = None) -> list[Any]:
        self.audit_reads.append(limit)
        await asyncio.sleep(0)
        return []


def test_the_latest_writes_and_what_they_changed_read_the_audit_log_once() -> None:
    memory = CountingMemory()

    async def load() -> tuple[Any, Any]:
        reads = views.Reads(memory, views.Aggregates())  # type: ignore[arg-type]
        return await asyncio.gather(views._latest(reads), views._changes(reads))

    assert asyncio.run(load()) == [[], None]
    assert memory.audit_reads == [views.LATEST_WRITES]
