"""The evaluation through a store: proposals as ``Memory.duplicates`` makes them, write-time warnings, and the
time to propose over a scope of 10k and 100k entities, on FalkorDB and Neo4j."""

from __future__ import annotations

import contextlib
import random
import time
import uuid
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from benchmarks.duplicates.dataset import LabelledSet, base_name
from benchmarks.duplicates.evaluate import Scores, judge
from benchmarks.temporal_kg import DatedFact, name_key
from synapse_graph import Memory, Triple
from synapse_graph.engine import duplicates as store_duplicates
from synapse_graph.rules.duplicates import Proposal

BATCH = 1_000


def location(backend: str) -> tuple[str, dict[str, Any]]:
    """Where a fresh scope of the run lives: a file of its own (embedded FalkorDB) or the Neo4j server."""
    if backend == "falkordb":
        import tempfile

        return f"{tempfile.mkdtemp(prefix='dupes-')}/memory.db", {}
    from benchmarks.targets import neo4j_settings

    url, auth = neo4j_settings()
    return url, {"auth": auth}


@contextmanager
def scope(backend: str, single_valued: Iterable[str], entities: int) -> Iterator[Memory]:
    """A fresh scope with room for the run's entities (dropped after, on Neo4j)."""
    where, options = location(backend)
    memory = Memory(where, scope=f"dupes-{uuid.uuid4().hex[:10]}", max_entities=entities * 2 + 1_000,
                    max_facts=entities * 6 + 10_000, single_valued=list(single_valued), **options)
    try:
        yield memory
    finally:
        if backend == "neo4j":
            memory.purge(scope=memory.scope)
        memory.close()


def triples(labelled: LabelledSet, facts: Iterable[DatedFact]) -> list[Triple]:
    types = {m.key: m.type for m in labelled.mentions}
    return [Triple(subject=f.subject, predicate=f.predicate, object=f.object, valid_at=f.valid_at,
                   invalid_at=f.invalid_at, subject_type=types.get(name_key(f.subject)),
                   object_type=types.get(name_key(f.object))) for f in facts]


def load(memory: Memory, written: list[Triple]) -> float:
    started = time.perf_counter()
    single_valued = memory.rules().single_valued
    for i in range(0, len(written), BATCH):
        memory.upsert(one_value_each(written[i:i + BATCH], single_valued))
    return time.perf_counter() - started


def one_value_each(batch: list[Triple], single_valued: Iterable[str]) -> list[Triple]:
    """The batch without the earlier of two values of a single-valued predicate an entity gets from one instant
    (the data sets have a few: two employers from one date). A write refuses such a batch whole; the store kept
    the later value before it did, and these benchmarks keep measuring that store."""
    one = set(single_valued)
    last = {(name_key(t.subject), t.predicate, str(t.valid_at)): n for n, t in enumerate(batch) if t.predicate in one}
    return [t for n, t in enumerate(batch)
            if t.predicate not in one or last[(name_key(t.subject), t.predicate, str(t.valid_at))] == n]


def as_rules(found: Iterable[Any]) -> list[Proposal]:
    """The store's proposals as the pure rules' (for :func:`~.evaluate.judge`)."""
    return [Proposal(p.canonical_key, p.other_key, p.canonical, p.other, p.score, ()) for p in found]


def proposals(backend: str, labelled: LabelledSet) -> dict[str, Any]:
    """Load the whole labelled set, then ``duplicates()``: precision, recall and time."""
    with scope(backend, labelled.single_valued, len(labelled.mentions)) as memory:
        loading = load(memory, triples(labelled, labelled.facts))
        started = time.perf_counter()
        found = memory.duplicates(limit=10**6)
        seconds = time.perf_counter() - started
        scores = judge(labelled, as_rules(found), seconds)
        return {"backend": backend, "entities": memory.stats().entities, "load_s": round(loading, 1),
                **summary(scores)}


def summary(scores: Scores) -> dict[str, Any]:
    return {"proposals": scores.proposals, "true": scores.true, "gold": scores.gold,
            "precision": round(scores.precision, 4), "recall": round(scores.recall, 4),
            "propose_s": round(scores.seconds, 2), "missed_by_kind": dict(scores.missed_by_kind),
            "gold_by_kind": dict(scores.gold_by_kind), "false_by_kind": dict(scores.false_by_kind)}


@dataclass
class Warned:
    writes: int = 0
    warned_pairs: int = 0
    true_pairs: int = 0
    entities_with_partner: int = 0
    entities_warned_right: int = 0
    seconds: float = 0.0


