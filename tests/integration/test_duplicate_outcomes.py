"""The proposals of a populated scope are fixed (issue 30): a slice of the labelled YAGO11k evaluation (1,297
entities, 141 proposals; benchmarks/duplicates/fixture.py wrote it) gives the same pairs, scores and evidence on
both backends and both APIs, so that a change meant to make proposals faster cannot change them silently."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from benchmarks.duplicates.store import load
from synapse_graph import Memory, Triple

pytestmark = pytest.mark.integration

FIXTURE = Path(__file__).parent / "data" / "duplicates_scope.json"


def test_a_populated_scope_proposes_the_recorded_pairs_scores_and_evidence(
    make_memory: Callable[..., Memory],
) -> None:
    recorded = json.loads(FIXTURE.read_text())
    memory = make_memory(single_valued=recorded["single_valued"], max_entities=5_000, max_facts=10_000)
    load(memory, [Triple(**t) for t in recorded["triples"]])
    assert memory.stats().entities == recorded["entities"]
    found = [p.model_dump(mode="json") for p in memory.duplicates(limit=10**6)]
    assert [(p["canonical"], p["other"], p["score"]) for p in found] == [
        (p["canonical"], p["other"], p["score"]) for p in recorded["proposals"]
    ]
    for got, wanted in zip(found, recorded["proposals"], strict=True):
        assert got == wanted
    top = memory.duplicates(limit=10)
    assert [p.score for p in top] == [p["score"] for p in recorded["proposals"][:10]]
