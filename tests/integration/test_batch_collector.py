"""A batch write keeps Python's cyclic garbage collector out of its way (issue 34).

A batch of 1,000 facts makes tens of thousands of short-lived objects that reference counting frees; the
collector, triggered by the allocation count, ran ~40 times per batch and walked the process's long-lived
objects each time: a quarter of the batch's Python time at 20k facts. The write holds it off while it runs
and lets it run again after, as it was."""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from synapse_graph import Memory, Triple


def _facts(start: int, count: int) -> list[Triple]:
    day = datetime(2020, 1, 1, tzinfo=UTC)
    return [Triple(subject=f"person {i % 300}", predicate=("KNOWS", "WORKS_AT", "LIVES_IN")[i % 3],
                   object=f"thing {i}", valid_at=day + timedelta(hours=i)) for i in range(start, start + count)]


@pytest.fixture
def collections() -> Iterator[list[int]]:
    """Generations of the collections run while the fixture is active."""
    seen: list[int] = []

    def count(phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            seen.append(int(info["generation"]))

    gc.callbacks.append(count)
    yield seen
    gc.callbacks.remove(count)


def test_a_batch_write_runs_without_the_cyclic_collector(make_memory: Callable[..., Memory],
                                                          collections: list[int]) -> None:
    memory = make_memory()
    for start in range(0, 2_000, 1_000):  # a populated store
        memory.upsert(_facts(start, 1_000))
    batch = _facts(2_000, 1_000)
    assert gc.isenabled()
    collections.clear()
    result = memory.upsert(batch)
    assert result.created == 1_000
    # Before: 35-40 collections for this batch. A few may run around the write (taking the lock, the result).
    assert len(collections) <= 4, collections
    assert gc.isenabled()  # running again after the write


def test_a_collector_turned_off_by_the_caller_stays_off(make_memory: Callable[..., Memory]) -> None:
    memory = make_memory()
    gc.disable()
    try:
        memory.upsert(_facts(0, 50))
        assert not gc.isenabled()
    finally:
        gc.enable()
    memory.upsert(_facts(50, 50))
    assert gc.isenabled()


def test_a_read_runs_without_the_cyclic_collector(make_memory: Callable[..., Memory],
                                                  collections: list[int]) -> None:
    """Reads make short-lived objects too: a recall or a wide listing no longer sets off collections that walk
    the process's long-lived objects (an inspector holding a 100k scope's duplicate scan paused ~200 ms on
    one recall in ten for a whole-heap pass)."""
    memory = make_memory()
    for start in range(0, 3_000, 1_000):
        memory.upsert(_facts(start, 1_000))
    assert gc.isenabled()
    collections.clear()
    found = memory.recall("person thing", limit=100)
    listed = memory.facts(predicate="KNOWS", limit=1_000)
    assert len(found.facts) > 0 and len(listed) == 1_000
    assert len(collections) <= 4, collections
    assert gc.isenabled()
