"""What keeping the growth counters (store format 10, ``rules/growth.py``) costs a batch write, side by side.

``python -m benchmarks.growth_write_cost [--size 20k] [--backend falkordb|neo4j] [--db LOCATION]``

Two scopes of one store are loaded with the same generated writes (``benchmarks/generate.py``) in batches of
1,000, in turns (which goes first alternates): one as every write is applied, the other with the write's growth
counter rows left empty (``engine.writes.grown`` answering ``[]``; the statement is the same, its ``FOREACH``
over an empty list). Reported: each side's median and total time per batch, and their ratio.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import statistics
import sys
import time
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import Any
from unittest import mock

from benchmarks.generate import SIZES, generate
from benchmarks.mcp_roundtrip import BATCH, _triples
from benchmarks.targets import neo4j_settings
from synapse_graph import Memory
from synapse_graph.engine import writes


def run(size: int, backend: str, db: str) -> dict[str, Any]:
    dataset = generate(size, seed=20_260_101, questions=1, neighbourhoods=1)
    auth = neo4j_settings()[1] if backend == "neo4j" else None
    tag = uuid.uuid4().hex[:8]
    sides = {name: Memory(db, scope=f"growth-cost-{name}-{tag}", auth=auth, max_facts=size * 2 + 1_000,
                          max_entities=size * 2 + 1_000, single_valued=dataset.single_valued)
             for name in ("counted", "uncounted")}
    times: dict[str, list[float]] = {name: [] for name in sides}
    try:
        for i, start in enumerate(range(0, len(dataset.writes), BATCH)):
            triples = _triples(dataset, start, min(start + BATCH, len(dataset.writes)))
            for name in (("counted", "uncounted") if i % 2 == 0 else ("uncounted", "counted")):
                left_out = mock.patch.object(writes, "grown", lambda *a, **k: [])
                with left_out if name == "uncounted" else contextlib.nullcontext():
                    began = time.perf_counter()
                    sides[name].upsert(triples)
                    times[name].append(time.perf_counter() - began)
        growth = sides["counted"].growth()
        assert growth.points[-1].facts == sides["counted"].stats().facts  # the counters were kept
    finally:
        for memory in sides.values():
            memory.purge(scope=memory.scope)
            memory.close()
    summary = {name: {"batches": len(t), "median_ms": statistics.median(t) * 1e3, "total_s": sum(t)}
               for name, t in times.items()}
    return {"size": size, "backend": backend, "batch": BATCH, **summary,
            "ratio_median": summary["counted"]["median_ms"] / summary["uncounted"]["median_ms"],
            "ratio_total": summary["counted"]["total_s"] / summary["uncounted"]["total_s"],
            "cpus": os.cpu_count(), "load_average": os.getloadavg()}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.growth_write_cost", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", type=lambda t: SIZES[t] if t in SIZES else int(t), default=20_000)
    parser.add_argument("--backend", choices=["falkordb", "neo4j"], default="falkordb")
    parser.add_argument("--db", default=None, help="FalkorDB file or Neo4j URL (default: a temporary file / "
                                                   "SYNAPSE_NEO4J_URL)")
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args(argv)
    db = args.db or (neo4j_settings()[0] if args.backend == "neo4j" else f"/tmp/growth-cost-{uuid.uuid4().hex[:8]}.db")
    result = run(args.size, args.backend, db)
    text = json.dumps(result, indent=2)
    print(text)
    if args.out is not None:
        args.out.write_text(text + "\n", encoding="utf-8")
    print(f"batch write with growth counters / without: median x{result['ratio_median']:.3f}, "
          f"total x{result['ratio_total']:.3f}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
