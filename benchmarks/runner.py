"""The benchmark run: ours vs the raw baseline side by side, per backend, at growing store sizes.

Per backend, one server, one run: the stream is loaded in batches, alternating which of
the two systems goes first; at each checkpoint (10k, 100k, 1M writes: the sizes up to
``--size``) the same point-in-time questions go to ``Memory.facts`` and to the raw read,
interleaved, then 2-hop ``Memory.neighbourhood`` (and ``Memory.recall`` when the library
has it) and the footprint. Every figure worth quoting is a ratio measured in this run.
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.util
import statistics
import time
import traceback
import uuid
from collections import defaultdict
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

from benchmarks import recall_bench
from benchmarks.baseline import RawStore, answers, plan_batches
from benchmarks.generate import SIZES, Checkpoint, Dataset, Question, generate
from benchmarks.measure import (
    CPU_KEYS,
    REPO,
    cpu_per_1000,
    library_info,
    machine_tag,
    ratio,
    server_cpu,
    summary,
    timed_backend,
)
from benchmarks.single_write import single_writes
from benchmarks.targets import Target, drop_scopes, open_target
from synapse_graph import Memory, Triple

DEFAULT_OUT = REPO / "benchmarks" / "results"
BACKENDS = ("falkordb", "neo4j")
WARM_UP_READS = 10
"""Untimed reads of each kind before a checkpoint's timed ones."""
console = Console(stderr=True)


@dataclass
class RunConfig:
    size: str = "smoke"
    backends: Sequence[str] = BACKENDS
    peer: str | None = None
    out: Path = DEFAULT_OUT
    batch_size: int = 1_000
    questions: int = 300
    neighbourhoods: int = 60
    seed: int = 20_260_101
    temporal_kg: bool = True
    peer_size: int = 400
    keep: bool = False
    write_files: bool = True
    progress: bool = True
    checkpoints: tuple[int, ...] | None = None
    single_writes: int = 200
    """Single-fact upserts (and as many raw single-triple writes) per checkpoint; 0 skips the row."""
    recall_max: int | None = None
    """Largest store the shared-word recall row grows to (it writes a store of its own); None: every checkpoint."""


# -- timing helpers ----------------------------------------------------------------------------------


# -- phases ------------------------------------------------------------------------------------------


def _triples(dataset: Dataset, start: int, stop: int) -> list[Triple]:
    return [
        Triple(subject=w.subject, predicate=w.predicate, object=w.object, valid_at=w.valid_at)
        for w in dataset.writes[start:stop]
    ]


@dataclass
class LoadTotals:
    ours_s: float = 0.0
    raw_s: float = 0.0
    writes: int = 0
    created: int = 0
    confirmed: int = 0
    closed: int = 0
    entities_created: int = 0
    raw_closes: int = 0
    batch_ours: list[float] = field(default_factory=list)
    batch_raw: list[float] = field(default_factory=list)
    cpu: dict[str, float] = field(default_factory=lambda: dict.fromkeys(CPU_KEYS, 0.0))


