"""``Memory.stats`` reads the scope's counters, which every write keeps (issue 31: the inspector's overview on a
large store), and only the few records they leave to read (those whose validity starts or ends after they were
recorded, the disputed ones): after every kind of write its answer equals the same counts measured by walking
every record of the scope (``entities/stats_measured.cypher``), on both backends and both APIs; and a scope of
the store format before the counters is measured until it is opened for writing, then upgraded.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from synapse_graph import Memory, Stats, Triple
from synapse_graph.catalogue import Q
from synapse_graph.engine.migrations import COUNTED_FORMAT
from synapse_graph.engine.scope import STORE_FORMAT
from synapse_graph.instants import Instant
from synapse_graph.rules.timeparse import now_micros

pytestmark = pytest.mark.integration

EXTRACTOR = "extractor-model"


def measured(memory: Memory) -> dict[str, Any]:
    """The scope's counts, measured by walking all its records."""
    [row] = memory.backend.read(Q.STATS_MEASURED, {
        "scope": memory.scope, "now": Instant(now_micros()), "as_of": None, "believed": "believed",
        "candidate": "candidate", "disputed": "disputed"})
    return {k: row[k] or 0 for k in ("entities", "aliases", "observations", "facts", "valid_now", "expired_records",
                                     "candidates", "disputed")}


def counted(stats: Stats) -> dict[str, Any]:
    return {k: getattr(stats, k) for k in ("entities", "aliases", "observations", "facts", "valid_now",
                                          "expired_records", "candidates", "disputed")}


def check(memory: Memory, step: str) -> None:
    assert counted(memory.stats()) == measured(memory), step


def soon(days: int) -> str:
    return (datetime.now(UTC) + timedelta(days=days)).isoformat()


def story(memory: Memory) -> None:
    """Every kind of write, the counts checked after each: moves (history), facts that begin or end later than
    they were written, candidates approved and rejected, a dispute, observations, a merge and its undoing,
    a retraction, a purge."""
    memory.set_rules(single_valued=memory.rules().single_valued | {"LIVES_IN", "WORKS_AT"})
    memory.upsert(Triple(subject="Dana", predicate="LIVES_IN", object="Paris", valid_at="2020-01-01"))
    memory.upsert(Triple(subject="Dana", predicate="LIVES_IN", object="Rome", valid_at="2021-01-01"))
    check(memory, "a move")
    memory.upsert([Triple(subject="Dana", predicate="WORKS_AT", object="Acme", valid_at=soon(30)),
                   Triple(subject="Erin", predicate="VISITS", object="Oslo", valid_at="2024-01-01",
                          invalid_at=soon(30)),
                   Triple(subject="Erin", predicate="VISITED", object="Bergen", valid_at="2023-01-01",
                          invalid_at="2023-02-01")])
    check(memory, "facts beginning or ending later than written, one ended before")
    memory.upsert(Triple(subject="Dana", predicate="WORKS_AT", object="Initech", valid_at=soon(60)))
    check(memory, "a future value superseded by a later one")
    memory.upsert([Triple(subject="Dana", predicate="KNOWS", object="Erin", confidence=0.3),
                   Triple(subject="Dana", predicate="LIKES", object="Chess", confidence=0.3)], model=EXTRACTOR)
    check(memory, "candidates")
    waiting = memory.pending()
    memory.approve(next(f for f in waiting if f.predicate == "KNOWS"))
    memory.reject(next(f for f in waiting if f.predicate == "LIKES"), "not so")
    check(memory, "a candidate approved, one rejected")
    memory.feedback(memory.facts("Erin", "VISITS")[0], "stale")
    memory.feedback(memory.facts("Dana", "LIVES_IN")[0], "wrong")
    check(memory, "disputes")
    memory.observe("Dana", ["Speaks Italian", "Owns a bike"])
    memory.unobserve("Dana", ["Owns a bike"])
    check(memory, "observations")
    memory.upsert([Triple(subject="Dee", predicate="LIVES_IN", object="Milan", valid_at="2019-01-01"),
                   Triple(subject="Dee", predicate="LIVES_IN", object="Turin", valid_at="2019-06-01")])
    memory.alias("Dana", "Dee")
    check(memory, "a merge")
    memory.unmerge("Dee")
    check(memory, "a merge undone")
    memory.retract("Dana", "LIVES_IN")
    check(memory, "a retraction")
    memory.purge("Erin")
    check(memory, "a purge")


def test_counts_equal_the_measured_ones_after_every_kind_of_write(memory: Memory) -> None:
    check(memory, "an empty scope")
    story(memory)
    stats = memory.stats()
    assert stats.expired_records > 0 and stats.disputed > 0 and stats.valid_now < stats.facts  # the story counts


def test_an_import_keeps_the_counts(make_memory: Callable[..., Memory]) -> None:
    source = make_memory()
    story(source)
    copy = make_memory()
    copy.import_(list(source.export()))
    assert counted(copy.stats()) == counted(source.stats()) == measured(copy)


def test_a_scope_of_the_format_before_counters_is_measured_then_upgraded_on_open(
        make_memory: Callable[..., Memory]) -> None:
    old = make_memory()
    story(old)
    old.observe("Dana", ["Rides a bike"])
    expected = measured(old)
    # The scope's store format set back to the one before the counters of expired and ended records.
    old.backend.write(Q.RECOUNT_SCOPE, {"scope": old.scope, "format": COUNTED_FORMAT - 1, "candidate": "candidate",
                                        "now": Instant(now_micros())})
    assert counted(old.stats()) == expected  # read by walking the scope until it is upgraded

    upgraded = make_memory(scope=old.scope)
    assert upgraded.backend.read(Q.SCOPE_STATE, {"scope": old.scope})[0]["state"]["format"] == STORE_FORMAT
    assert counted(upgraded.stats()) == expected == measured(upgraded)
    upgraded.upsert(Triple(subject="Dana", predicate="LIVES_IN", object="Lyon"))
    check(upgraded, "a write after the upgrade")
