"""Runs the golden recall cases on a backend and measures quality and latency.

Configurations: ``lexical`` (fulltext leg only) and ``lexical+vector`` (with the local
MiniLM embedder, when the ``vector`` extra and its model files are installed).

Metrics, per configuration and backend (a case's returned list is ``Recall.facts`` in
order, compared as (subject, predicate, object) triples of canonical names):

- ``recall@k``: share of the case's ``must`` facts found in the top k, averaged over cases;
  k = 8 and k = the full limit (25).
- ``precision@k``: share of the returned top-k facts that are *relevant*, averaged over
  cases; relevant = the case's ``must`` facts plus its ``relevant`` list (acceptable
  extra answers). A case that returns nothing scores 0. Single-answer cases cap it at
  1/k when k facts come back, so it is a measure of noise, not a score out of 1.
- ``MRR``: mean of 1 / rank of the first ``must`` fact (0 when none is returned).
- ``stale rate``: returned facts that are not valid at the case's ``as_of``, over all
  returned facts. Checked independently of recall: every returned fact id is looked up in
  the store's own history (``Memory.facts(include_history=True)``) and its interval
  tested with ``Fact.holds_at(as_of)``; an id missing from the history (an expired
  record) counts as stale too.
- ``forbidden@8``: share of the ``must_not`` facts (stale values and distractors) that
  appear in the top 8; ``forbidden_first``: share of them ranked above the case's first
  ``must`` fact (a distractor outranking the answer).
- latency: wall time of each ``Memory.recall`` call, median and p95, in milliseconds.

Then the same cases on a 10k-fact store (the golden memory plus seeded filler facts) for
latency (quality there is printed for information only).

Run: ``python -m benchmarks.recall_eval [--backend falkordb|neo4j|all] [--vector]``.
Results go to ``benchmarks/results/recall_eval-<date>.json``.
"""

from __future__ import annotations

import argparse
import json
import logging
import random
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

from benchmarks.recall_eval.golden import (
    ALIASES,
    CASES,
    FACTS,
    SINGLE_VALUED,
    TYPES,
    Case,
    GoldenFact,
    Triple3,
    check,
)
from benchmarks.targets import neo4j_settings
from synapse_graph import Memory, Triple
from synapse_graph.embedding import Embedder

REPO_ROOT = Path(__file__).resolve().parents[2]
RESULTS_DIR = REPO_ROOT / "benchmarks" / "results"
LIMIT = 25
TOP = 8
BIG_STORE_FACTS = 10_000
FILLER_SEED = 20_261_129
BACKENDS = ("falkordb", "neo4j")


# -- the embedder -------------------------------------------------------------------------------

def minilm() -> tuple[Embedder | None, str | None]:
    """The local MiniLM embedder, or None and why it is not available."""
    try:
        from synapse_graph.embedders.minilm import MiniLMEmbedder
    except ImportError as exc:
        return None, f"MiniLMEmbedder does not import: {exc}"
    try:
        embedder = MiniLMEmbedder()
        embedder.embed(["warm up"])
    except Exception as exc:  # any failure means "no vector leg here"
        return None, f"MiniLMEmbedder is not usable: {exc}"
    return embedder, None


# -- loading ------------------------------------------------------------------------------------

def open_memory(location: str, auth: tuple[str, str] | None, scope: str, embedder: Embedder | None = None) -> Memory:
    memory = Memory(location, scope=scope, auth=auth, embedder=embedder, max_facts=100_000, max_entities=50_000)
    memory.set_rules(single_valued=memory.rules().single_valued | {*SINGLE_VALUED})
    return memory


def _triple(fact: GoldenFact) -> Triple:
    return Triple(subject=fact.subject, predicate=fact.predicate, object=fact.object, valid_at=fact.valid_at,
                  invalid_at=fact.invalid_at, subject_type=TYPES.get(fact.subject), object_type=TYPES.get(fact.object))


