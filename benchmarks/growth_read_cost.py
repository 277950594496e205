"""``Memory.growth`` read from its counters (store format 10) and measured by walking the scope, side by side.

``python -m benchmarks.growth_read_cost --db LOCATION --scope SCOPE [--backend falkordb|neo4j] [--rounds 20]``

On a store loaded before (e.g. ``benchmarks.inspector_pages --keep``), the overview's growth read (48 points)
is timed in turns: from the counters, then by the walk older scopes are read with (``entities/growth``, what
every growth read did before format 10), the same instants asked each time; both answers must agree.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from collections.abc import Sequence
from typing import Any
from unittest import mock

from benchmarks.targets import neo4j_settings
from synapse_graph import Memory
from synapse_graph.engine import reads


def run(db: str, scope: str, backend: str, rounds: int) -> dict[str, Any]:
    memory = Memory(db, scope=scope, auth=neo4j_settings()[1] if backend == "neo4j" else None)
    try:
        span = memory.growth(steps=48)
        times: dict[str, list[float]] = {"counters": [], "walk": []}
        for _ in range(rounds):
            answers = {}
            for name in ("counters", "walk"):
                walking = mock.patch.object(reads, "GROWTH_FORMAT", 10**9) if name == "walk" else None
                began = time.perf_counter()
                if walking is None:
                    answers[name] = memory.growth(steps=48, since=span.since, until=span.until)
                else:
                    with walking:
                        answers[name] = memory.growth(steps=48, since=span.since, until=span.until)
                times[name].append(time.perf_counter() - began)
            assert answers["counters"] == answers["walk"]
        facts = memory.stats().facts
    finally:
        memory.close()
    p50 = {name: statistics.median(t) * 1e3 for name, t in times.items()}
    return {"backend": backend, "facts": facts, "rounds": rounds, "p50_ms": p50,
            "max_ms": {name: max(t) * 1e3 for name, t in times.items()},
            "ratio_p50": p50["counters"] / p50["walk"], "cpus": os.cpu_count(), "load_average": os.getloadavg()}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.growth_read_cost", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--db", required=True)
    parser.add_argument("--scope", required=True)
    parser.add_argument("--backend", choices=["falkordb", "neo4j"], default="falkordb")
    parser.add_argument("--rounds", type=int, default=20)
    args = parser.parse_args(argv)
    print(json.dumps(run(args.db, args.scope, args.backend, args.rounds), indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
