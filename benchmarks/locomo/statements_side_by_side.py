"""Recall's statements old against new, side by side on LoCoMo: the same stores, the questions interleaved.

``python -m benchmarks.locomo.statements_side_by_side --old-cypher DIR [--backend falkordb|neo4j] [--out FILE]``

``DIR`` holds the old version's ``cypher/`` tree (``git archive <commit> cypher | tar -x -C DIR``). Each
conversation is stored once with MiniLM and once without an embedder; every question is put to dense MiniLM and
to recall with the old statements and with the new ones (both with MiniLM, then both without), in an order that
rotates question by question, so the machine's load falls on all alike. Reports p50/p95 of each, the ratio to
dense, recall@5/10/20, and how many questions got the same answer (memories, ranks, relevances, scores, legs).
Only the statement texts differ between old and new (the Python is this tree's).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
import time
from collections.abc import Callable, Sequence
from datetime import date
from pathlib import Path
from typing import Any

from benchmarks.locomo.data import data_dir, load
from benchmarks.locomo.metrics import Answer, report
from benchmarks.locomo.systems import Dense, Ours
from benchmarks.measure import library_info, machine_tag, ratio
from synapse_graph import catalogue
from synapse_graph.backends import falkordb, falkordb_wire, neo4j
from synapse_graph.embedders.minilm import MiniLMEmbedder

RESULTS = Path(__file__).resolve().parents[1] / "results"


def _texts(root: Path | None) -> dict[tuple[str, str], str]:
    """Every statement of both dialects as the cypher tree at ``root`` says it (None: this tree's)."""
    original = catalogue.cypher_root
    if root is not None:
        catalogue.cypher_root = lambda: root  # type: ignore[assignment,return-value]
    try:
        _clear()
        found: dict[tuple[str, str], str] = {}
        for q in catalogue.Q:
            for dialect in catalogue.DIALECTS:
                with contextlib.suppress(LookupError):  # a statement one version has and the other not
                    found[(q.value, dialect)] = catalogue.query(q, dialect)
        return found
    finally:
        catalogue.cypher_root = original  # type: ignore[assignment]
        _clear()


def _clear() -> None:
    for name in dir(catalogue):
        cached = getattr(getattr(catalogue, name), "cache_clear", None)
        if callable(cached):
            cached()


class Statements:
    """The statement texts the backends send: the old tree's or the new one's (:attr:`old`)."""

    def __init__(self, old: dict[tuple[str, str], str], new: dict[tuple[str, str], str]) -> None:
        self.texts = {True: old, False: new}
        self.old = False
        for module in (falkordb, falkordb_wire, neo4j):
            module.query = self.query  # type: ignore[attr-defined]

    def query(self, name: Any, dialect: str) -> str:
        key = (getattr(name, "value", name), dialect)
        texts = self.texts[self.old]
        return texts[key] if key in texts else self.texts[False][key]


def _said(found: Any) -> list[tuple[Any, ...]]:
    """What a recall answered, to compare old and new: every memory with its rank, scores and legs."""
    return [(getattr(o, "entity", None), getattr(o, "text", None), o.rank, o.relevance, o.score,
             tuple(o.why.legs) if o.why else ()) for o in [*found.facts, *found.observations]]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--old-cypher", type=Path, required=True, help="the old version's cypher/ tree")
    parser.add_argument("--backend", choices=["falkordb", "neo4j"], default="falkordb")
    parser.add_argument("--conversations", nargs="*", default=None, help="conversation names (default: all)")
    parser.add_argument("--no-plain", action="store_true", help="only with MiniLM (not without an embedder)")
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args(argv)

    statements = Statements(_texts(args.old_cypher), _texts(None))
    conversations = load(data_dir(None), args.conversations)
    neo4j_at = None
    if args.backend == "neo4j":
        from benchmarks.targets import neo4j_settings

        neo4j_at = neo4j_settings()
    embedder = MiniLMEmbedder()
    names = ["dense", "old+minilm", "new+minilm"] + ([] if args.no_plain else ["old", "new"])
    answers: dict[str, list[Answer]] = {n: [] for n in names}
    same = {"minilm": 0, "plain": 0}
    loads: list[float] = []
    turn = 0
    for conv in conversations:
        dense, ours = Dense(embedder), Ours(args.backend, embedder, neo4j_at)
        plain = None if args.no_plain else Ours(args.backend, None, neo4j_at)
        for system in (dense, ours, plain):
            if system is not None:
                system.load(conv)
        loads.append(os.getloadavg()[0])
        try:
            for question in conv.questions:
                said: dict[str, Any] = {}

                def ask(name: str, system: Any, old: bool | None, question: Any = question,
                        said: dict[str, Any] = said, conv: Any = conv) -> Callable[[], None]:
                    def run() -> None:
                        if old is not None:
                            statements.old = old
                        began = time.perf_counter()
                        if old is None:
                            ranked = system.ask(question.text)
                        else:
                            found = system._memory.recall(question.text, limit=20, **system._asked)
                            ranked = [system._found[(o.entity, o.text)] for o in found.observations][:20]
                            said[name] = _said(found)
                        seconds = time.perf_counter() - began
                        answers[name].append(Answer(conv.name, question, tuple(ranked), seconds))
                    return run

                calls = [ask("dense", dense, None), ask("old+minilm", ours, True), ask("new+minilm", ours, False)]
                turn += 1
                shift = turn % len(calls)
                for call in calls[shift:] + calls[:shift]:
                    call()
                same["minilm"] += said["old+minilm"] == said["new+minilm"]
                if plain is not None:
                    pair = [ask("old", plain, True), ask("new", plain, False)]
                    for call in pair if turn % 2 else pair[::-1]:
                        call()
                    same["plain"] += said["old"] == said["new"]
        finally:
            for system in (dense, ours, plain):
                if system is not None:
                    system.close()
            statements.old = False
        loads.append(os.getloadavg()[0])
        print(f"  {conv.name}: {len(conv.questions)} questions, load {loads[-1]:.1f}", flush=True)

    found = {name: report(conversations, answers[name]) for name in names}
    dense_p95 = found["dense"]["latency_ms"]["p95"]  # type: ignore[index]
    for name in names[1:]:
        found[name]["p95_over_dense"] = ratio(found[name]["latency_ms"]["p95"], dense_p95)  # type: ignore[index]
    for old, new in (("old+minilm", "new+minilm"), ("old", "new")):
        if old in found:  # per question, old's time less new's: the load falls on both alike
            gains = sorted(a.seconds - b.seconds for a, b in zip(answers[old], answers[new], strict=True))
            found[new]["paired_gain_ms"] = {  # type: ignore[index]
                "median": round(gains[len(gains) // 2] * 1e3, 3), "mean": round(sum(gains) / len(gains) * 1e3, 3),
                "new_faster": sum(g > 0 for g in gains)}
    questions = sum(len(c.questions) for c in conversations)
    results = {"benchmark": "locomo statements side by side", "date": date.today().isoformat(),
               "machine": machine_tag(), "library": library_info(), "backend": args.backend,
               "conversations": [c.name for c in conversations], "questions": questions,
               "load": {"min": min(loads), "max": max(loads)}, "same_answers": same, "systems": found}
    for name in names:
        lat, overall = found[name]["latency_ms"], found[name]["overall"]  # type: ignore[index]
        print(f"{name:12s} p50 {lat['p50']:.1f} p95 {lat['p95']:.1f} x dense "
              f"{found[name].get('p95_over_dense', 1.0)}  R@5/10/20 {overall['recall@5']:.3f} "
              f"{overall['recall@10']:.3f} {overall['recall@20']:.3f}")
    for name in ("new+minilm", "new"):
        if name in found:
            print(f"{name} paired gain over old (ms): {found[name]['paired_gain_ms']}")
    print(f"same answers of {questions}: {same}; load {min(loads):.1f}-{max(loads):.1f}")
    if args.out is not None:
        args.out.write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")
        print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
