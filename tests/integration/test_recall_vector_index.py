"""Recall's vector leg through the vector indexes over memories, on both backends and both APIs (issue 28): the
indexes span every scope, so a scope's recall keeps to its own memories, finds its best even when another
scope's crowd the index's answer (the scan then), respects ``known_at`` and ``as_of``, and a memory whose
embedder has another dimension than the indexes' still finds its own (by a scan)."""

from __future__ import annotations

import time
import zlib
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from typing import Any

import pytest

from synapse_graph import EmbedderMismatchError, Memory, Triple
from synapse_graph.catalogue import Q
from synapse_graph.engine import recalling
from synapse_graph.models import RecalledFact, RecalledObservation
from tests.integration.plans import plans_of
from tests.integration.test_recall import TrigramEmbedder

pytestmark = pytest.mark.integration

OWN_BEST = "Dana bought a car last week."
OWN = [OWN_BEST, "Dana plays chess on Sundays.", "Dana cooks a curry."]
CROWD = recalling.DEPTH * recalling.OVERSAMPLE + 30
"""More memories near the question in another scope than the vector leg asks the index for."""


@pytest.fixture(autouse=True, params=["indexed", "scanned"])
def vector_path(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Each test on both ways the vector leg reads: the vector indexes (every scope, as a large one does) and the
    scan in the legs' own statement (every scope, as a small one does)."""
    monkeypatch.setattr(recalling, "INDEXED_FROM", 0 if request.param == "indexed" else 10**9)
    return str(request.param)


def recording_reads(memory: Memory, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    asked: list[str] = []
    read = memory.backend.read

    def recording(name: str, params: Any) -> Any:
        asked.append(name)
        return read(name, params)

    monkeypatch.setattr(memory.backend, "read", recording)
    return asked


def texts(memories: Sequence[RecalledFact | RecalledObservation]) -> list[str]:
    return [m.text if isinstance(m, RecalledObservation) else f"{m.subject} {m.predicate} {m.object}"
            for m in memories]


def crowd(memory: Memory, facts: bool = True) -> None:
    """Observations and facts nearer "an automobile" (the embedder's "car") than any of the scope's own."""
    memory.observe("Zed", [f"Car {i}." for i in range(CROWD)])
    if facts:
        memory.upsert([Triple(subject="Zed", predicate="LIKES", object=f"car {i}") for i in range(CROWD)])


def test_the_vector_leg_keeps_to_its_scope_and_finds_its_best_when_other_scopes_crowd_the_index(
        purged: Callable[..., Memory]) -> None:
    own = purged(embedder=TrigramEmbedder())
    own.observe("Dana", OWN)
    own.upsert(Triple(subject="Dana", predicate="DRIVES", object="red car"))
    crowd(purged(embedder=TrigramEmbedder()))
    found = own.recall("an automobile", limit=50)  # no word in common with the scope's: the vector leg alone
    assert texts(found.observations)[0] == OWN_BEST and set(texts(found.observations)) <= set(OWN)
    assert texts(found.facts) == ["Dana DRIVES red car"]
    assert {o.entity for o in found.observations} == {"Dana"}
    assert found.observations[0].why is not None and found.observations[0].why.legs == ["vector"]


def test_the_crowding_scope_finds_its_own_and_never_the_other_scopes(purged: Callable[..., Memory]) -> None:
    own = purged(embedder=TrigramEmbedder())
    own.observe("Dana", OWN)
    other = purged(embedder=TrigramEmbedder())
    crowd(other, facts=False)
    found = other.recall("an automobile", limit=recalling.DEPTH)
    assert len(found.observations) == recalling.DEPTH
    assert {o.entity for o in found.observations} == {"Zed"}
    assert OWN_BEST not in texts(found.observations)


def test_the_vector_leg_respects_known_at_and_as_of(purged: Callable[..., Memory]) -> None:
    memory = purged(embedder=TrigramEmbedder(), single_valued=["DRIVES"])
    memory.observe("Dana", ["Dana plays chess on Sundays."])
    memory.upsert(Triple(subject="Dana", predicate="DRIVES", object="blue car", valid_at="2019-01-01"))
    before = datetime.now(UTC)
    time.sleep(0.01)
    memory.observe("Dana", [OWN_BEST])
    memory.upsert(Triple(subject="Dana", predicate="DRIVES", object="red car", valid_at="2021-01-01"))
    now = memory.recall("an automobile")
    assert texts(now.observations)[0] == OWN_BEST
    assert texts(now.facts) == ["Dana DRIVES red car"]
    then = memory.recall("an automobile", known_at=before)
    assert OWN_BEST not in texts(then.observations) and "Dana DRIVES red car" not in texts(then.facts)
    assert texts(memory.recall("an automobile", as_of="2020-01-01").facts) == ["Dana DRIVES blue car"]
    # the same when another scope crowds the index (then the scope is scanned)
    crowd(purged(embedder=TrigramEmbedder()))
    then = memory.recall("an automobile", known_at=before)
    assert OWN_BEST not in texts(then.observations) and "Dana DRIVES red car" not in texts(then.facts)
    assert texts(then.observations) == ["Dana plays chess on Sundays."]
    assert texts(memory.recall("an automobile", as_of="2020-01-01").facts) == ["Dana DRIVES blue car"]
    assert texts(memory.recall("an automobile").observations)[0] == OWN_BEST


@pytest.mark.parametrize("api", ["sync"])
def test_a_scope_the_index_serves_is_not_scanned(purged: Callable[..., Memory],
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    memory = purged(embedder=TrigramEmbedder())
    word = f"zq{zlib.crc32(memory.scope.encode()):x}"  # a word no other scope's memories hold
    memory.observe("Dana", [f"Dana saw {word} number {i}." for i in range(recalling.DEPTH + 10)])
    asked = recording_reads(memory, monkeypatch)
    found = memory.recall(f"the {word}", limit=5)
    assert len(found.observations) == 5
    assert Q.MEMORY_VECTOR_SCAN not in asked


class SmallTrigrams(TrigramEmbedder):
    """Trigrams in fewer dimensions than the store's vector indexes (which the first embedder opened sets)."""

    name = "test-trigram-16"
    dimensions = 16


def test_an_embedder_of_another_dimension_than_the_indexes_scans_its_scope(purged: Callable[..., Memory]) -> None:
    purged(embedder=TrigramEmbedder())  # the indexes exist, of 384 dimensions (if none did)
    small = purged(embedder=SmallTrigrams())
    small.observe("Dana", OWN)
    small.upsert(Triple(subject="Dana", predicate="DRIVES", object="red car"))
    found = small.recall("an automobile", limit=3)
    assert texts(found.observations)[0] == OWN_BEST
    assert texts(found.facts) == ["Dana DRIVES red car"]
    with pytest.raises(EmbedderMismatchError, match="16 dimensions"):  # a dimension change is refused, as before
        purged(scope=small.scope, embedder=TrigramEmbedder()).recall("an automobile")


@pytest.mark.parametrize("api", ["sync"])
def test_a_small_scope_beside_a_crowding_one_is_scanned_in_one_statement(
        purged: Callable[..., Memory], monkeypatch: pytest.MonkeyPatch) -> None:
    """A scope of fewer than INDEXED_FROM memories never asks the indexes, so another scope's memories cannot crowd
    it into a second round trip: its own best, from the legs' statement alone."""
    monkeypatch.setattr(recalling, "INDEXED_FROM", recalling.SMALL_SCOPE)
    own = purged(embedder=TrigramEmbedder())
    own.observe("Dana", OWN)
    crowd(purged(embedder=TrigramEmbedder()))
    asked = recording_reads(own, monkeypatch)
    found = own.recall("an automobile", limit=3)
    assert texts(found.observations)[0] == OWN_BEST and {o.entity for o in found.observations} == {"Dana"}
    assert Q.MEMORY_VECTOR_SCAN not in asked


SCANS = ("LabelScan", "Label Scan", "AllNodesScan", "All Node Scan")


@pytest.mark.parametrize("api", ["sync"])
def test_recall_seeks_its_scope_s_memories_however_many_other_scopes_hold(
        purged: Callable[..., Memory], monkeypatch: pytest.MonkeyPatch) -> None:
    """Every statement recall sends finds the scope's memories through an index, on both vector paths and when
    another scope crowds the indexes: a scan of a label reads every scope's memories (on Neo4j the small scan of a
    LoCoMo conversation read all 21,000 observations of the server, 184 of them its own)."""
    own = purged(embedder=TrigramEmbedder())
    own.observe("Dana", OWN)
    own.upsert(Triple(subject="Dana", predicate="DRIVES", object="red car"))
    crowd(purged(embedder=TrigramEmbedder()))
    plans = plans_of(own, lambda: own.recall("an automobile Dana drives", limit=3))
    # the scope's memories in one statement: with the indexes' branches, or without them when its vector leg is a scan
    assert str(Q.MEMORY_LEXICAL if recalling.INDEXED_FROM == 0 else Q.MEMORY_LEXICAL_SCANNED) in plans
    scans = {name: [line for line in plan if any(scan in line for scan in SCANS)] for name, plan in plans.items()}
    assert not any(scans.values()), scans