def load_golden(memory: Memory) -> None:
    """Writes the golden facts in valid-time order (one transaction per date), then the aliases."""
    check()
    by_date: dict[str, list[GoldenFact]] = {}
    for fact in FACTS:
        by_date.setdefault(fact.valid_at, []).append(fact)
    for when in sorted(by_date):
        memory.upsert([_triple(f) for f in by_date[when]], source="recall eval golden set")
    for canonical, alias in ALIASES:
        memory.alias(canonical, alias)


_FIRST = ("Ada Bjorn Cato Delia Emil Fleur Goran Hilde Ilse Jarek Kasia Leif Milo Nell Otto Pia Quinn Rhea Stig "
          "Tove Ugo Vera Wim Xenia Yann Zara Arvid Bodil Cosmo Dagny").split()
_LAST = ("Aalto Brandt Castell Dahl Eskola Falk Grahn Hjort Iversen Juhl Kask Lund Moberg Nygaard Ostby Palm "
         "Quist Ruud Sand Tamm Udd Vik Wahl Ylva Zorn").split()
_WORDS = ("inventory cart pricing catalog shipping tax coupon session profile avatar upload thumbnail export audit "
          "quota webhook schedule tenant invite onboarding").split()
_KINDS = ("Sync Worker Api Cache Exporter Gateway Importer Scheduler").split()
_PREDICATES = ("WORKS_ON", "USES", "KNOWS", "REVIEWED", "MENTORS", "ATTENDED", "DEPENDS_ON", "CALLS", "EMITS", "READS")


def _service_name(rng: random.Random, word: str, kind: str, n: int) -> str:
    style = rng.randrange(4)
    if style == 0:
        return f"{word}{kind}{n}"
    if style == 1:
        return f"{word}_{kind.lower()}_{n}"
    if style == 2:
        return f"{word}-{kind.lower()}-{n}"
    return f"{word}.{kind.lower()}{n}"


def filler_triples(count: int, seed: int = FILLER_SEED) -> list[Triple]:
    """Seeded filler: people and services of their own, a few pointing at golden places and tools."""
    rng = random.Random(seed)
    people = [f"{f} {last}" for f in _FIRST for last in _LAST]
    rng.shuffle(people)
    services = [_service_name(rng, w, k, n) for n in range(1, 4) for w in _WORDS for k in _KINDS]
    meetings = [f"{w} review {n}" for w in _WORDS for n in range(1, 11)]
    shared = ["Berlin", "Lisbon", "Toronto", "Postgres", "Kafka", "Redis", "Kubernetes", "Python", "Go"]
    triples: list[Triple] = []
    seen: set[tuple[str, str, str]] = set()
    homes = iter(people)
    while len(triples) < count:
        roll = rng.random()
        when = f"{rng.randint(2015, 2025)}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"
        if roll < 0.08:
            person = next(homes, None)
            if person is None:
                continue
            home = rng.choice([*shared[:3], "Oslo", "Helsinki", "Tallinn"])
            s, p, o, st, ot = person, "LIVES_IN", home, "person", "city"
        elif roll < 0.45:
            s, p, o = rng.choice(people), rng.choice(_PREDICATES[:6]), rng.choice(services + meetings + people)
            st, ot = "person", None
        elif roll < 0.9:
            s, p, o = rng.choice(services), rng.choice(_PREDICATES[6:]), rng.choice(services)
            st, ot = "service", "service"
        else:
            s, p, o = rng.choice(services), rng.choice(("USES", "WRITTEN_WITH")), rng.choice(shared[3:])
            st, ot = "service", None
        if s == o or (s, p, o) in seen:
            continue
        seen.add((s, p, o))
        triples.append(Triple(subject=s, predicate=p, object=o, valid_at=when, subject_type=st, object_type=ot))
    return triples


def add_filler(memory: Memory, total_facts: int = BIG_STORE_FACTS, batch: int = 500) -> int:
    """Tops the scope up with filler facts until it holds ``total_facts`` believed records."""
    have = memory.stats().facts
    triples = filler_triples(max(0, total_facts - have) + 200)
    written = 0
    for start in range(0, len(triples), batch):
        if have >= total_facts:
            break
        chunk = triples[start : start + min(batch, total_facts - have)]
        result = memory.upsert(chunk, source="recall eval filler")
        have += result.created
        written += result.created
    return written


