"""Results as JSON, a Markdown summary and PNG plots (matplotlib, optional)."""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

TARGETS = {
    "write": "ours/raw write throughput >= 0.5",
    "read": "ours/raw point-in-time read p95 <= 2.0",
    "growth": "ours read p95 at largest size / at 10k <= 1.5",
    "graphiti": "ours per-fact write cost >= 100x cheaper than Graphiti add_triplet",
}


def _fmt(value: Any, digits: int = 2) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "–"
    if isinstance(value, float):
        return f"{value:,.{digits}f}"
    if isinstance(value, int):
        return f"{value:,}"
    return str(value)


def _table(header: Iterable[str], rows: Iterable[Iterable[Any]]) -> list[str]:
    head = list(header)
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    lines += ["| " + " | ".join(_fmt(v) for v in row) + " |" for row in rows]
    return lines


def _mb(value: Any) -> float | None:
    return None if value is None else value / 2**20


def growth(backend: Mapping[str, Any]) -> float | None:
    """p95 of our point-in-time read at the largest size over the first size of 10k or more."""
    points = [c for c in backend.get("checkpoints", []) if c["size"] >= 10_000]
    if len(points) < 2:
        return None
    first, last = points[0]["read"]["ours"]["p95_ms"], points[-1]["read"]["ours"]["p95_ms"]
    return round(last / first, 3) if first else None


