"""``python -m benchmarks.locomo [--small] [--backend falkordb|neo4j|all] [--data DIR] [--out FILE]``.

Reads LoCoMo's development split (``$SYNAPSE_LOCOMO_DATA`` or ``shared/data/locomo-dev`` beside the repository;
CC BY-NC: never copied into it), stores each conversation's observations in a fresh store, asks every question
with evidence (categories 1-4) and reports evidence recall@5/10/20, full hits per category and latency for
the library (without an embedder and with MiniLM) and, over the same sentences, BM25, dense MiniLM and RRF.
Results (numbers only) go to ``benchmarks/results/<date>-<machine>-locomo-<size>-<backends>.json``.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from benchmarks.locomo.data import SMALL, data_dir, load
from benchmarks.locomo.run import BACKENDS, RunConfig, markdown, run, write


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.locomo", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--small", action="store_true", help=f"one conversation ({', '.join(SMALL)}), as CI runs it")
    parser.add_argument("--backend", choices=[*BACKENDS, "all"], default="falkordb")
    parser.add_argument("--data", type=Path, default=None, help="the split's folder (default: see above)")
    parser.add_argument("--out", type=Path, default=None, help="results file (default: benchmarks/results/...)")
    parser.add_argument("--no-write", action="store_true", help="print the tables only")
    args = parser.parse_args(argv)

    conversations = load(data_dir(args.data), SMALL if args.small else None)
    backends = list(BACKENDS) if args.backend == "all" else [args.backend]
    neo4j = None
    if "neo4j" in backends:
        from benchmarks.targets import neo4j_settings

        neo4j = neo4j_settings()
    config = RunConfig(conversations=conversations, size="small" if args.small else "dev", backends=backends,
                       neo4j=neo4j)
    results = run(config)
    print(markdown(results))
    if not args.no_write:
        print(f"wrote {write(results, args.out)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
