"""Writers on one scope: throughput of 1, 8 and 32 writer processes, side by side, on each backend.

``python -m benchmarks.concurrency [--backend falkordb|neo4j|all] [--writers 1,8,32] [--total 1280]
[--rounds 3] [--out benchmarks/results]``

Every writer is a process of its own with its own ``Memory`` on the same scope (what an MCP
server, hooks and the CLI writing one memory at once are). Each configuration writes the same
``--total`` upserts, shared among its writers (1 x 1280, 8 x 160, 32 x 40 by default), so every
run leaves a store of the same size. An upsert is 3 facts, never retried: one new fact of the
writer's own, a value of a single-valued timeline all writers share (``LIVES_IN`` of three
people) and a multi-valued fact many writers confirm. Writers of a scope queue on its lock, so
the figure is how the lock hands the scope over: acknowledged batches per second from the start
signal to the last writer's last call, and its ratio to one writer in the same round. Writer
counts are interleaved round by round, each in a fresh scope, so a busy machine slows them
alike; the median round is reported. CPU seconds per 1,000 batches of the database server and
of the writer processes (which a busy machine does not distort) show where the time goes.

After each run the store is checked against what the writers were told: one audit entry per
acknowledged batch, the records created as the writers' ``WriteResult`` say, and the scope's
counters equal to the records. Errors are counted by type (there should be none).

Output: ``<date>-<machine>-concurrency.json`` and ``.md`` in ``--out``.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import statistics
import sys
import time
import uuid
from collections import Counter
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from benchmarks.measure import library_info, machine_tag, server_cpu, summary
from benchmarks.targets import Target, drop_scopes, open_target
from synapse_graph import Memory, SynapseError, Triple
from synapse_graph.catalogue import Q

BACKENDS = ("falkordb", "neo4j")
DEFAULT_OUT = Path(__file__).resolve().parent / "results"
PEOPLE = ("Ann", "Bob", "Cat")
CITIES = ("Paris", "London", "Berlin", "Rome", "Oslo")
HOBBIES = ("chess", "jazz", "tennis", "go", "baking", "running")
T0 = datetime(2020, 1, 1, tzinfo=UTC)


def batch(writer: int, index: int) -> list[Triple]:
    """A writer's ``index``-th upsert: explicit instants, so the end state does not depend on the clock."""
    person, city = PEOPLE[index % 3], CITIES[(writer + index) % 5]
    return [
        Triple(subject=f"writer {writer}", predicate="NOTED", object=f"item {writer}-{index}",
               valid_at=T0 + timedelta(minutes=index)),
        Triple(subject=person, predicate="LIVES_IN", object=city,
               valid_at=T0 + timedelta(days=100 * CITIES.index(city) + PEOPLE.index(person))),
        Triple(subject=PEOPLE[writer % 3], predicate="LIKES", object=HOBBIES[index % 6], valid_at=T0),
    ]


def writer_process(location: str, auth: tuple[str, str] | None, scope: str, writer: int, batches: int,
                   barrier: Any, results: Any) -> None:
    """One writer: opens its memory, waits for the start signal, writes, reports what it was told."""
    report: dict[str, Any] = {"writer": writer, "acked": 0, "errors": [], "latencies": [], "created": 0,
                              "start": 0.0, "end": 0.0, "cpu": 0.0}
    try:
        with Memory(location, scope=scope, auth=auth) as memory:
            barrier.wait(timeout=600)
            report["start"] = time.monotonic()  # CLOCK_MONOTONIC: comparable between processes on one machine
            cpu = time.process_time()
            for index in range(batches):
                began = time.monotonic()
                try:
                    result = memory.upsert(batch(writer, index), source=f"writer {writer}")
                except SynapseError as exc:
                    report["errors"].append(type(exc).__name__)
                    continue
                report["latencies"].append(time.monotonic() - began)
                report["acked"] += 1
                report["created"] += result.created
            report["end"] = time.monotonic()
            report["cpu"] = time.process_time() - cpu
    except BaseException as exc:  # the parent counts it
        report["errors"].append(f"crashed: {type(exc).__name__}: {exc}")
    results.put(report)


