"""Recall's answer is a function of the memories stored, not of the full-text index's internal order (issue 28):
in a scope searched stem by stem (``recall/memory_lexical_each``), a stem held by more than ``recalling.POOL``
memories gives ``POOL`` of them. Writes that leave every memory as it was (a fact pinned and unpinned: the
index re-indexes it, on FalkorDB at the end of its order) and a rebuilt store (an export imported into a fresh
scope: the records keep their ids, the index takes them in another order) give the same answer, on both
backends and both APIs, whether the question's stems give their pools or are too common to give any."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from synapse_graph import Memory, Triple
from synapse_graph.engine import recalling

pytestmark = pytest.mark.integration

PLAYERS = [f"Player{i}" for i in range(20)]
QUESTION = "Who plays chess?"


def answer(memory: Memory) -> list[dict[str, Any]]:
    return [m.model_dump(exclude={"usage"}) for m in memory.recall(QUESTION, limit=10).memories]


@pytest.fixture(params=[4, 1], ids=["pooled", "left-out"])
def common(memory: Memory, monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest) -> Memory:
    """A scope searched stem by stem where each stem of the question is held by 4x ``POOL`` memories of each
    kind: 20 facts and 20 observations, a pool of 5; with ``COMMON`` 4 each stem gives its pool, with 1 the
    stems are common and give none."""
    monkeypatch.setattr(recalling, "SMALL_SCOPE", 0)  # as in a scope of 1,000 memories or more
    monkeypatch.setattr(recalling, "POOL", 5)
    monkeypatch.setattr(recalling, "COMMON", request.param, raising=False)
    memory.upsert([Triple(subject=p, predicate="PLAYS", object="chess") for p in PLAYERS])
    memory.observe("Sam", [f"Sam plays chess game {i}" for i in range(20)])
    return memory


def test_writes_that_change_no_memory_change_no_answer(common: Memory) -> None:
    before = answer(common)
    assert len(before) == 10
    for fact in common.facts(predicate="PLAYS"):  # re-indexed twice, left as it was
        common.unpin(common.pin(fact))
    assert answer(common) == before


def test_a_rebuilt_store_gives_the_same_answer(common: Memory, make_memory: Callable[..., Memory]) -> None:
    before = answer(common)
    rebuilt = make_memory()
    rebuilt.import_(list(common.export()))
    assert answer(rebuilt) == before
