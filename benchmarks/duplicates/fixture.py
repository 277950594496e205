"""The fixed scope of the proposals' outcome test (tests/integration/test_duplicate_outcomes.py).

    python -m benchmarks.duplicates.fixture [--out tests/integration/data/duplicates_scope.json]

A slice of the labelled YAGO11k set (seeded): every mention whose family name is one of a sample of the set's
family names, every mention standing for the same person as one of those (handles, initials), and their facts
(subjects among them). The file holds the triples and the proposals ``Memory.duplicates`` made of them when it
was written. Write it again only when the scoring is meant to change: the test fails when proposals change
otherwise (a speed-up must leave every pair, score and piece of evidence as it was).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from benchmarks.duplicates import store
from benchmarks.duplicates.dataset import DEFAULT_SEED, base_name, build
from synapse_graph import Memory, Triple

OUT = Path(__file__).resolve().parents[2] / "tests" / "integration" / "data" / "duplicates_scope.json"
FAMILIES = 240


def sliced(seed: int = DEFAULT_SEED) -> tuple[list[Triple], tuple[str, ...]]:
    """The slice's triples and its single-valued predicates."""
    labelled = build("yago11k", seed)
    family = {
        m.key: base_name(m.name).split()[-1].casefold()
        for m in labelled.mentions
        if len(base_name(m.name).split()) >= 2
    }
    counts = Counter(family.values())
    shared = sorted(f for f, n in counts.items() if n >= 2)
    chosen_families = set(random.Random(seed).sample(shared, FAMILIES))
    origins = {m.origin for m in labelled.mentions if family.get(m.key) in chosen_families}
    chosen = {m.key for m in labelled.mentions if m.origin in origins or family.get(m.key) in chosen_families}
    facts = [f for f in labelled.facts if store.name_key(f.subject) in chosen]
    return store.triples(labelled, facts), labelled.single_valued


def as_json(triple: Triple) -> dict[str, Any]:
    return triple.model_dump(
        mode="json",
        exclude_none=True,
        include={"subject", "predicate", "object", "valid_at", "invalid_at", "subject_type", "object_type"},
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)
    triples, single_valued = sliced()
    where, _ = store.location("falkordb")
    with Memory(where, scope="fixture", single_valued=list(single_valued)) as memory:
        store.load(memory, triples)
        found = memory.duplicates(limit=10**6)
        entities = memory.stats().entities
    args.out.write_text(
        json.dumps(
            {
                "single_valued": list(single_valued),
                "entities": entities,
                "triples": [as_json(t) for t in triples],
                "proposals": [p.model_dump(mode="json") for p in found],
            },
            indent=0,
            ensure_ascii=False,
        )
        + "\n"
    )
    print(json.dumps({"entities": entities, "triples": len(triples), "proposals": len(found)}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
