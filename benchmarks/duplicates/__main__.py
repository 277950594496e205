"""Run the duplicate-entity evaluation (issue 30) and print its figures as JSON lines.

    python -m benchmarks.duplicates quality [--dataset all] [--seed 30 31]      # pure rules, no store
    python -m benchmarks.duplicates store --backend falkordb [--dataset yago11k]  # through Memory.duplicates
    python -m benchmarks.duplicates warnings --backend falkordb                   # write-time warnings
    python -m benchmarks.duplicates scale --backend falkordb --size 10000 100000 # time to propose

Every figure is measured when it runs: nothing is stored. Timings are wall-clock on whatever machine runs
it, with the CPU time of this process beside them (the machine may be shared).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence

from benchmarks.duplicates import store
from benchmarks.duplicates.dataset import DEFAULT_SEED, build
from benchmarks.duplicates.evaluate import run_pure
from synapse_graph.rules.duplicates import DEFAULT_THRESHOLD

DATASETS = ("yago11k", "wikidata12k")


def _print(row: dict[str, object]) -> None:
    print(json.dumps(row, sort_keys=False), flush=True)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.duplicates", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("part", choices=("quality", "store", "warnings", "scale"))
    parser.add_argument("--dataset", choices=(*DATASETS, "all"), default="all")
    parser.add_argument("--seed", type=int, nargs="+", default=[DEFAULT_SEED])
    parser.add_argument("--backend", choices=("falkordb", "neo4j", "all"), default="falkordb")
    parser.add_argument("--size", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--threshold", type=float, default=DEFAULT_THRESHOLD)
    args = parser.parse_args(argv)
    datasets = DATASETS if args.dataset == "all" else (args.dataset,)
    backends = ("falkordb", "neo4j") if args.backend == "all" else (args.backend,)
    if args.part == "quality":
        for name in datasets:
            for seed in args.seed:
                labelled = build(name, seed)
                scores, _ = run_pure(labelled, args.threshold)
                _print({"part": "quality", "dataset": name, "seed": seed, "entities": len(labelled.mentions),
                        "threshold": args.threshold, **store.summary(scores)})
    elif args.part in ("store", "warnings"):
        for name in datasets:
            labelled = build(name, args.seed[0])
            for backend in backends:
                if args.part == "store":
                    _print({"part": "store", "dataset": name, **store.proposals(backend, labelled)})
                else:
                    for check in (True, False):
                        _print({"part": "warnings", "dataset": name, **store.warnings(backend, labelled, check=check)})
    else:
        labelled = [build(name, args.seed[0]) for name in DATASETS]
        for size in args.size:
            written, entities = store.synthetic(labelled if size > 12_000 else labelled[:1], size)
            for backend in backends:
                cpu = time.process_time()
                row = store.timing(backend, written, entities)
                _print({"part": "scale", "size": size, **row, "process_cpu_s": round(time.process_time() - cpu, 1)})
    return 0


if __name__ == "__main__":
    sys.exit(main())