# -- running and scoring ------------------------------------------------------------------------

@dataclass
class CaseResult:
    case: Case
    as_of: datetime
    returned: list[Triple3]
    stale: list[Triple3]
    entities: list[str]
    seconds: float
    skipped: str | None = None


def _history(memory: Memory) -> dict[str, Any]:
    return {fact.id: fact for fact in memory.facts(include_history=True)}


def run_cases(memory: Memory, cases: Sequence[Case] = CASES, *, limit: int = LIMIT) -> list[CaseResult]:
    """Asks every case once (after one warm-up question) and checks each returned fact's validity."""
    history = _history(memory)
    memory.recall("warm up the connection and caches", limit=limit)
    results: list[CaseResult] = []
    for case in cases:
        started = time.perf_counter()
        answer = memory.recall(case.question, as_of=case.as_of, hops=case.hops, limit=limit)
        seconds = time.perf_counter() - started
        stale = [
            (f.subject, f.predicate, f.object) for f in answer.facts
            if f.id not in history or not history[f.id].holds_at(answer.as_of)
        ]
        results.append(CaseResult(
            case=case, as_of=answer.as_of, returned=[(f.subject, f.predicate, f.object) for f in answer.facts],
            stale=stale, entities=[e.name for e in answer.entities], seconds=seconds, skipped=answer.skipped,
        ))
    return results


