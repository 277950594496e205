"""Runs every system over the same conversations, question by question side by side, and reports.

For each backend: per conversation, each system loads it (the library: a fresh store), then every question
is put to every system in turn (so the machine's load falls on all alike) and timed.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any

from benchmarks.locomo.data import Conversation, best_possible
from benchmarks.locomo.metrics import Answer, report
from benchmarks.locomo.systems import BM25, OBSERVE_TAKES_VALID_AT, RRF, Dense, Ours, System
from benchmarks.measure import library_info, machine_tag, ratio
from synapse_graph.embedders.minilm import MiniLMEmbedder

RESULTS = Path(__file__).resolve().parents[1] / "results"
BACKENDS = ("falkordb", "neo4j")
BASELINES = ("bm25", "dense", "rrf")


@dataclass
class RunConfig:
    conversations: list[Conversation]
    size: str
    backends: Sequence[str] = ("falkordb",)
    embedder: Any = None
    neo4j: tuple[str, tuple[str, str]] | None = None
    progress: bool = True
    systems: Sequence[str] = field(default_factory=lambda: ("ours", "ours+minilm", *BASELINES))


def _systems(config: RunConfig, backend: str) -> list[System]:
    embedder = config.embedder or MiniLMEmbedder()
    bm25, dense = BM25(), Dense(embedder)
    made: dict[str, System] = {
        "ours": Ours(backend, None, config.neo4j),
        "ours+minilm": Ours(backend, embedder, config.neo4j),
        "bm25": bm25, "dense": dense, "rrf": RRF(bm25, dense),
    }
    wanted = [made[name] for name in config.systems]
    # RRF reads the rankings of the BM25 and dense objects: they load even when not reported
    return wanted + [leg for leg in (bm25, dense) if "rrf" in config.systems and leg not in wanted]


def run_backend(config: RunConfig, backend: str) -> dict[str, Any]:
    systems = _systems(config, backend)
    answers: dict[str, list[Answer]] = {s.name: [] for s in systems}
    for conv in config.conversations:
        started = time.perf_counter()
        for system in systems:
            system.load(conv)
        try:
            for question in conv.questions:
                for system in systems:
                    began = time.perf_counter()
                    ranked = system.ask(question.text)
                    answers[system.name].append(Answer(conv.name, question, tuple(ranked),
                                                       time.perf_counter() - began))
        finally:
            for system in systems:
                system.close()
        if config.progress:
            print(f"  {backend} {conv.name}: {len(conv.questions)} questions, "
                  f"{time.perf_counter() - started:.1f} s", flush=True)
    found = {name: report(config.conversations, answers[name]) for name in config.systems}
    dense_p95 = found["dense"]["latency_ms"]["p95"] if "dense" in found else None  # type: ignore[index]
    for name in ("ours", "ours+minilm"):
        if name in found and dense_p95:
            found[name]["p95_over_dense"] = ratio(found[name]["latency_ms"]["p95"], dense_p95)  # type: ignore[index]
    return found


def run(config: RunConfig) -> dict[str, Any]:
    sentences = sum(len(c.sentences) for c in config.conversations)
    return {
        "benchmark": "locomo",
        "date": date.today().isoformat(),
        "machine": machine_tag(),
        "library": library_info(),
        "size": config.size,
        "data": {
            "split": "LoCoMo development split (read from a path; not in this repository)",
            "conversations": [c.name for c in config.conversations],
            "sentences": sentences,
            "questions": sum(len(c.questions) for c in config.conversations),
            "best_possible_recall": round(best_possible(config.conversations), 4),
            "observations_dated": OBSERVE_TAKES_VALID_AT,
        },
        "backends": {backend: run_backend(config, backend) for backend in config.backends},
    }


def markdown(results: dict[str, Any]) -> str:
    """The results as tables: overall, per category (recall@10) and latency, per backend."""
    data = results["data"]
    lines = [f"LoCoMo ({results['size']}: {len(data['conversations'])} conversations, {data['sentences']} sentences, "
             f"{data['questions']} questions; best possible recall {data['best_possible_recall']:.3f})", ""]
    for backend, systems in results["backends"].items():
        categories = list(next(iter(systems.values()))["categories"])
        lines += [f"### {backend}", "",
                  "| system | R@5 | R@10 | R@20 | full@10 | " + " | ".join(f"R@10 {c}" for c in categories)
                  + " | R@10 per conversation | p50 ms | p95 ms |",
                  "|---" * (8 + len(categories)) + "|"]
        for name, found in systems.items():
            overall, lat = found["overall"], found["latency_ms"]
            spread = found["recall@10_spread"]
            lines.append(
                f"| {name} | {overall['recall@5']:.3f} | {overall['recall@10']:.3f} | {overall['recall@20']:.3f} | "
                f"{overall['full_hit@10']:.3f} | "
                + " | ".join(f"{found['categories'][c]['recall@10']:.3f}" for c in categories)
                + f" | {spread['min']:.3f}-{spread['max']:.3f} | {lat['p50']:.1f} | {lat['p95']:.1f} |")
        lines.append("")
    return "\n".join(lines)


def write(results: dict[str, Any], out: Path | None) -> Path:
    backends = "-".join(results["backends"])
    path = out or RESULTS / f"{results['date']}-{results['machine']}-locomo-{results['size']}-{backends}.json"
    path.write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")
    return path