def markdown(results: Mapping[str, Any]) -> str:
    lines = [
        f"# synapse-graph benchmark: {results['size']} ({results['writes']:,} writes), {results['machine']}",
        "",
        f"{results['date']}, batch {results['batch_size']}, seed {results['seed']}; "
        f"dataset {results['dataset']['entities']:,} entities, {results['dataset']['predicates']} predicates "
        f"({results['dataset']['single_valued']} single-valued), mix {results['dataset']['mix']}.",
        f"Library measured: {results.get('library', {})}."
        + (" PARTIAL: the run was still going when this was written." if results.get("partial") else ""),
        "Every ratio is ours / raw baseline, measured side by side in this run on the same server. "
        "Absolute times are noisy on this machine; quote the ratios.",
        "",
        "## Writes (facts/s, whole load)",
        "",
    ]
    backends = results["backends"]
    rows: list[tuple[Any, ...]] = []
    for name, found in backends.items():
        total = found.get("write_total", {})
        cpu_ratio = total.get("cpu_ratio")
        rows.append((name, total.get("ours_facts_per_s"), total.get("raw_facts_per_s"), total.get("ratio"),
                     None if not cpu_ratio else round(1 / cpu_ratio, 3),
                     found.get("graphiti", {}).get("per_fact_ratio_batched")))
    lines += _table(("backend", "ours facts/s", "raw facts/s", "ours/raw (target >= 0.5)",
                     "raw/ours CPU seconds (client+server)", "Graphiti per-fact cost / ours (target >= 100)"), rows)
    lines += ["", "## Point-in-time reads `Memory.facts(subject, predicate, as_of)` vs raw", ""]
    rows = []
    for name, found in backends.items():
        for point in found.get("checkpoints", []):
            read = point["read"]
            rows.append((name, point["size"], point["write"]["ratio"], read["ours"]["median_ms"],
                         read["raw"]["median_ms"], read["ours"]["p95_ms"], read["raw"]["p95_ms"], read["p95_ratio"],
                         f"{read['exact_ours']}/{read['questions']}", f"{read['agree']}/{read['questions']}"))
    lines += _table(("backend", "writes", "write ratio (segment)", "ours p50 ms", "raw p50 ms", "ours p95 ms",
                     "raw p95 ms", "p95 ours/raw (<= 2)", "ours exact", "ours = raw"), rows)
    lines += ["", "Growth of our read p95 from 10k to the largest size (target <= 1.5): "
              + ", ".join(f"{n}: {_fmt(growth(f))}" for n, f in backends.items()), ""]
    lines += ["## 2-hop neighbourhood and recall", ""]
    rows = []
    for name, found in backends.items():
        for point in found.get("checkpoints", []):
            hood, recall = point["neighbourhood_2hop"], point.get("recall", {})
            rows.append((name, point["size"], hood["median_ms"], hood["p95_ms"], hood.get("p95_vs_pit"),
                         hood["mean_facts"], recall.get("median_ms"), recall.get("p95_ms"), recall.get("failed")))
    lines += _table(("backend", "writes", "2-hop p50 ms", "2-hop p95 ms", "2-hop p95 / PIT p95 (<= 5)",
                     "facts returned (mean)", "recall p50 ms", "recall p95 ms", "recall errors"), rows)
    lines += ["", "## Recall with shared-word names (`recall_bench.py`)", ""]
    rows = [(name, p["size"], p["entities"], p["median_ms"], p["p95_ms"], f"{p['expected_first']}/{p['questions']}")
            for name, found in backends.items() for p in found.get("recall_shared_words", {}).get("points", [])]
    lines += _table(("backend", "facts", "entities", "recall p50 ms", "recall p95 ms", "named entity first"), rows)
    lines += ["", "## Single-fact upsert `Memory.upsert(one triple)` vs a raw single-triple write", ""]
    rows = []
    for name, found in backends.items():
        for point in found.get("checkpoints", []):
            single = point.get("single_write")
            if single:
                rows.append((name, point["size"], single["ours"]["median_ms"], single["raw"]["median_ms"],
                             single["median_ratio"], single["ours"]["p95_ms"], single["raw"]["p95_ms"],
                             single["p95_ratio"], single["correct"]))
    lines += _table(("backend", "writes", "ours p50 ms", "raw p50 ms", "p50 ours/raw (<= 3)", "ours p95 ms",
                     "raw p95 ms", "p95 ours/raw", "correct"), rows)
    lines += ["", "## Correctness counts", ""]
    rows = []
    for name, found in backends.items():
        for point in found.get("checkpoints", []):
            c = point["counts"]
            rows.append((name, point["size"], c["expected_records"], c["ours_records"], c["raw_records"],
                         c["expected_entities"], c["ours_entities"], c["raw_entities"],
                         f"{c['ours_created']}/{c['expected_created']}",
                         f"{c['ours_confirmed']}/{c['expected_confirmed']}",
                         f"{c['ours_closed']}/{c['expected_closed']}"))
    lines += _table(("backend", "writes", "records expected", "ours", "raw", "entities expected", "ours", "raw",
                     "created ours/exp", "confirmed ours/exp", "closed ours/exp"), rows)
    lines += ["", "## Footprint", ""]
    rows = []
    for name, found in backends.items():
        before = found.get("footprint_before", {})
        for point in found.get("checkpoints", []):
            foot = point["footprint"]
            millions = point["size"] / 1e6
            disk = foot.get("disk_bytes_total")
            disk_delta = None if disk is None else disk - (before.get("disk_bytes_total") or 0)
            rss = foot.get("server_rss_bytes")
            rows.append((name, point["size"], _mb(disk_delta), _mb(rss), foot.get("graph_mb_ours"),
                         foot.get("graph_mb_raw"),
                         None if disk_delta is None else _mb(disk_delta) / (2 * millions),
                         None if foot.get("graph_mb_ours") is None else foot["graph_mb_ours"] / millions))
    lines += _table(("backend", "writes", "disk growth MB (ours+raw)", "server RSS MB", "graph MB ours",
                     "graph MB raw", "disk MB per 1M writes (ours+raw)/2", "graph MB ours per 1M writes"), rows)
    lines += ["", "Graph MB is `GRAPH.MEMORY USAGE` (10,000 samples): a sampled estimate that leaves out FalkorDB's "
              "pool of interned strings. `python -m benchmarks.footprint` loads each side alone into its own "
              "server and compares the servers' `used_memory` growth, which counts everything.", ""]
    lines += _breakdown(backends)
    lines += _graphiti(backends)
    lines += _temporal(backends)
    errors = [(n, f["error"]) for n, f in backends.items() if "error" in f]
    if errors:
        lines += ["## Errors", ""] + [f"- {n}: {e}" for n, e in errors] + [""]
    return "\n".join(lines)