def run_writers(target: Target, writers: int, batches: int) -> dict[str, Any]:
    """``writers`` processes on a fresh scope; their throughput, latencies, errors and the end-state check."""
    scope = f"bench-concurrency-{uuid.uuid4().hex[:10]}"
    context = multiprocessing.get_context("forkserver")
    barrier, results = context.Barrier(writers + 1), context.Queue()
    processes = [context.Process(target=writer_process,
                                 args=(target.location, target.auth, scope, w, batches, barrier, results))
                 for w in range(writers)]
    for process in processes:
        process.start()
    try:
        barrier.wait(timeout=600)
        server_before = server_cpu(target.server_pid)
        reports = [results.get(timeout=1_800) for _ in processes]
        server_seconds = server_cpu(target.server_pid) - server_before
    finally:
        for process in processes:
            process.join(timeout=60)
            if process.is_alive():
                process.kill()
    try:
        with Memory(target.location, scope=scope, auth=target.auth) as memory:
            check = end_state(memory, reports)
    finally:
        drop_scopes(target, [scope])
    acked = sum(r["acked"] for r in reports)
    started = [r["start"] for r in reports if r["start"]]
    ended = [r["end"] for r in reports if r["end"]]
    seconds = max(ended) - min(started) if started and ended else float("nan")
    writer_seconds = [r["end"] - r["start"] for r in reports if r["end"]]
    return {
        "writers": writers, "batches_per_writer": batches, "acked": acked, "asked": writers * batches,
        "errors": dict(Counter(e for r in reports for e in r["errors"])),
        "seconds": round(seconds, 3), "batches_per_s": round(acked / seconds, 2),
        "latency": summary([x for r in reports for x in r["latencies"]]),
        "latency_max_ms": round(1000 * max((x for r in reports for x in r["latencies"]), default=0.0), 1),
        "writer_seconds": {"min": round(min(writer_seconds), 3), "max": round(max(writer_seconds), 3)}
        if writer_seconds else None,
        "cpu_s_per_1000": {"server": round(1000 * server_seconds / max(acked, 1), 2) if target.server_pid else None,
                           "writers": round(1000 * sum(r["cpu"] for r in reports) / max(acked, 1), 2)},
        "check": check,
    }


def end_state(memory: Memory, reports: list[dict[str, Any]]) -> dict[str, Any]:
    """What the store holds against what the writers were told."""
    lines = [json.loads(line) for line in memory.export()]
    records = [x for x in lines if x["kind"] == "fact"]
    current = [r for r in records if r["expired_at"] is None]
    audit = sum(1 for x in lines if x["kind"] == "audit" and x["action"] == "upsert")
    [row] = memory.backend.read(Q.SCOPE_STATE, {"scope": memory.scope})
    stats = memory.stats()
    acked, created = sum(r["acked"] for r in reports), sum(r["created"] for r in reports)
    found = {"audit_entries": audit, "created_told": created, "current_records": len(current),
             "counter_facts": row["state"]["facts"], "stats_facts": stats.facts}
    found["ok"] = audit == acked and created == len(current) == row["state"]["facts"] == stats.facts
    return found


def measure(backend: str, counts: list[int], total: int, rounds: int) -> dict[str, Any]:
    runs: list[dict[str, Any]] = []
    run_id = f"concurrency-{uuid.uuid4().hex[:8]}"
    with open_target(backend, DEFAULT_OUT, run_id) as target:
        for round_ in range(rounds):
            order = counts if round_ % 2 == 0 else counts[::-1]  # interleaved: neither end always runs first
            for writers in order:
                batches = total // writers
                print(f"{backend} round {round_ + 1}/{rounds}: {writers} writers x {batches} batches ...",
                      file=sys.stderr, flush=True)
                result = run_writers(target, writers, batches)
                result["round"] = round_
                runs.append(result)
                print(f"  {result['batches_per_s']} batches/s, errors {result['errors'] or 0}, "
                      f"end state {'ok' if result['check']['ok'] else 'WRONG: ' + str(result['check'])}",
                      file=sys.stderr, flush=True)
    table = []
    for writers in counts:
        mine = [r for r in runs if r["writers"] == writers]
        ratios = [r["batches_per_s"] / one["batches_per_s"] for r in mine for one in runs
                  if one["writers"] == 1 and one["round"] == r["round"]] if 1 in counts else []
        table.append({
            "writers": writers,
            "batches_per_s_median": round(statistics.median(r["batches_per_s"] for r in mine), 2),
            "ratio_vs_one_writer_median": round(statistics.median(ratios), 2) if ratios else None,
            "ratio_vs_one_writer_rounds": [round(x, 2) for x in ratios],
            "latency_median_ms": statistics.median(r["latency"]["median_ms"] for r in mine),
            "latency_p95_ms": statistics.median(r["latency"]["p95_ms"] for r in mine),
            "latency_max_ms": max(r["latency_max_ms"] for r in mine),
            "server_cpu_s_per_1000": _median_or_none([r["cpu_s_per_1000"]["server"] for r in mine]),
            "writers_cpu_s_per_1000": _median_or_none([r["cpu_s_per_1000"]["writers"] for r in mine]),
            "acked": sum(r["acked"] for r in mine), "asked": sum(r["asked"] for r in mine),
            "errors": sum(sum(r["errors"].values()) for r in mine),
            "end_state_ok": all(r["check"]["ok"] for r in mine),
        })
    return {"backend": backend, "summary": table, "runs": runs}