def _percentile(values: Sequence[float], share: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return 0.0
    index = min(len(ordered) - 1, max(0, round(share * len(ordered) + 0.5) - 1))
    return ordered[index]


def case_scores(result: CaseResult, top: int = TOP, limit: int = LIMIT) -> dict[str, float]:
    case, returned = result.case, result.returned
    must = set(case.must)
    relevant = case.relevant_set
    scores: dict[str, float] = {}
    for k in (top, limit):
        head = returned[:k]
        scores[f"recall@{k}"] = len(must & set(head)) / len(must)
        scores[f"precision@{k}"] = sum(1 for f in head if f in relevant) / len(head) if head else 0.0
    first = next((rank for rank, f in enumerate(returned, start=1) if f in must), None)
    scores["rr"] = 0.0 if first is None else 1.0 / first
    scores["forbidden@8"] = float(sum(1 for f in case.must_not if f in returned[:top]))
    answer = first if first is not None else len(returned) + 1
    scores["forbidden_first"] = float(sum(1 for f in case.must_not if f in returned[: answer - 1]))
    return scores


def summarise(results: Sequence[CaseResult], top: int = TOP, limit: int = LIMIT) -> dict[str, Any]:
    """The figures of one configuration on one backend (see the module docstring for definitions)."""
    per_case = [case_scores(r, top, limit) for r in results]
    n = len(results)
    returned = sum(len(r.returned) for r in results)
    stale = sum(len(r.stale) for r in results)
    forbidden_total = sum(len(r.case.must_not) for r in results)
    millis = [r.seconds * 1000 for r in results]
    tags = sorted({tag for r in results for tag in r.case.tags})
    by_tag = {
        tag: round(statistics.fmean(s[f"recall@{top}"] for r, s in zip(results, per_case, strict=True)
                                    if tag in r.case.tags), 4)
        for tag in tags
    }
    return {
        "cases": n,
        f"recall@{top}": round(statistics.fmean(s[f"recall@{top}"] for s in per_case), 4),
        f"recall@{limit}": round(statistics.fmean(s[f"recall@{limit}"] for s in per_case), 4),
        f"precision@{top}": round(statistics.fmean(s[f"precision@{top}"] for s in per_case), 4),
        f"precision@{limit}": round(statistics.fmean(s[f"precision@{limit}"] for s in per_case), 4),
        "mrr": round(statistics.fmean(s["rr"] for s in per_case), 4),
        "returned_facts": returned,
        "stale_facts": stale,
        "stale_rate": round(stale / returned, 6) if returned else 0.0,
        "forbidden@8": round(sum(s["forbidden@8"] for s in per_case) / forbidden_total, 4) if forbidden_total else 0.0,
        "forbidden_first": (round(sum(s["forbidden_first"] for s in per_case) / forbidden_total, 4)
                            if forbidden_total else 0.0),
        "latency_ms_median": round(statistics.median(millis), 2),
        "latency_ms_p95": round(_percentile(millis, 0.95), 2),
        "recall@8_by_tag": by_tag,
        "misses": [
            {"case": r.case.id, "missing": [list(f) for f in r.case.must if f not in r.returned[:top]],
             "rank": {" | ".join(f): (r.returned.index(f) + 1 if f in r.returned else None) for f in r.case.must},
             "entities": r.entities}
            for r in results if any(f not in r.returned[:top] for f in r.case.must)
        ],
        "stale": [{"case": r.case.id, "facts": [list(f) for f in r.stale]} for r in results if r.stale],
    }


def rankings(results: Iterable[CaseResult]) -> dict[str, list[Triple3]]:
    return {r.case.id: r.returned for r in results}


# -- one backend --------------------------------------------------------------------------------

@contextmanager
def _scope(location: str, auth: tuple[str, str] | None, embedder: Embedder | None, prefix: str) -> Iterator[str]:
    """A fresh scope, purged afterwards (the vector index is shared by all scopes of a database)."""
    scope = f"{prefix}-{uuid.uuid4().hex[:10]}"
    try:
        yield scope
    finally:
        with open_memory(location, auth, scope, embedder) as memory:
            memory.purge(scope=scope)


def evaluate(location: str, auth: tuple[str, str] | None = None, *, embedder: Embedder | None = None,
             big: bool = True, cases: Sequence[Case] = CASES, log: Callable[[str], None] | None = None,
             ) -> dict[str, Any]:
    """Every configuration on one backend: the golden store, then (``big``) the 10k-fact store."""
    say = log or (lambda _message: None)
    report: dict[str, Any] = {"configurations": {}, "big_store": {}}
    configurations: list[tuple[str, Embedder | None]] = [("lexical", None)]
    if embedder is not None:
        configurations.append(("lexical+vector", embedder))
    stores: list[tuple[str, bool]] = [("golden", False)] + ([("10k", True)] if big else [])
    for store, with_filler in stores:
        with _scope(location, auth, embedder, "recall-eval") as scope:
            started = time.perf_counter()
            with open_memory(location, auth, scope) as loader:
                load_golden(loader)
                if with_filler:
                    add_filler(loader)
                stats = loader.stats()
            if embedder is not None:  # one batched backfill instead of an embedding call per write
                with open_memory(location, auth, scope, embedder) as indexer:
                    indexer.reindex_embeddings()
            load_seconds = time.perf_counter() - started
            say(f"{store} store: {stats.facts} facts, {stats.entities} entities, loaded in {load_seconds:.1f} s")
            for name, config_embedder in configurations:
                with open_memory(location, auth, scope, config_embedder) as memory:
                    results = run_cases(memory, cases)
                summary = summarise(results)
                summary.update(store_facts=stats.facts, store_entities=stats.entities,
                               load_seconds=round(load_seconds, 2))
                if store == "golden":
                    summary["rankings"] = {k: [list(f) for f in v] for k, v in rankings(results).items()}
                    report["configurations"][name] = summary
                else:
                    report["big_store"][name] = summary
                say(f"{store} store, {name}: recall@8 {summary['recall@8']}, MRR {summary['mrr']}, "
                    f"stale {summary['stale_facts']}, median {summary['latency_ms_median']} ms")
    return report


# -- the CLI ------------------------------------------------------------------------------------

def format_table(results: Mapping[str, Mapping[str, Any]]) -> str:
    """One line per backend, store and configuration."""
    header = ("backend", "store", "config", "facts", "recall@8", "recall@25", "prec@8", "MRR", "stale",
              "forbid@8", "forbid<ans", "p50 ms", "p95 ms")
    rows: list[tuple[str, ...]] = []
    for backend, report in results.items():
        for store, key in (("golden", "configurations"), ("10k", "big_store")):
            for config, s in report.get(key, {}).items():
                rows.append((backend, store, config, str(s["store_facts"]), f"{s['recall@8']:.3f}",
                             f"{s['recall@25']:.3f}", f"{s['precision@8']:.3f}", f"{s['mrr']:.3f}",
                             f"{s['stale_rate']:.3f}", f"{s['forbidden@8']:.3f}", f"{s['forbidden_first']:.3f}",
                             f"{s['latency_ms_median']:.1f}",
                             f"{s['latency_ms_p95']:.1f}"))
    widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(header)]
    lines = ["  ".join(h.ljust(w) for h, w in zip(header, widths, strict=True))]
    lines += ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)) for r in rows]
    return "\n".join(lines)