def load(
    memory: Memory, raw: RawStore, dataset: Dataset, start: int, stop: int, config: RunConfig,
    totals: LoadTotals, progress: Progress | None, task: Any, server_pid: int | None = None,
) -> None:
    """Write ``dataset.writes[start:stop]`` into both systems, batch by batch, alternating who goes first."""
    native = raw.__class__.__name__ == "Neo4jRaw"
    size = config.batch_size
    batches = plan_batches(dataset.writes[start:stop], size, native_times=native)
    for index, batch in enumerate(batches):
        lo = start + index * size
        triples = _triples(dataset, lo, min(lo + size, stop))

        def ours(triples: list[Triple] = triples) -> None:
            cpu, server, began = time.process_time(), server_cpu(server_pid), time.perf_counter()
            result = memory.upsert(triples)
            took = time.perf_counter() - began
            totals.cpu["ours_client"] += time.process_time() - cpu
            totals.cpu["ours_server"] += server_cpu(server_pid) - server
            totals.ours_s += took
            totals.batch_ours.append(took)
            totals.created += result.created
            totals.confirmed += result.confirmed
            totals.closed += result.closed
            totals.entities_created += result.entities_created

        def theirs(batch: Any = batch) -> None:
            cpu, server, began = time.process_time(), server_cpu(server_pid), time.perf_counter()
            raw.write(batch, datetime.now(UTC))
            took = time.perf_counter() - began
            totals.cpu["raw_client"] += time.process_time() - cpu
            totals.cpu["raw_server"] += server_cpu(server_pid) - server
            totals.raw_s += took
            totals.batch_raw.append(took)
            totals.raw_closes += len(batch.closes)

        for step in (ours, theirs) if (lo // size) % 2 == 0 else (theirs, ours):
            step()
        totals.writes += len(triples)
        if progress is not None:
            progress.advance(task, len(triples))
        elif totals.writes % 50_000 < len(triples):
            console.log(f"{totals.writes:,} writes: ours {totals.ours_s:.1f} s, raw {totals.raw_s:.1f} s")


def ask(memory: Memory, raw: RawStore, checkpoint: Checkpoint) -> dict[str, Any]:
    """The checkpoint's point-in-time questions to both systems, interleaved; latency and exactness."""
    ours_t: list[float] = []
    raw_t: list[float] = []
    exact_ours = exact_raw = agree = 0
    kinds: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    mismatches: list[dict[str, Any]] = []
    for warm in checkpoint.questions[:WARM_UP_READS]:
        memory.facts(warm.subject, warm.predicate, as_of=warm.as_of)
        raw.read(warm.subject, warm.predicate, warm.as_of)
    for index, question in enumerate(checkpoint.questions):
        def mine(question: Question = question) -> frozenset[str]:
            began = time.perf_counter()
            facts = memory.facts(question.subject, question.predicate, as_of=question.as_of)
            ours_t.append(time.perf_counter() - began)
            return frozenset(f.object for f in facts)

        def base(question: Question = question) -> frozenset[str]:
            began = time.perf_counter()
            rows = raw.read(question.subject, question.predicate, question.as_of)
            raw_t.append(time.perf_counter() - began)
            return answers(rows)

        if index % 2 == 0:
            got, got_raw = mine(), base()
        else:
            got_raw, got = base(), mine()
        exact_ours += got == question.expected
        exact_raw += got_raw == question.expected
        agree += got == got_raw
        kinds[question.kind][0] += 1
        kinds[question.kind][1] += got == question.expected
        if (got != question.expected or got_raw != question.expected) and len(mismatches) < 10:
            mismatches.append({"subject": question.subject, "predicate": question.predicate,
                               "as_of": question.as_of.isoformat(), "expected": sorted(question.expected),
                               "ours": sorted(got), "raw": sorted(got_raw)})
    ours_s, raw_s = summary(ours_t), summary(raw_t)
    return {
        "questions": len(checkpoint.questions),
        "exact_ours": exact_ours,
        "exact_raw": exact_raw,
        "agree": agree,
        "by_kind": {k: {"asked": v[0], "exact_ours": v[1]} for k, v in sorted(kinds.items())},
        "mismatches": mismatches,
        "ours": ours_s,
        "raw": raw_s,
        "p95_ratio": ratio(ours_s["p95_ms"], raw_s["p95_ms"]),
        "median_ratio": ratio(ours_s["median_ms"], raw_s["median_ms"]),
    }


def explore(memory: Memory, checkpoint: Checkpoint, dataset: Dataset) -> dict[str, Any]:
    """2-hop neighbourhoods (and recall, when the library has it) around the checkpoint's entities."""
    hop2: list[float] = []
    sizes: list[int] = []
    # Warmed as the point-in-time row is (``ask``): the first reads after a server start compile the
    # statements' plans (Neo4j) and fill caches; around entities of the warmed questions, not the timed ones.
    warm = [question.subject for question in checkpoint.questions[:WARM_UP_READS]]
    for name in warm:
        memory.neighbourhood(name, hops=2)
    for name in checkpoint.neighbourhood:
        began = time.perf_counter()
        found = memory.neighbourhood(name, hops=2)
        hop2.append(time.perf_counter() - began)
        sizes.append(len(found))
    result: dict[str, Any] = {"neighbourhood_2hop": {**summary(hop2), "mean_facts": statistics.fmean(sizes or [0])}}
    recall = getattr(memory, "recall", None)
    if callable(recall):
        took: list[float] = []
        errors: list[str] = []
        for name in warm:
            with contextlib.suppress(Exception):  # failures are counted below, on the timed questions
                recall(name)
        for index, name in enumerate(checkpoint.neighbourhood):
            predicate = dataset.predicates[index % len(dataset.predicates)]
            question = f"{name} {predicate.lower().replace('_', ' ')}"
            began = time.perf_counter()
            try:
                recall(question)
            except Exception as exc:  # a library still being written must not sink the run
                errors.append(f"{type(exc).__name__}: {exc}"[:200])
                continue
            took.append(time.perf_counter() - began)
        result["recall"] = {**summary(took), "errors": errors[:3], "failed": len(errors)}
    return result


def counts(
    memory: Memory, raw: RawStore, checkpoint: Checkpoint, totals: LoadTotals, dataset: Dataset
) -> dict[str, Any]:
    stats = memory.stats()
    raw_facts, raw_entities = raw.count()
    mix = dataset.counts(checkpoint.size)
    return {
        "writes": checkpoint.size,
        "expected_records": checkpoint.records,
        "expected_entities": checkpoint.entities,
        "ours_records": stats.facts,
        "ours_entities": stats.entities,
        "raw_records": raw_facts,
        "raw_entities": raw_entities,
        "ours_created": totals.created,
        "ours_confirmed": totals.confirmed,
        "ours_closed": totals.closed,
        "expected_created": mix["new"] + mix["supersede"],
        "expected_confirmed": mix["repeat"],
        "expected_closed": totals.raw_closes,
        "mix": mix,
    }


def _write_total(totals: LoadTotals) -> dict[str, Any]:
    ours_fps, raw_fps = totals.writes / max(totals.ours_s, 1e-9), totals.writes / max(totals.raw_s, 1e-9)
    return {
        "writes": totals.writes,
        "ours_facts_per_s": round(ours_fps, 1),
        "raw_facts_per_s": round(raw_fps, 1),
        "ratio": ratio(ours_fps, raw_fps),
        "cpu_seconds_per_1000_writes": cpu_per_1000(totals.cpu, {}, totals.writes),
        "cpu_ratio": ratio(totals.cpu["ours_client"] + totals.cpu["ours_server"],
                           totals.cpu["raw_client"] + totals.cpu["raw_server"]),
    }


def bench_backend(
    target: Target, dataset: Dataset, config: RunConfig, run_id: str, saved: Callable[[dict[str, Any]], None],
) -> dict[str, Any]:
    """Load, ask and measure on one backend; ``saved`` gets the partial result after each store size."""
    scope_ours, scope_raw, scope_recall = f"bench-ours-{run_id}", f"bench-raw-{run_id}", f"bench-recall-{run_id}"
    memory = target.memory(scope_ours, dataset)
    raw = target.raw(scope_raw)
    probe = timed_backend(memory)
    totals = LoadTotals()
    result: dict[str, Any] = {"backend": target.name, "checkpoints": []}
    result["footprint_before"] = target.footprint(memory, raw)
    done = 0
    try:
        with _progress(config) as progress:
            task: Any = progress.add_task(f"{target.name}: loading", total=len(dataset.writes)) if progress else None
            for checkpoint in dataset.checkpoints:
                segment_ours, segment_raw, segment_writes = totals.ours_s, totals.raw_s, totals.writes
                segment_cpu = dict(totals.cpu)
                segment_raw_exec = getattr(raw, "server_s", 0.0)
                load(memory, raw, dataset, done, checkpoint.size, config, totals, progress, task, target.server_pid)
                done = checkpoint.size
                breakdown = probe.reset()
                ours_fps = (totals.writes - segment_writes) / max(totals.ours_s - segment_ours, 1e-9)
                raw_fps = (totals.writes - segment_writes) / max(totals.raw_s - segment_raw, 1e-9)
                write = {
                    "segment_writes": totals.writes - segment_writes,
                    "ours_facts_per_s": round(ours_fps, 1),
                    "raw_facts_per_s": round(raw_fps, 1),
                    "ratio": ratio(ours_fps, raw_fps),
                    "ours_seconds": round(totals.ours_s - segment_ours, 3),
                    "cpu_seconds_per_1000_writes": cpu_per_1000(
                        totals.cpu, segment_cpu, totals.writes - segment_writes
                    ),
                    "raw_server_exec_seconds": round(getattr(raw, "server_s", 0.0) - segment_raw_exec, 3),
                    "ours_db_seconds_by_statement": breakdown,
                    "batch_ours": summary(totals.batch_ours[-max(1, len(totals.batch_ours) // 4):]),
                    "batch_raw": summary(totals.batch_raw[-max(1, len(totals.batch_raw) // 4):]),
                }
                if progress is not None:
                    progress.update(task, description=f"{target.name}: asking at {checkpoint.size:,}")
                reads = ask(memory, raw, checkpoint)
                read_breakdown = probe.reset()
                around = explore(memory, checkpoint, dataset)
                around["neighbourhood_2hop"]["p95_vs_pit"] = ratio(around["neighbourhood_2hop"]["p95_ms"],
                                                                   reads["ours"]["p95_ms"])
                probe.reset()
                if config.single_writes:
                    around["single_write"] = single_writes(memory, raw, dataset, checkpoint.size, config.single_writes,
                                                           probe.reset)
                    probe.reset()
                result["checkpoints"].append({
                    "size": checkpoint.size,
                    "write": write,
                    "read": {**reads, "ours_db_seconds_by_statement": read_breakdown},
                    **around,
                    "counts": counts(memory, raw, checkpoint, totals, dataset),
                    "footprint": target.footprint(memory, raw),
                })
                result["write_total"] = _write_total(totals)
                saved(result)
                if progress is not None:
                    progress.update(task, description=f"{target.name}: loading")
        console.log(f"{target.name}: recall with shared-word names")
        result["recall_shared_words"] = recall_bench.run(
            lambda scope, facts, entities: Memory(target.location, scope=scope, auth=target.auth, max_facts=facts,
                                                  max_entities=entities),
            [c.size for c in dataset.checkpoints if config.recall_max is None or c.size <= config.recall_max],
            scope=scope_recall, questions_per_size=config.questions // 3)
        saved(result)
        if config.peer == "graphiti":
            from benchmarks.graphiti_peer import run_peer

            console.log(f"{target.name}: Graphiti comparison ({config.peer_size} writes)")
            result["graphiti"] = run_peer(target, config, run_id)
    finally:
        memory.close()
        if not config.keep:
            drop_scopes(target, [scope_ours, scope_raw, scope_recall])
        raw.close()
    return result


@contextlib.contextmanager
def _progress(config: RunConfig) -> Iterator[Progress | None]:
    if not config.progress:
        yield None
        return
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
               TimeRemainingColumn())
    with Progress(*columns, console=console, transient=False) as progress:
        yield progress


def temporal_kg(target: Target) -> dict[str, Any] | None:
    """The real-data correctness benchmark (``benchmarks/temporal_kg.py``), when that module exists."""
    if importlib.util.find_spec("benchmarks.temporal_kg") is None:
        return None
    module = importlib.import_module("benchmarks.temporal_kg")
    results: dict[str, Any] = {}
    for name in getattr(module, "DATASETS", ()):
        console.log(f"{target.name}: temporal_kg {name}")
        try:
            results[name] = module.run(name, target.location, auth=target.auth)
        except Exception as exc:  # missing data or an unfinished module: report, don't sink the run
            results[name] = {"error": f"{type(exc).__name__}: {exc}"[:500]}
    return results


def run(config: RunConfig) -> dict[str, Any]:
    """Run the benchmark; returns the results and (``write_files``) writes JSON, Markdown and plots."""
    size = SIZES[config.size]
    run_id = uuid.uuid4().hex[:8]
    started = time.perf_counter()
    console.log(f"generating {size:,} writes (seed {config.seed})")
    marks = config.checkpoints or ((1_000, size) if config.size == "smoke" else None)
    dataset = generate(size, seed=config.seed, questions=config.questions, neighbourhoods=config.neighbourhoods,
                       checkpoints=marks)
    results: dict[str, Any] = {
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "machine": machine_tag(),
        "library": library_info(),
        "size": config.size,
        "writes": size,
        "batch_size": config.batch_size,
        "seed": config.seed,
        "dataset": {"entities": dataset.entities, "predicates": len(dataset.predicates),
                    "single_valued": len(dataset.single_valued), "mix": dataset.counts(),
                    "checkpoints": [c.size for c in dataset.checkpoints]},
        "ran": list(config.backends),
        "backends": {},
    }

    def saved(partial: dict[str, Any]) -> None:
        """After each store size: the results so far, so a long run that is stopped still leaves its figures."""
        results["backends"][partial["backend"]] = partial
        if config.write_files:
            from benchmarks.report import write_reports

            write_reports({**results, "partial": True}, config.out)

    for name in config.backends:
        try:
            with open_target(name, config.out, run_id, keep=config.keep) as target:
                results["backends"][name] = bench_backend(target, dataset, config, run_id, saved)
                if config.temporal_kg:
                    found = temporal_kg(target)
                    if found is not None:
                        results["backends"][name]["temporal_kg"] = found
        except Exception as exc:
            console.print_exception()
            results["backends"][name] = {"backend": name, "error": f"{type(exc).__name__}: {exc}",
                                         "traceback": traceback.format_exc()[-3000:]}
    results["seconds"] = round(time.perf_counter() - started, 1)
    if config.write_files:
        from benchmarks.report import write_reports

        paths = write_reports(results, config.out)
        results["files"] = [str(p) for p in paths]
    return results