def _breakdown(backends: Mapping[str, Any]) -> list[str]:
    lines = ["## Where our write time goes (last segment, client-side time per statement)", ""]
    for name, found in backends.items():
        points = found.get("checkpoints", [])
        if not points:
            continue
        write = points[-1]["write"]
        statements = write["ours_db_seconds_by_statement"]
        db = sum(s["seconds"] for s in statements.values())
        rows: list[tuple[Any, ...]] = [(k, v["seconds"], v.get("server_exec_seconds"), v["calls"], v["rows"],
                 100 * v["seconds"] / write["ours_seconds"]) for k, v in statements.items()]
        rows.append(("python: validation + planning", write["ours_seconds"] - db, None, None, None,
                     100 * (write["ours_seconds"] - db) / write["ours_seconds"]))
        lines += [f"{name}, segment ending at {points[-1]['size']:,} writes ({write['ours_seconds']:.2f} s):", ""]
        lines += [*_table(("statement", "round trips s", "server execution s", "calls", "rows returned",
                           "% of upsert time"), rows), ""]
        cpu = write.get("cpu_seconds_per_1000_writes")
        if cpu:
            lines += [f"CPU seconds per 1,000 writes (busy-machine proof): ours client {cpu['ours_client']:.3f} + "
                      f"server {cpu['ours_server']:.3f}; raw client {cpu['raw_client']:.3f} + server "
                      f"{cpu['raw_server']:.3f}. Raw server execution in the segment: "
                      f"{_fmt(write.get('raw_server_exec_seconds'))} s.", ""]
    return lines


def _graphiti(backends: Mapping[str, Any]) -> list[str]:
    found = {n: f["graphiti"] for n, f in backends.items() if "graphiti" in f}
    if not found:
        return []
    lines = ["## Graphiti (graphiti-core, offline fakes) on the same server", ""]
    rows: list[tuple[Any, ...]] = []
    for name, peer in found.items():
        if "error" in peer:
            lines.append(f"- {name}: Graphiti could not run: {peer['error']}")
            continue
        rows.append((name, peer["writes"], peer["graphiti_ms_per_fact"], peer["ours_single_ms_per_fact"],
                     peer["ours_batched_ms_per_fact"], peer["per_fact_ratio_single"], peer["per_fact_ratio_batched"],
                     peer["graphiti_read"]["p95_ms"], peer["ours_read"]["p95_ms"],
                     f"{peer['exact_graphiti']}/{peer['questions']}",
                     f"{peer['exact_graphiti_postfiltered']}/{peer['questions']}",
                     f"{peer['exact_ours']}/{peer['questions']}"))
    lines += _table(("backend", "writes", "Graphiti ms/fact", "ours ms/fact (1 per call)", "ours ms/fact (batched)",
                     "Graphiti/ours (1 per call)", "Graphiti/ours (batched)", "Graphiti read p95 ms",
                     "ours read p95 ms", "Graphiti exact", "Graphiti exact (client date filter)", "ours exact"), rows)
    notes = [f"- {n}: {note}" for n, p in found.items() for note in p.get("notes", [])]
    return [*lines, "", *notes, ""]


def _temporal(backends: Mapping[str, Any]) -> list[str]:
    found = {n: f["temporal_kg"] for n, f in backends.items() if f.get("temporal_kg")}
    if not found:
        return []
    lines = ["## Real temporal data (benchmarks/temporal_kg.py)", ""]
    rows: list[tuple[Any, ...]] = []
    for name, sets in found.items():
        for dataset, result in sets.items():
            if "error" in result:
                rows.append((name, dataset, None, None, None, result["error"][:120]))
                continue
            rows.append((name, dataset, result.get("loaded"), result.get("questions"), result.get("share_exact"),
                         result.get("facts_per_second") or result.get("load_facts_per_second")))
    lines += _table(("backend", "dataset", "facts loaded", "questions", "exact share", "load facts/s or error"), rows)
    return [*lines, ""]


