"""The ``reference-memory`` profile's reads on a store of reference size, timed in process.

``python -m benchmarks.reference_reads [--entities 2000] [--runs 10] [--backend falkordb|neo4j]``

A reference graph (``--entities`` entities, 3 observations each, one relation per entity to the next)
is loaded as ``synapse-graph import --format reference-memory`` loads it; then the profile's handlers
are called as the server calls them (its ``MemoryCalls`` over an ``AsyncMemory``, the default result
budget), without the protocol: ``read_graph`` (first page), ``search_nodes`` (first page; the query is
in a tenth of the entities' observations), ``open_nodes`` of one entity, ``--runs`` times each, in
turn; then ``search_nodes`` again with the substring index set aside (``search_nodes_scan``: the scan a query
shorter than a gram takes, as every query did before store format 11), on the same store. Prints the median and
p95 of each in ms, the number of entities on each first page, and the load average before and after.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import time
import uuid
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any
from unittest import mock

import anyio

from benchmarks.targets import neo4j_settings
from synapse_graph import AsyncMemory
from synapse_graph.engine import reads
from synapse_graph.mcp import reference
from synapse_graph.mcp.calls import MemoryCalls
from synapse_graph.mcp.formatting import CHARS_PER_TOKEN
from synapse_graph.mcp.reference_memory import ReferenceEntity, ReferenceGraph, ReferenceRelation, translate
from synapse_graph.mcp.server import ServerOptions
from synapse_graph.mcp.tools import ToolContext

TOPICS = ("likes chess", "works remotely", "speaks Spanish", "owns a bicycle", "reads poetry", "plays piano",
          "grows tomatoes", "runs marathons", "collects stamps", "bakes bread")


def graph(entities: int) -> ReferenceGraph:
    people = [ReferenceEntity(f"Person {i:05d}", "person", [
        f"Note {i}: {TOPICS[i % len(TOPICS)]}", f"Joined in {2000 + i % 25}", f"Badge number {i * 7919 % 100_000}",
    ]) for i in range(entities)]
    relations = [ReferenceRelation(people[i].name, people[(i + 1) % entities].name, "knows") for i in range(entities)]
    return ReferenceGraph(entities=people, relations=relations)


async def timed(call: Callable[[], Awaitable[Any]], runs: int) -> tuple[list[float], Any]:
    times, result = [], None
    for _ in range(runs):
        began = time.perf_counter()
        result = await call()
        times.append((time.perf_counter() - began) * 1000)
    return times, result


def scanned(call: Callable[[], Awaitable[Any]]) -> Callable[[], Awaitable[Any]]:
    """The call with the substring index set aside: every query scanned, as one shorter than a gram is."""
    async def without_index() -> Any:
        with mock.patch.object(reads, "query_grams", lambda _matching: None):
            return await call()
    return without_index


async def run(entities: int, runs: int, backend: str) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as folder:
        scope = f"bench-reference-{uuid.uuid4().hex[:8]}"
        location, auth = (str(Path(folder) / "bench.db"), None) if backend == "falkordb" else neo4j_settings()
        async with AsyncMemory(location, scope=scope, auth=auth) as memory:
            await memory.set_rules(max_facts=10 * entities, max_entities=2 * entities)  # room for large sizes
            began = time.perf_counter()
            plan = translate(graph(entities), secrets="redact", single_valued=(await memory.rules()).single_valued)
            await memory.observe_many(plan.entities)  # as `import --format reference-memory` writes it
            await memory.upsert(plan.relations)
            loaded = time.perf_counter() - began
            ctx = ToolContext(calls=MemoryCalls(memory),
                              budget_chars=ServerOptions().max_result_tokens * CHARS_PER_TOKEN)
            calls = {
                "read_graph": lambda: reference.read_graph(ctx, reference.ReadGraphArgs()),
                "search_nodes": lambda: reference.search_nodes(ctx, reference.SearchNodesArgs(query="CHESS")),
                "open_nodes": lambda: reference.open_nodes(ctx, reference.OpenNodesArgs(names=["Person 00042"])),
            }
            results: dict[str, Any] = {"entities": entities, "runs": runs, "backend": backend,
                                       "load_s": round(loaded, 1)}
            results["load_average_before"] = [round(x, 2) for x in os.getloadavg()]
            calls["search_nodes_scan"] = scanned(calls["search_nodes"])
            for name, call in calls.items():
                times, answer = await timed(call, runs)
                results[name] = {"median_ms": round(statistics.median(times), 1),
                                 "p95_ms": round(sorted(times)[max(0, round(0.95 * len(times)) - 1)], 1),
                                 "first_page_entities": len(answer.data.entities),
                                 "more": answer.data.nextCursor is not None}
            results["load_average_after"] = [round(x, 2) for x in os.getloadavg()]
            if backend == "neo4j":
                await memory.purge(scope=scope)
            return results


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entities", type=int, default=2_000)
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--backend", choices=("falkordb", "neo4j"), default="falkordb")
    options = parser.parse_args(argv)
    print(json.dumps(anyio.run(run, options.entities, options.runs, options.backend), indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
