"""Time as a question on a large store (issue 35): ``changes`` for the last day, ``during`` by object, against
a point-in-time read of the same store, side by side in one run; and the plans each database gives them.

``python -m benchmarks.time_reads --size 1m --backend falkordb`` loads ``generate.py``'s stream: all but the
last ``--day`` writes in batches of 1,000 (the store's past), then the last ``--day`` writes in upserts of
``--day-batch`` (an agent's day: a few facts per call, each call an audit entry). Then, interleaved round by
round (after untimed warm-up reads of each kind):

- **point in time**: ``Memory.facts(subject, predicate, as_of=...)``, the generator's questions, each answer
  checked against its oracle;
- **during by object**: ``Memory.facts(predicate=p, object=o, during=(start, end))`` for a year around a
  record of the stream ("who worked at Acme during 2020?"), each answer checked against the records the stream
  implies (``expected_during``);
- **changes**: ``Memory.changes(since)`` with ``since`` the instant the day's writes began: the first page
  (100 changes), and apart the whole day paged through.

Then ``EXPLAIN`` (Neo4j) / ``GRAPH.EXPLAIN`` (FalkorDB) of every statement each call sends
(``tests/integration/plans.py``), and whether each one starts from an index. ``--keep`` keeps the store (in
``--workdir``; a Neo4j scope of its own) and a later run with the same ``--workdir`` measures it again without
loading. Writes ``results/<date>-<machine>-time-<size>-<backend>.json``.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from benchmarks.generate import SIZES, Dataset, Write, generate
from benchmarks.measure import REPO, library_info, machine_tag, summary
from benchmarks.targets import Target, drop_scopes, open_target
from synapse_graph import Memory, Triple
from synapse_graph.engine import changes as changes_engine

DEFAULT_OUT = REPO / "benchmarks" / "results"
BACKENDS = ("falkordb", "neo4j")
WARM_UP = 10
PERIOD = timedelta(days=365)
INDEX_WORDS = ("Index", "index")
"""What a plan's line names when an operator seeks an index (Neo4j ``NodeIndexSeek``,
``DirectedRelationshipIndexSeek``...; FalkorDB ``Node By Index Scan``, ``Edge By Index Scan``)."""
SCANS = ("Label Scan", "AllNodesScan", "NodeByLabelScan", "All Node Scan", "AllRelationshipsScan")


@dataclass(frozen=True)
class Period:
    """A during question: the subjects of ``predicate`` pointing at ``object`` at some moment of [start, end)."""

    predicate: str
    object: str
    start: datetime
    end: datetime
    expected: frozenset[str]


def records_of(writes: Sequence[Write]) -> dict[str, list[Any]]:
    """Every record the stream leaves: id -> [subject, predicate, object, start, end (None: open)]."""
    found: dict[str, list[Any]] = {}
    for w in writes:
        if w.kind != "repeat":
            found[w.record] = [w.subject, w.predicate, w.object, w.valid_at, None]
        if w.closes is not None:
            found[w.closes][4] = w.valid_at
    return found


def expected_during(records: dict[str, list[Any]], count: int, seed: int) -> list[Period]:
    """``count`` during questions, each a year around a record of the stream picked at random (so an object is
    asked about as often as facts point at it), with the subjects whose records of it overlap the year."""
    by_object: dict[tuple[str, str], list[list[Any]]] = defaultdict(list)
    for r in records.values():
        by_object[(r[2], r[1])].append(r)
    rng = random.Random(seed)
    picked = rng.sample(sorted(records), count)
    asked = []
    for rid in picked:
        _, predicate, obj, start, _ = records[rid]
        begin = start - PERIOD / 2
        end = begin + PERIOD
        held = frozenset(r[0] for r in by_object[(obj, predicate)] if r[3] < end and (r[4] is None or r[4] > begin))
        asked.append(Period(predicate, obj, begin, end, held))
    return asked


def load(memory: Memory, dataset: Dataset, day: int, day_batch: int) -> datetime:
    """The stream into the store; returns the instant the day's writes began (what ``changes`` is asked from)."""
    writes = dataset.writes
    past = len(writes) - day
    began = time.perf_counter()
    for lo in range(0, past, 1_000):
        memory.upsert([_triple(w) for w in writes[lo:min(lo + 1_000, past)]])
        if (lo // 1_000) % 50 == 0:
            print(f"{lo:,} writes, {time.perf_counter() - began:.0f} s", file=sys.stderr, flush=True)
    since = datetime.now(UTC)
    time.sleep(0.01)  # the day's first write is recorded after `since`
    for lo in range(past, len(writes), day_batch):
        memory.upsert([_triple(w) for w in writes[lo:lo + day_batch]])
    print(f"loaded {len(writes):,} writes in {time.perf_counter() - began:.0f} s", file=sys.stderr, flush=True)
    return since


def _triple(w: Write) -> Triple:
    return Triple(subject=w.subject, predicate=w.predicate, object=w.object, valid_at=w.valid_at)


def _timed(call: Callable[[], Any]) -> tuple[float, Any]:
    began = time.perf_counter()
    answer = call()
    return time.perf_counter() - began, answer


def measure(memory: Memory, dataset: Dataset, since: datetime, periods: list[Period], rounds: int
            ) -> dict[str, Any]:
    """The three reads interleaved round by round: latency, answer sizes and exactness."""
    questions = dataset.checkpoints[-1].questions

    def pit(i: int) -> Callable[[], Any]:
        q = questions[i % len(questions)]
        return lambda: memory.facts(q.subject, q.predicate, as_of=q.as_of)

    def during(i: int) -> Callable[[], Any]:
        p = periods[i % len(periods)]
        return lambda: memory.facts(predicate=p.predicate, object=p.object, during=(p.start, p.end))

    for i in range(WARM_UP):
        pit(i)(), during(i)(), memory.changes(since)
    kinds = ("point_in_time", "during_by_object", "changes_first_page", "changes_first_page_judging_4x_room")
    times: dict[str, list[float]] = {name: [] for name in kinds}
    exact = {"point_in_time": 0, "during_by_object": 0}
    sizes: dict[str, list[int]] = {name: [] for name in kinds}
    misses: list[dict[str, Any]] = []
    for i in range(rounds):
        took, found = _timed(pit(i))
        times["point_in_time"].append(took)
        sizes["point_in_time"].append(len(found))
        q = questions[i % len(questions)]
        exact["point_in_time"] += frozenset(f.object for f in found) == q.expected
        took, found = _timed(during(i))
        times["during_by_object"].append(took)
        sizes["during_by_object"].append(len(found))
        p = periods[i % len(periods)]
        if frozenset(f.subject for f in found) == p.expected:
            exact["during_by_object"] += 1
        elif len(misses) < 5:
            misses.append({"predicate": p.predicate, "object": p.object, "expected": sorted(p.expected)[:10],
                           "got": sorted({f.subject for f in found})[:10]})
        took, page = _timed(lambda: memory.changes(since))
        times["changes_first_page"].append(took)
        sizes["changes_first_page"].append(len(page.changes))
        with _overread(4):  # judge four times the events the page has room for, in fewer rounds (measured slower)
            took, earlier = _timed(lambda: memory.changes(since))
        assert earlier == page, "a page must not depend on how many events are judged per round trip"
        times["changes_first_page_judging_4x_room"].append(took)
        sizes["changes_first_page_judging_4x_room"].append(len(earlier.changes))
    result: dict[str, Any] = {
        name: {**summary(values), "rows_mean": statistics.fmean(sizes[name]), "rows_max": max(sizes[name])}
        for name, values in times.items()}
    for name, hits in exact.items():
        result[name]["exact"] = hits
    result["misses"] = misses
    pit95 = result["point_in_time"]["p95_ms"]
    result["during_p95_over_pit_p95"] = round(result["during_by_object"]["p95_ms"] / pit95, 2)
    result["changes_p95_over_pit_p95"] = round(result["changes_first_page"]["p95_ms"] / pit95, 2)
    result["changes_p95_over_judging_4x_room_p95"] = round(
        result["changes_first_page"]["p95_ms"] / result["changes_first_page_judging_4x_room"]["p95_ms"], 2)
    result["whole_day"] = whole_day(memory, since)
    return result


@contextmanager
def _overread(factor: int) -> Iterator[None]:
    """``changes`` judging ``factor`` events per change a page has room for, at first (engine/changes.py's
    MARGIN)."""
    kept = changes_engine.MARGIN
    changes_engine.MARGIN = factor
    try:
        yield
    finally:
        changes_engine.MARGIN = kept


def whole_day(memory: Memory, since: datetime, runs: int = 3) -> dict[str, Any]:
    """Every change since ``since``, page after page: how many, in how many pages, how long (each run)."""
    done = []
    for _ in range(runs):
        began, pages, changes, after = time.perf_counter(), 0, 0, None
        while True:
            page = memory.changes(since, after=after)
            pages, changes, after = pages + 1, changes + len(page.changes), page.next
            if after is None:
                break
        done.append({"ms": round((time.perf_counter() - began) * 1000, 2), "pages": pages, "changes": changes})
    return {"runs": done, "kinds": _kinds(memory, since)}


def _kinds(memory: Memory, since: datetime) -> dict[str, int]:
    counted: dict[str, int] = defaultdict(int)
    after = None
    while True:
        page = memory.changes(since, after=after)
        for change in page.changes:
            counted[change.kind] += 1
        after = page.next
        if after is None:
            return dict(counted)


def plans(memory: Memory, dataset: Dataset, since: datetime, periods: list[Period]) -> dict[str, Any]:
    """The plan of each statement the three calls send, and whether every one seeks an index and none scans a
    label or every node."""
    sys.path.insert(0, str(REPO))
    from tests.integration.plans import plans_of

    q, p = dataset.checkpoints[-1].questions[0], periods[0]
    calls = {
        "point_in_time": lambda: memory.facts(q.subject, q.predicate, as_of=q.as_of),
        "during_by_object": lambda: memory.facts(predicate=p.predicate, object=p.object, during=(p.start, p.end)),
        "changes_first_page": lambda: memory.changes(since),
    }
    found: dict[str, Any] = {}
    for name, call in calls.items():
        statements = plans_of(memory, call)
        found[name] = {
            statement: {"plan": lines, "seeks_index": any(w in line for line in lines for w in INDEX_WORDS),
                        "scans": [line for line in lines if any(s in line for s in SCANS)]}
            for statement, lines in statements.items()}
    found["all_seek_indexes"] = all(s["seeks_index"] and not s["scans"] for name in calls
                                    for s in found[name].values())
    return found


def run(backend: str, size: int, *, day: int, day_batch: int, rounds: int, seed: int, workdir: Path,
        keep: bool, name: str = "") -> dict[str, Any]:
    dataset = generate(size, seed=seed, questions=300, neighbourhoods=1)
    periods = expected_during(records_of(dataset.writes), 300, seed)
    run_id = f"time-{size}-{seed}{name}"
    marker = workdir / f"{run_id}-{backend}.json"
    scope = f"bench-{run_id}"
    result: dict[str, Any] = {"backend": backend, "writes": size, "day_writes": day, "day_batch": day_batch,
                              "rounds": rounds, "seed": seed, "library": library_info(),
                              "at": datetime.now(UTC).isoformat(timespec="seconds")}
    with open_target(backend, workdir, run_id, keep=True) as target:
        memory = target.memory(scope, dataset)
        try:
            if marker.exists():
                since = datetime.fromisoformat(json.loads(marker.read_text())["since"])
                result["loaded_before"] = True
            else:
                began = time.perf_counter()
                since = load(memory, dataset, day, day_batch)
                result["load_s"] = round(time.perf_counter() - began, 1)
                marker.write_text(json.dumps({"since": since.isoformat()}))
            stats = memory.stats()
            result["store"] = {"fact_records": stats.facts, "entities": stats.entities, "valid_now": stats.valid_now}
            result["reads"] = measure(memory, dataset, since, periods, rounds)
            result["plans"] = plans(memory, dataset, since, periods)
        finally:
            memory.close()
    if not keep:
        _drop(target, scope, marker)
    return result


def _drop(target: Target, scope: str, marker: Path) -> None:
    marker.unlink(missing_ok=True)
    drop_scopes(target, [scope])
    if target.workdir is not None:
        import shutil

        shutil.rmtree(target.workdir, ignore_errors=True)


def table(results: list[dict[str, Any]]) -> str:
    """The summary rows: p50 / p95 of each read and the ratios to the point-in-time read."""
    lines = ["| backend | writes | fact records | point in time p50 / p95 ms | during by object p50 / p95 ms "
             "(rows mean, max) | during p95 / PIT p95 (<= 3) | changes, first page p50 / p95 ms | changes p95 / "
             "PIT p95 | whole day (changes, pages, ms) | exact PIT, during | plans seek indexes |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in results:
        reads, day = r["reads"], r["reads"]["whole_day"]["runs"][-1]
        pit, dur, chg = reads["point_in_time"], reads["during_by_object"], reads["changes_first_page"]
        lines.append(
            f"| {r['backend']} | {r['writes']:,} | {r['store']['fact_records']:,} | {pit['median_ms']:.2f} / "
            f"{pit['p95_ms']:.2f} | {dur['median_ms']:.2f} / {dur['p95_ms']:.2f} ({dur['rows_mean']:.1f}, "
            f"{dur['rows_max']}) | {reads['during_p95_over_pit_p95']} | {chg['median_ms']:.2f} / {chg['p95_ms']:.2f} | "
            f"{reads['changes_p95_over_pit_p95']} | {day['changes']:,}, {day['pages']}, {day['ms']:,.0f} | "
            f"{pit['exact']}/{pit['n']}, {dur['exact']}/{dur['n']} | {r['plans']['all_seek_indexes']} |")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.time_reads", description=__doc__.split("\n")[0])
    parser.add_argument("--size", default="100k", help="writes: smoke, 10k, 100k, 1m or a number")
    parser.add_argument("--backend", choices=[*BACKENDS, "all"], default="falkordb")
    parser.add_argument("--day", type=int, default=1_000, help="writes of the last day")
    parser.add_argument("--day-batch", type=int, default=5, help="facts per upsert of the last day")
    parser.add_argument("--rounds", type=int, default=300, help="timed reads of each kind")
    parser.add_argument("--seed", type=int, default=20_260_101)
    parser.add_argument("--workdir", type=Path, default=Path(tempfile.gettempdir()) / "synapse-time-reads")
    parser.add_argument("--keep", action="store_true", help="keep the store for a later run with this --workdir")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--tag", default="", help="added to the result file's name")
    parser.add_argument("--name", default="", help="added to the store's name (a Neo4j scope of one's own)")
    args = parser.parse_args(argv)
    size = SIZES[args.size] if args.size in SIZES else int(args.size)
    args.workdir.mkdir(parents=True, exist_ok=True)
    results = []
    for backend in BACKENDS if args.backend == "all" else (args.backend,):
        found = run(backend, size, day=min(args.day, size // 3), day_batch=args.day_batch, rounds=args.rounds,
                    seed=args.seed, workdir=args.workdir, keep=args.keep, name=args.name)
        results.append(found)
        if args.out:
            args.out.mkdir(parents=True, exist_ok=True)
            name = f"{datetime.now(UTC).date()}-{machine_tag()}-time-{args.size}-{backend}{args.tag}.json"
            (args.out / name).write_text(json.dumps(found, indent=2, default=str))
        print(table([found]), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
