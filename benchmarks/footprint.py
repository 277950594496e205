"""Memory footprint on FalkorDB: the library's store and the raw baseline's graph, each loaded alone into its
own fresh embedded server from the same generated writes (batches of 1,000), side by side in one run.

Two measures for each: the server's ``used_memory`` growth over the load (everything the server holds for
the graph: attributes, matrices, indexes, the fulltext index and FalkorDB's pool of interned strings, which
``GRAPH.MEMORY USAGE`` does not count) and ``GRAPH.MEMORY USAGE`` with 10,000 samples (a sampled estimate
per part). ``python -m benchmarks.footprint --size 1000000`` (about 15 minutes here); ``--out`` writes JSON.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import redis

from benchmarks.baseline import RAW_GRAPH, FalkorRaw, graph_parts, plan_batches
from benchmarks.generate import Dataset, generate
from benchmarks.runner import _triples
from synapse_graph import Memory

BATCH = 1_000
OURS_GRAPH = "synapse"


def load_alone(side: str, dataset: Dataset, workdir: Path) -> dict[str, Any]:
    """Load every write of ``dataset`` into a fresh store as ``side`` ("ours" or "raw") writes it."""
    size = len(dataset.writes)
    with Memory(workdir / side / "store.db", scope="footprint", max_facts=size * 2 + 1_000,
                max_entities=dataset.entities * 2 + 1_000, single_valued=dataset.single_valued) as memory:
        server: Any = memory.backend
        client = redis.Redis(unix_socket_path=server.server.connect_path)
        started = int(client.info("memory")["used_memory"])
        began = time.perf_counter()
        if side == "ours":
            for lo in range(0, size, BATCH):
                memory.upsert(_triples(dataset, lo, min(lo + BATCH, size)))
            graph = OURS_GRAPH
            stats = memory.stats()
            edges, nodes = stats.facts + stats.expired_records + stats.candidates, stats.entities
        else:
            raw = FalkorRaw(server.server.connect_path, "footprint")
            for batch in plan_batches(dataset.writes, BATCH, native_times=False):
                raw.write(batch, datetime.now(UTC))
            graph = RAW_GRAPH
            edges, nodes = raw.count()
            raw.close()
        took = time.perf_counter() - began
        grown = int(client.info("memory")["used_memory"]) - started
        parts = graph_parts(client, graph)
        client.close()
    return {"writes": size, "load_s": round(took, 1), "edges": edges, "entities": nodes,
            "used_memory_mb": round(grown / 1e6, 1), "graph_memory_mb": parts.get("total_graph_sz_mb"),
            "graph_memory_parts": parts}


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=100_000, help="generated writes (default 100000)")
    parser.add_argument("--out", type=Path, help="write the result as JSON here")
    args = parser.parse_args(argv)
    dataset = generate(args.size, questions=1, neighbourhoods=1)
    with tempfile.TemporaryDirectory(prefix="footprint-") as work:
        result: dict[str, Any] = {"size": args.size, "batch": BATCH,
                                  "ours": load_alone("ours", dataset, Path(work)),
                                  "raw": load_alone("raw", dataset, Path(work))}
    ours, raw = result["ours"], result["raw"]
    result["ratio_used_memory"] = round(ours["used_memory_mb"] / raw["used_memory_mb"], 2)
    result["ratio_graph_memory"] = round(ours["graph_memory_mb"] / raw["graph_memory_mb"], 2)
    for side in ("ours", "raw"):
        x = result[side]
        print(f"{side}: {x['writes']:,} writes in {x['load_s']} s, {x['edges']:,} records, {x['entities']:,} entities; "
              f"used_memory +{x['used_memory_mb']} MB, GRAPH.MEMORY {x['graph_memory_mb']} MB")
    print(f"ours / raw: used_memory {result['ratio_used_memory']}x, GRAPH.MEMORY {result['ratio_graph_memory']}x")
    if args.out:
        args.out.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    return result


if __name__ == "__main__":
    main()