def _median_or_none(values: list[float | None]) -> float | None:
    known = [v for v in values if v is not None]
    return round(statistics.median(known), 2) if known else None


def markdown(result: dict[str, Any]) -> str:
    lines = [f"# Writers on one scope ({result['date']}, {result['machine']}, commit {result['library']['commit']})",
             "", f"{result['total']} upserts of 3 facts per configuration, shared among its writers; "
             f"{result['rounds']} rounds interleaved, medians over rounds (latency max: over all rounds). Ratio: "
             "throughput over that of one writer in the same round. Latency: one upsert, waiting for the lock "
             "included. CPU: seconds per 1,000 upserts, of the database server and of all writer processes.",
             ""]
    for backend in result["backends"]:
        lines += [f"## {backend['backend']}", "",
                  "| writers | batches/s | vs 1 writer | latency median / p95 / max (ms) | CPU server / writers | "
                  "acknowledged | errors | end state |",
                  "|---:|---:|---:|---:|---:|---:|---:|---|"]
        for row in backend["summary"]:
            ratio = "-" if row["ratio_vs_one_writer_median"] is None else f"{row['ratio_vs_one_writer_median']:.2f}x"
            lines.append(f"| {row['writers']} | {row['batches_per_s_median']} | {ratio} | "
                         f"{row['latency_median_ms']:.0f} / {row['latency_p95_ms']:.0f} / "
                         f"{row['latency_max_ms']:.0f} | "
                         f"{row['server_cpu_s_per_1000']} / {row['writers_cpu_s_per_1000']} | "
                         f"{row['acked']}/{row['asked']} | {row['errors']} | "
                         f"{'checked' if row['end_state_ok'] else 'WRONG'} |")
        lines.append("")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.concurrency", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--backend", choices=[*BACKENDS, "all"], default="all")
    parser.add_argument("--writers", type=lambda s: [int(x) for x in s.split(",")], default=[1, 8, 32],
                        help="writer counts, comma-separated (include 1 for the ratios)")
    parser.add_argument("--total", type=int, default=1280,
                        help="upserts per configuration, shared among its writers (default 32 x 40)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = parser.parse_args(argv)
    # Writers fork from a process that has imported the library (this module runs as __main__, so not it).
    multiprocessing.get_context("forkserver").set_forkserver_preload(
        ["synapse_graph", "benchmarks.measure", "benchmarks.targets"])
    backends = list(BACKENDS) if args.backend == "all" else [args.backend]
    result: dict[str, Any] = {
        "date": datetime.now(UTC).date().isoformat(), "machine": machine_tag(), "library": library_info(),
        "total": args.total, "rounds": args.rounds,
        "backends": [measure(b, args.writers, args.total, args.rounds) for b in backends],
    }
    args.out.mkdir(parents=True, exist_ok=True)
    stem = args.out / f"{result['date']}-{result['machine']}-concurrency"
    stem.with_suffix(".json").write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    text = markdown(result)
    stem.with_suffix(".md").write_text(text + "\n", encoding="utf-8")
    print(text)
    ok = all(row["end_state_ok"] and row["errors"] == 0 for b in result["backends"] for row in b["summary"])
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
