"""``python -m benchmarks run [--size smoke|10k|100k|1m] [--backend falkordb|neo4j|all] [--peer graphiti]``."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from benchmarks.generate import SIZES
from benchmarks.runner import BACKENDS, DEFAULT_OUT, RunConfig, run


def parse(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    runner = commands.add_parser("run", help="run it; writes results/<date>-<machine>-<size>.{json,md,png}")
    runner.add_argument("--size", choices=list(SIZES), default="smoke",
                        help="writes to load; reads are measured at 10k, 100k, 1m up to this size")
    runner.add_argument("--backend", choices=[*BACKENDS, "all"], default="all")
    runner.add_argument("--peer", choices=["graphiti"], default=None, help="also compare with Graphiti (offline fakes)")
    runner.add_argument("--peer-size", type=int, default=400, help="writes for the Graphiti comparison")
    runner.add_argument("--out", type=Path, default=DEFAULT_OUT)
    runner.add_argument("--batch-size", type=int, default=1_000)
    runner.add_argument("--questions", type=int, default=300, help="point-in-time questions per store size")
    runner.add_argument("--neighbourhoods", type=int, default=60, help="2-hop neighbourhood reads per store size")
    runner.add_argument("--seed", type=int, default=20_260_101)
    runner.add_argument("--checkpoints", type=lambda s: tuple(int(x) for x in s.split(",")), default=None,
                        help="store sizes to measure reads at, e.g. 10000,100000,300000,1000000")
    runner.add_argument("--no-temporal-kg", action="store_true", help="skip benchmarks/temporal_kg.py even if present")
    runner.add_argument("--keep", action="store_true", help="keep the benchmark data (scopes, database files)")
    runner.add_argument("--no-progress", action="store_true")
    runner.add_argument("--single-writes", type=int, default=200,
                        help="single-fact upserts (and raw single-triple writes) per store size; 0 skips them")
    runner.add_argument("--recall-max", type=int, default=None,
                        help="largest store size the shared-word recall row grows its own store to (default: all)")
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse(argv)
    config = RunConfig(
        size=args.size,
        backends=BACKENDS if args.backend == "all" else (args.backend,),
        peer=args.peer,
        peer_size=args.peer_size,
        out=args.out,
        batch_size=args.batch_size,
        questions=args.questions,
        neighbourhoods=args.neighbourhoods,
        seed=args.seed,
        temporal_kg=not args.no_temporal_kg,
        keep=args.keep,
        progress=not args.no_progress,
        checkpoints=args.checkpoints,
        single_writes=args.single_writes,
        recall_max=args.recall_max,
    )
    results = run(config)
    from benchmarks.report import markdown

    print(markdown(results))
    failed = [name for name, found in results["backends"].items() if "error" in found]
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