def warnings(backend: str, labelled: LabelledSet, *, check: bool = True) -> dict[str, Any]:
    """Load everything but the ``later`` entities, then write each of those with its facts in one upsert, as an
    agent would: precision of the warnings (pairs warned that are one entity) and how many entities that had a
    partner were warned about it. ``check=False``: the same writes with the check off (its cost)."""
    later = set(labelled.later)
    gold = labelled.gold()
    facts_of: dict[str, list[DatedFact]] = {}
    base: list[DatedFact] = []
    for f in labelled.facts:
        s, o = name_key(f.subject), name_key(f.object)
        owner = s if s in later else o if o in later else None
        (facts_of.setdefault(owner, []) if owner else base).append(f)
    order = [k for k in labelled.later if k in facts_of]
    random.Random(7).shuffle(order)
    out = Warned()
    saved = store_duplicates.WARN_AT_MOST
    store_duplicates.WARN_AT_MOST = saved if check else 0
    try:
        with scope(backend, labelled.single_valued, len(labelled.mentions)) as memory:
            load(memory, triples(labelled, base))
            written: set[str] = {name_key(f.subject) for f in base} | {name_key(f.object) for f in base}
            for key in order:
                partners = {b if a == key else a for a, b in gold if key in (a, b)} & written
                started = time.perf_counter()
                result = memory.upsert(triples(labelled, facts_of[key]))
                out.seconds += time.perf_counter() - started
                out.writes += 1
                pairs = {tuple(sorted((p.canonical_key, p.other_key))) for p in result.possible_duplicates}
                out.warned_pairs += len(pairs)
                out.true_pairs += len(pairs & gold)
                out.entities_with_partner += bool(partners)
                out.entities_warned_right += bool(partners and pairs & gold)
                written |= {name_key(f.subject) for f in facts_of[key]} | {name_key(f.object) for f in facts_of[key]}
    finally:
        store_duplicates.WARN_AT_MOST = saved
    return {"backend": backend, "check": check, "writes": out.writes, "warned_pairs": out.warned_pairs,
            "precision": round(out.true_pairs / out.warned_pairs, 4) if out.warned_pairs else None,
            "entities_with_partner": out.entities_with_partner, "warned_right": out.entities_warned_right,
            "mean_write_ms": round(1000 * out.seconds / max(1, out.writes), 2)}


def synthetic(labelled: list[LabelledSet], size: int, seed: int = 1) -> tuple[list[Triple], int]:
    """A scope of ``size`` entities: the labelled sets' facts, then people made of their people's given and
    family names (seeded), each working somewhere and living somewhere the data sets name."""
    rng = random.Random(seed)
    written = [t for ls in labelled for t in triples(ls, ls.facts)]
    names = {m.key for ls in labelled for m in ls.mentions}
    people = [base_name(m.name).split() for ls in labelled for m in ls.mentions
              if m.type == "person" and len(base_name(m.name).split()) >= 2]
    given = sorted({p[0] for p in people})
    family = sorted({p[-1] for p in people})
    places = sorted({m.name for ls in labelled for m in ls.mentions if m.type == "place"})
    orgs = sorted({m.name for ls in labelled for m in ls.mentions if m.type == "organisation"})
    start = datetime(1990, 1, 1, tzinfo=UTC)
    while len(names) < size:
        name = f"{rng.choice(given)} {rng.choice(family)}"
        if name_key(name) in names:
            continue
        names.add(name_key(name))
        since = start + timedelta(days=rng.randrange(0, 12_000))
        written.append(Triple(subject=name, predicate="WORKS_AT", object=rng.choice(orgs), valid_at=since,
                              subject_type="person"))
        written.append(Triple(subject=name, predicate="LIVES_IN", object=rng.choice(places), valid_at=since))
    return written, len(names)


def timing(backend: str, written: list[Triple], entities: int, repeat: int = 3) -> dict[str, Any]:
    """Load a scope and time ``duplicates()`` over it (best and median of ``repeat``)."""
    with scope(backend, (), entities) as memory:
        loading = load(memory, written)
        times, cpu = [], []
        count = 0
        options = {} if backend == "falkordb" else location(backend)[1]  # the same store, not a new file
        for _ in range(repeat):
            # A memory keeps its latest walk of the scope (engine/duplicate_scans.py): a fresh one walks it again.
            with contextlib.closing(Memory(memory.location, scope=memory.scope, **options)) as fresh:
                started, used = time.perf_counter(), time.process_time()
                count = len(fresh.duplicates(limit=10**6))
                times.append(time.perf_counter() - started)
                cpu.append(time.process_time() - used)
        times.sort()
        return {"backend": backend, "entities": memory.stats().entities, "load_s": round(loading, 1),
                "propose_best_s": round(times[0], 2), "propose_median_s": round(times[len(times) // 2], 2),
                "propose_python_cpu_best_s": round(min(cpu), 2), "proposals": count}
