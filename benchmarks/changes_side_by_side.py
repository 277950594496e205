"""``Memory.changes`` (first page) of a baseline engine and of this tree's, side by side on one kept
``time_reads`` store (``--limit`` changes a page, 100 by default), interleaved round by round with a point-in-time
and a during read; every round's two pages must be equal, and so must the whole day paged through.

The baseline is an ``engine/changes.py`` and its ``changes/changed_records.cypher`` from another commit, e.g.::

    git show main:synapse_graph/engine/changes.py > /tmp/base_changes.py
    git show main:cypher/changes/changed_records.cypher > /tmp/base_changed_records.cypher
    python -m benchmarks.time_reads --size 100k --backend falkordb --keep --workdir /tmp/tr --name=-chg --rounds 3
    python -m benchmarks.changes_side_by_side --size 100k --backend falkordb --workdir /tmp/tr --name=-chg \\
        --base-engine /tmp/base_changes.py --base-statement /tmp/base_changed_records.cypher

The baseline statement is copied into ``cypher/changes/`` for the run (as ``changed_records_base``) and removed;
so is ``--base-entries``, the baseline's ``changes/change_entries.cypher`` if it differs from this tree's (e.g. a
store whose entries carry verdicts, read by a baseline that reads every entry's detail).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import shutil
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from benchmarks.generate import SIZES, generate
from benchmarks.measure import REPO, library_info, machine_tag, summary
from benchmarks.targets import open_target
from benchmarks.time_reads import DEFAULT_OUT, expected_during, records_of
from synapse_graph.catalogue import Q
from synapse_graph.engine import changes as this_engine

BASE_NAME = "changes/changed_records_base"
BASE_ENTRIES = "changes/change_entries_base"


def _base_engine(path: Path, entries: bool) -> Any:
    spec = importlib.util.spec_from_file_location("base_changes", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["base_changes"] = module
    spec.loader.exec_module(module)
    module.Q = SimpleNamespace(CHANGE_ENTRIES=BASE_ENTRIES if entries else Q.CHANGE_ENTRIES,
                               RECORDS_BY_ID=Q.RECORDS_BY_ID,
                               CHANGED_OBSERVATIONS=Q.CHANGED_OBSERVATIONS,
                               NAMES_OF_KEYS=Q.NAMES_OF_KEYS, CHANGED_RECORDS=BASE_NAME)
    return module


def run(backend: str, size: int, rounds: int, seed: int, workdir: Path, name: str, base: Any, limit: int = 100
        ) -> dict[str, Any]:
    run_id = f"time-{size}-{seed}{name}"
    since = datetime.fromisoformat(json.loads((workdir / f"{run_id}-{backend}.json").read_text())["since"])
    dataset = generate(size, seed=seed, questions=300, neighbourhoods=1)
    periods = expected_during(records_of(dataset.writes), 300, seed)
    questions = dataset.checkpoints[-1].questions
    load_before = os.getloadavg()
    with open_target(backend, workdir, run_id, keep=True) as target:
        memory = target.memory(f"bench-{run_id}", dataset)

        def page(engine: Any, after: str | None = None) -> Any:
            return memory._read(engine.ask_changes(memory._ctx, since, None, None, None, limit, after))

        def call(kind: str, i: int) -> Any:
            if kind == "point_in_time":
                q = questions[i % len(questions)]
                return memory.facts(q.subject, q.predicate, as_of=q.as_of)
            if kind == "during_by_object":
                p = periods[i % len(periods)]
                return memory.facts(predicate=p.predicate, object=p.object, during=(p.start, p.end))
            return page(base if kind == "changes_before" else this_engine)

        kinds = ["point_in_time", "during_by_object", "changes_before", "changes_after"]
        for i in range(10):
            for kind in kinds:
                call(kind, i)
        times: dict[str, list[float]] = {k: [] for k in kinds}
        for i in range(rounds):
            pages = {}
            for kind in kinds if i % 2 == 0 else kinds[::-1]:
                began = time.perf_counter()
                pages[kind] = call(kind, i)
                times[kind].append(time.perf_counter() - began)
            assert pages["changes_before"] == pages["changes_after"], "the two engines' pages differ"

        def whole(engine: Any) -> tuple[list[Any], float]:
            began, found, after = time.perf_counter(), [], None
            while True:
                got = page(engine, after)
                found += got.changes
                after = got.next
                if after is None:
                    return found, time.perf_counter() - began

        before, before_s = whole(base)
        after, after_s = whole(this_engine)
        assert before == after, "the two engines' days differ"
        memory.close()
    reads = {k: summary(v) for k, v in times.items()}
    pit95 = reads["point_in_time"]["p95_ms"]
    return {"backend": backend, "writes": size, "rounds": rounds, "page": limit, "library": library_info(),
            "at": datetime.now(UTC).isoformat(timespec="seconds"), "load_avg_before": load_before,
            "load_avg_after": os.getloadavg(), "reads": reads,
            "p95_over_pit_p95": {k: round(v["p95_ms"] / pit95, 2) for k, v in reads.items()},
            "p50_after_over_before": round(
                reads["changes_after"]["median_ms"] / reads["changes_before"]["median_ms"], 3),
            "whole_day": {"changes": len(after), "before_ms": round(before_s * 1e3, 1),
                          "after_ms": round(after_s * 1e3, 1)},
            "pages_equal_every_round": True}


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.changes_side_by_side",
                                     description=__doc__.split("\n")[0])
    parser.add_argument("--size", default="100k")
    parser.add_argument("--backend", choices=["falkordb", "neo4j"], default="falkordb")
    parser.add_argument("--rounds", type=int, default=100)
    parser.add_argument("--seed", type=int, default=20_260_101)
    parser.add_argument("--workdir", type=Path, required=True)
    parser.add_argument("--name", default="")
    parser.add_argument("--base-engine", type=Path, required=True)
    parser.add_argument("--base-statement", type=Path, required=True)
    parser.add_argument("--base-entries", type=Path, default=None)
    parser.add_argument("--limit", type=int, default=100, help="changes a page holds")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = parser.parse_args()
    copies = {REPO / "cypher" / f"{BASE_NAME}.cypher": args.base_statement}
    if args.base_entries is not None:
        copies[REPO / "cypher" / f"{BASE_ENTRIES}.cypher"] = args.base_entries
    for copy, source in copies.items():
        shutil.copy(source, copy)
    try:
        size = SIZES[args.size] if args.size in SIZES else int(args.size)
        found = run(args.backend, size, args.rounds, args.seed, args.workdir, args.name,
                    _base_engine(args.base_engine, args.base_entries is not None), args.limit)
    finally:
        for copy in copies:
            copy.unlink()
    out = args.out / (f"{datetime.now(UTC).date()}-{machine_tag()}-changes-side-by-side-{args.size}-{args.backend}"
                      f"-{args.limit}.json")
    out.write_text(json.dumps(found, indent=2, default=str))
    print(json.dumps({k: found[k] for k in ("reads", "p95_over_pit_p95", "p50_after_over_before", "whole_day",
                                            "load_avg_before", "load_avg_after")}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