def plots(results: Mapping[str, Any], stem: Path) -> list[Path]:
    """Latency vs store size, and write throughput bars; none if matplotlib is missing."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return []
    written: list[Path] = []
    backends = {n: f for n, f in results["backends"].items() if f.get("checkpoints")}
    if not backends:
        return written
    figure, axes = plt.subplots(1, len(backends), figsize=(6 * len(backends), 4.2), squeeze=False)
    for axis, (name, found) in zip(axes[0], backends.items(), strict=True):
        sizes = [c["size"] for c in found["checkpoints"]]
        curves: list[tuple[str, Callable[[Mapping[str, Any]], Any], str]] = [
            ("facts() ours p95", lambda c: c["read"]["ours"]["p95_ms"], "o-"),
            ("facts() ours p50", lambda c: c["read"]["ours"]["median_ms"], "o--"),
            ("raw read p95", lambda c: c["read"]["raw"]["p95_ms"], "s-"),
            ("raw read p50", lambda c: c["read"]["raw"]["median_ms"], "s--"),
            ("2-hop neighbourhood p95", lambda c: c["neighbourhood_2hop"]["p95_ms"], "^-"),
        ]
        for label, pick, style in curves:
            axis.plot(sizes, [pick(c) for c in found["checkpoints"]], style, label=label)
        axis.set_xscale("log")
        axis.set_yscale("log")
        axis.set_xlabel("facts written")
        axis.set_ylabel("latency (ms)")
        axis.set_title(f"{name}: read latency vs store size")
        axis.grid(True, which="both", alpha=0.3)
        axis.legend(fontsize=8)
    figure.tight_layout()
    path = stem.with_name(stem.name + "-latency.png")
    figure.savefig(path, dpi=110)
    plt.close(figure)
    written.append(path)

    figure, axis = plt.subplots(figsize=(7, 4.2))
    names = list(backends)
    series = [
        ("ours (Memory.upsert, batches)", [backends[n]["write_total"]["ours_facts_per_s"] for n in names]),
        ("raw UNWIND baseline", [backends[n]["write_total"]["raw_facts_per_s"] for n in names]),
    ]
    if any("graphiti" in backends[n] and "error" not in backends[n]["graphiti"] for n in names):
        series.append(("Graphiti add_triplet", [
            1000 / backends[n]["graphiti"]["graphiti_ms_per_fact"]
            if "graphiti" in backends[n] and "error" not in backends[n]["graphiti"] else 0 for n in names
        ]))
    width = 0.8 / len(series)
    for index, (label, values) in enumerate(series):
        positions = [i + index * width for i in range(len(names))]
        axis.bar(positions, values, width, label=label)
    axis.set_xticks([i + width * (len(series) - 1) / 2 for i in range(len(names))], names)
    axis.set_yscale("log")
    axis.set_ylabel("facts per second (log)")
    axis.set_title(f"write throughput, {results['size']} load")
    axis.legend(fontsize=8)
    axis.grid(True, axis="y", which="both", alpha=0.3)
    figure.tight_layout()
    path = stem.with_name(stem.name + "-throughput.png")
    figure.savefig(path, dpi=110)
    plt.close(figure)
    written.append(path)
    return written


def report_stem(results: Mapping[str, Any], out: Path) -> Path:
    """``<out>/<date>-<machine>-<size>``, with ``-<backend>`` for a run of one backend, so the runs of
    each backend on one day do not overwrite each other."""
    ran = list(results.get("ran") or [])
    alone = f"-{ran[0]}" if len(ran) == 1 else ""
    return out / f"{results['date'][:10]}-{results['machine']}-{results['size']}{alone}"


def write_reports(results: Mapping[str, Any], out: Path) -> list[Path]:
    """``<stem>.json`` + ``.md`` + PNG plots next to them (see :func:`report_stem`)."""
    out.mkdir(parents=True, exist_ok=True)
    stem = report_stem(results, out)
    json_path = stem.with_suffix(".json")
    json_path.write_text(json.dumps(results, indent=1, default=str), encoding="utf-8")
    md_path = stem.with_suffix(".md")
    md_path.write_text(markdown(results) + "\n", encoding="utf-8")
    return [json_path, md_path, *plots(results, stem)]
