"""Recall on a store whose entity names share common words ("Project Alpha 12", "project alpha api 7",
"entity 17"): a common word or a number's prefix matches thousands of names, the worst case for the
lexical leg. Deterministic; its own scope, grown to each checkpoint size, measured there.

Every question names one entity (``"What does entity 17 depend on?"``); the answer is correct when
that entity is recall's first entry entity (the name's own words score highest; ties go to the
shorter, then the smaller key, so "entity 17" beats "entity 170").
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

from benchmarks.measure import summary
from synapse_graph import Memory, Triple

GREEK = ("Alpha Beta Gamma Delta Epsilon Zeta Eta Theta Iota Kappa Lambda Mu Nu Xi Omicron Pi Rho Sigma Tau "
         "Upsilon Phi Chi Psi Omega").split()
COLOURS = "Red Green Blue Amber Violet Silver Golden Crimson".split()
PREDICATES = ("DEPENDS_ON", "OWNED_BY", "USES", "PART_OF", "WORKS_ON", "CALLS")
ASKS = ("What does {} depend on?", "who owns {}", "{} uses", "tell me about {}", "what is {} part of")
BASE = datetime(2020, 1, 1, tzinfo=UTC)
ENTITIES_PER_FACT = 0.25


def name(index: int) -> str:
    """The ``index``-th entity name: five shapes sharing words ("entity", "project", "api", Greek letters, colours)."""
    kind, n = index % 5, index // 5
    greek = GREEK[n % len(GREEK)]
    if kind == 0:
        return f"entity {index}"
    if kind == 1:
        return f"Project {greek} {n}"
    if kind == 2:
        return f"project {greek.lower()} api {n}"
    if kind == 3:
        return f"{COLOURS[n % len(COLOURS)]} service {n}"
    return f"team {greek} {n}"


def triples(start: int, stop: int, entities: int) -> list[Triple]:
    """Facts ``start``..``stop`` of the stream (the same for any store size), among the first ``entities`` names."""
    found = []
    for j in range(start, stop):
        subject = j % entities
        obj = (subject * 7_919 + j // entities + 1) % entities
        if obj == subject:
            obj = (obj + 1) % entities
        found.append(Triple(subject=name(subject), predicate=PREDICATES[j % len(PREDICATES)], object=name(obj),
                            valid_at=BASE + timedelta(seconds=j)))
    return found


def questions(entities: int, count: int, seed: int) -> list[tuple[str, str]]:
    """(question, the entity it names), spread over the store's names."""
    rng = random.Random(seed)
    picked = [rng.randrange(entities) for _ in range(count)]
    return [(ASKS[i % len(ASKS)].format(name(e)), name(e)) for i, e in enumerate(picked)]


def run(open_memory: Callable[[str, int, int], Memory], sizes: Sequence[int], *, scope: str,
        questions_per_size: int = 100, seed: int = 20_260_101, batch_size: int = 1_000) -> dict[str, Any]:
    """Grow one store to each of ``sizes`` facts and time ``Memory.recall`` there.

    ``open_memory(scope, max_facts, max_entities)`` opens the store. Returns, per size, p50/p95 (ms) and
    how many answers put the named entity first.
    """
    top = max(sizes)
    entities = max(10, int(top * ENTITIES_PER_FACT))
    memory = open_memory(scope, top * 2 + 1_000, entities + 1_000)
    points: list[dict[str, Any]] = []
    try:
        done = 0
        for size in sorted(sizes):
            # names are drawn among the first (size * ratio) so a smaller store has every name it is asked about
            live = max(10, int(size * ENTITIES_PER_FACT))
            for start in range(done, size, batch_size):
                memory.upsert(triples(start, min(size, start + batch_size), live), source="recall bench")
            done = size
            asked = questions(live, questions_per_size, seed + size)
            for question, _ in asked[:5]:
                memory.recall(question)  # warm-up: caches, JIT, the index's first touch
            took: list[float] = []
            found = 0
            misses: list[str] = []
            entries = 0
            for question, expected in asked:
                began = time.perf_counter()
                result = memory.recall(question)
                took.append(time.perf_counter() - began)
                entries += len(result.entities)
                if result.entities and result.entities[0].name == expected:
                    found += 1
                elif len(misses) < 5:
                    misses.append(f"{question!r}: {[e.name for e in result.entities[:3]]}")
            points.append({"size": size, "entities": live, **summary(took), "questions": len(asked),
                           "expected_first": found, "misses": misses, "mean_entries": entries / max(1, len(asked))})
    finally:
        memory.close()
    return {"scope": scope, "points": points}


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m benchmarks.recall_bench --backend falkordb --sizes 10000,100000``: this row alone."""
    import argparse
    import json
    import tempfile
    import uuid
    from pathlib import Path

    from benchmarks.targets import drop_scopes, open_target

    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("--backend", choices=("falkordb", "neo4j"), default="falkordb")
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--questions", type=int, default=100)
    args = parser.parse_args(argv)
    run_id = uuid.uuid4().hex[:8]
    with tempfile.TemporaryDirectory() as work, open_target(args.backend, Path(work), run_id) as target:
        scope = f"bench-recall-{run_id}"
        try:
            found = run(lambda s, f, e: Memory(target.location, scope=s, auth=target.auth, max_facts=f,
                                               max_entities=e),
                        [int(s) for s in args.sizes.split(",")], scope=scope, questions_per_size=args.questions)
        finally:
            drop_scopes(target, [scope])
    print(json.dumps(found, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
