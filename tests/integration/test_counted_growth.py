"""``Memory.growth`` reads the scope's growth counters, which every write keeps per slice of recorded time (store
format 10; issue 31: the inspector's overview on a large store). After every kind of write (moves, candidates
approved and rejected, disputes, observations, a merge and its undoing, a retraction, a purge, an import) each
point counts exactly what the scope's own export says it held then, at and around every instant it changed;
a scope of the format before the counters is measured until it is opened for writing, then counted.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

import pytest

from synapse_graph import Memory, Triple
from synapse_graph.catalogue import Q
from synapse_graph.engine.migrations import GROWTH_FORMAT
from synapse_graph.engine.scope import STORE_FORMAT
from synapse_graph.instants import Instant
from synapse_graph.rules.timeparse import now_micros
from tests.integration.test_counted_stats import story
from tests.integration.test_overview_reads import expected_at

pytestmark = pytest.mark.integration

MICRO = timedelta(microseconds=1)


def changed_at(lines: list[dict[str, Any]]) -> list[datetime]:
    """Every instant at which the export says the scope changed."""
    found = set()
    for line in lines:
        for key in ("at", "created_at", "recorded_at", "expired_at"):
            if line.get(key) is not None and (key != "at" or line["kind"] == "audit"):
                found.add(datetime.fromisoformat(line[key].replace("Z", "+00:00")))
    return sorted(found)


def check(memory: Memory) -> None:
    """Each point of a growth read at, just before and just after every instant the scope changed, and of the
    default read, counts what the export says the scope held then."""
    lines = [json.loads(line) for line in memory.export()]
    for at in changed_at(lines):
        points = memory.growth(steps=3, since=at - MICRO, until=at + MICRO).points
        assert [p.at for p in points] == [at - MICRO, at, at + MICRO]
        for point in points:
            assert point.model_dump(exclude={"at"}) == expected_at(lines, point.at), point.at
    for point in memory.growth(steps=40).points:
        assert point.model_dump(exclude={"at"}) == expected_at(lines, point.at), point.at


def test_growth_counts_what_the_export_holds_after_every_kind_of_write(memory: Memory) -> None:
    story(memory)
    memory.upsert(Triple(subject="Fay", predicate="KNOWS", object="Dana", confidence=0.3), model="extractor-model")
    [candidate] = memory.pending()
    memory.feedback(candidate, "wrong")  # out of review by feedback, in place
    check(memory)
    last = memory.growth().points[-1]
    stats = memory.stats()
    assert (last.facts, last.candidates, last.entities, last.observations) == (
        stats.facts, stats.candidates, stats.entities, stats.observations)


def test_an_import_counts_the_growth_of_what_it_brings(make_memory: Callable[..., Memory]) -> None:
    source = make_memory()
    story(source)
    copy = make_memory()
    copy.import_(list(source.export()))
    check(copy)
    copy.purge(scope=copy.scope)
    assert all(p.facts == p.entities == p.observations == 0 for p in copy.growth(steps=5, since="2000-01-01").points)


def test_a_scope_of_the_format_before_growth_counters_is_measured_then_counted_on_open(
        make_memory: Callable[..., Memory]) -> None:
    old = make_memory()
    story(old)
    expected = old.growth(steps=30)
    old.backend.write(Q.RECOUNT_SCOPE, {"scope": old.scope, "format": GROWTH_FORMAT - 2, "candidate": "candidate",
                                        "now": Instant(now_micros())})
    old.backend.write(Q.DROP_GROWTH, {"scope": old.scope})  # as a scope written before the counters has none
    assert old.growth(steps=30, since=expected.since, until=expected.until) == expected  # measured

    upgraded = make_memory(scope=old.scope)
    assert upgraded.backend.read(Q.SCOPE_STATE, {"scope": old.scope})[0]["state"]["format"] == STORE_FORMAT
    assert upgraded.growth(steps=30, since=expected.since, until=expected.until) == expected  # counted
    upgraded.observe("Dana", ["Rides a bike"])
    check(upgraded)