def format_details(results: Mapping[str, Mapping[str, Any]]) -> str:
    """Recall@8 by tag and the cases that missed a must fact in the top 8 (golden store)."""
    lines: list[str] = []
    for backend, report in results.items():
        for config, s in report.get("configurations", {}).items():
            tags = ", ".join(f"{tag} {value:.2f}" for tag, value in s["recall@8_by_tag"].items())
            lines.append(f"\n{backend} / {config}: recall@8 by tag: {tags}")
            for miss in s["misses"]:
                ranks = ", ".join(f"{fact} -> {rank}" for fact, rank in miss["rank"].items())
                lines.append(f"  miss {miss['case']}: {ranks}")
            for stale in s["stale"]:
                lines.append(f"  STALE {stale['case']}: {stale['facts']}")
    return "\n".join(lines)


def compare_backends(results: Mapping[str, Mapping[str, Any]]) -> dict[str, list[str]]:
    """Per configuration, the cases whose ranked triples differ between backends."""
    differing: dict[str, list[str]] = {}
    if not all(b in results for b in BACKENDS):
        return differing
    first, second = (results[b]["configurations"] for b in BACKENDS)
    for config in first.keys() & second.keys():
        a, b = first[config]["rankings"], second[config]["rankings"]
        differing[config] = sorted(case for case in a if a[case] != b.get(case))
    return differing


def _run_backend(backend: str, embedder: Embedder | None, big: bool) -> dict[str, Any]:
    def log(message: str) -> None:
        print(f"[{backend}] {message}", file=sys.stderr, flush=True)

    if backend == "neo4j":
        url, auth = neo4j_settings()
        return evaluate(url, auth, embedder=embedder, big=big, log=log)
    with tempfile.TemporaryDirectory(prefix="synapse-recall-eval-") as folder:
        return evaluate(str(Path(folder) / "eval.db"), None, embedder=embedder, big=big, log=log)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.recall_eval", description=__doc__.splitlines()[0])
    parser.add_argument("--backend", choices=["falkordb", "neo4j", "all"], default="all")
    parser.add_argument("--vector", action="store_true", help="also run lexical+vector with the MiniLM embedder")
    parser.add_argument("--no-big", action="store_true", help="skip the 10k-fact latency store")
    parser.add_argument("--out", type=Path, default=None, help="results JSON (default benchmarks/results/...)")
    args = parser.parse_args(argv)
    logging.getLogger("neo4j.notifications").setLevel(logging.ERROR)  # schema-less property warnings
    embedder: Embedder | None = None
    vector_note: str | None = None
    if args.vector:
        embedder, vector_note = minilm()
        if embedder is None:
            print(f"--vector: {vector_note}", file=sys.stderr)
            return 2
    backends = BACKENDS if args.backend == "all" else (args.backend,)
    results = {backend: _run_backend(backend, embedder, not args.no_big) for backend in backends}
    print(format_table(results))
    print(format_details(results))
    differing = compare_backends(results)
    for config, cases in differing.items():
        print(f"\nbackends {'agree on every case' if not cases else 'differ on ' + ', '.join(cases)} ({config})")
    out = args.out or RESULTS_DIR / f"recall_eval-{date.today().isoformat()}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({
        "run_at": datetime.now(UTC).isoformat(), "cases": len(CASES), "golden_facts": len(FACTS),
        "limit": LIMIT, "vector": vector_note or ("MiniLM" if embedder else "not requested"),
        "backends_differ": differing, "results": results,
    }, indent=2, default=str) + "\n", encoding="utf-8")
    print(f"\nwritten: {out}")
    return 0
