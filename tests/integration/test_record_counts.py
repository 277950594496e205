"""Each entity's count of fact records (``records``, one per end, any time or state), which the writes keep and the
digest ranks the scope's entities by (issue 34): after every kind of write, an import, and the upgrade of a scope of
the store format before the counts, it equals the number of records the scope's export holds about the entity; and
the digest's central entities are those every fact of the scope gives (``digest/most_connected``).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest

from benchmarks.generate import generate
from synapse_graph import Memory, Triple
from synapse_graph.catalogue import Q
from synapse_graph.engine import digest as digest_engine
from synapse_graph.engine import unmerge, writes
from synapse_graph.engine.migrations import COUNTED_ON_ITSELF_FORMAT, PAGE, RECORD_COUNTS_FORMAT
from synapse_graph.engine.scope import STORE_FORMAT
from synapse_graph.instants import Instant
from synapse_graph.rules.text import USER_NAME, name_key
from synapse_graph.rules.timeparse import now_micros
from tests.integration.test_counted_stats import story

pytestmark = pytest.mark.integration


def stored(memory: Memory) -> dict[str, int]:
    """Every entity's kept count, as the digest reads it (zeros and any below zero included)."""
    found = memory.backend.read(Q.MOST_RECORDS, {"scope": memory.scope, "except": [], "floor": -10**9,
                                                 "limit": 10**9})
    return {r["key"]: r["records"] for r in found}


def exported(memory: Memory) -> Counter[str]:
    """How many records the scope's export holds with each entity at one end (a record about itself: twice)."""
    counts: Counter[str] = Counter()
    for line in memory.export():
        row: dict[str, Any] = json.loads(line)
        if row["kind"] == "fact":
            counts[row["subject"]] += 1
            counts[row["object"]] += 1
    return counts


def check(memory: Memory, after: str) -> None:
    kept, real = stored(memory), exported(memory)
    assert {k: v for k, v in kept.items() if v} == dict(real), after
    assert all(v >= 0 for v in kept.values()), after


def test_counts_equal_the_records_after_every_kind_of_write(memory: Memory) -> None:
    story(memory)  # moves, candidates, disputes, observations, a merge and its undoing, a retraction, a purge
    check(memory, "the story")
    memory.upsert([("Ann", "KNOWS", "Bo"), ("Bo", "KNOWS", "Cy"), ("Ann", "LIKES", "Cy")])
    memory.alias("Ann", "Bo")  # Ann KNOWS Bo becomes a record about Ann itself
    check(memory, "a merge that makes a record about the kept entity itself")
    memory.purge("Cy")
    check(memory, "a purge of an entity with records")
    memory.purge("Ann")
    check(memory, "a purge of an entity with a record about itself")
    assert not stored(memory).get("ann")


def test_an_import_counts_the_records(make_memory: Callable[..., Memory]) -> None:
    source = make_memory()
    story(source)
    copy = make_memory()
    copy.import_(list(source.export()))
    check(copy, "an import")
    assert stored(copy) == {k: v for k, v in stored(source).items() if k in stored(copy)}


def test_a_scope_of_the_format_before_the_counts_is_counted_on_open(
        make_memory: Callable[..., Memory], monkeypatch: pytest.MonkeyPatch) -> None:
    old = make_memory()
    with monkeypatch.context() as before:  # writes as the code before the counts made them: no count kept
        before.setattr(writes, "record_counts", lambda added, taken: [])
        before.setattr(unmerge, "record_counts", lambda added, taken: [])
        story(old)
    assert stored(old) == {}
    old.backend.write(Q.RECOUNT_SCOPE, {"scope": old.scope, "format": RECORD_COUNTS_FORMAT - 1,
                                        "candidate": "candidate", "now": Instant(now_micros())})
    upgraded = make_memory(scope=old.scope)
    assert upgraded.backend.read(Q.SCOPE_STATE, {"scope": old.scope})[0]["state"]["format"] == STORE_FORMAT
    check(upgraded, "the upgrade")
    upgraded.upsert(Triple(subject="Dana", predicate="LIVES_IN", object="Lyon"))
    check(upgraded, "a write after the upgrade")


def stream(memory: Memory) -> None:
    """The story, then a generated stream of 600 facts and a few about the user: a digest with entities to rank."""
    story(memory)
    memory.set_rules(max_entities=10**6, max_facts=10**6)
    writes_ = generate(600, questions=1, neighbourhoods=1, checkpoints=(600,)).writes
    memory.upsert([Triple(subject=w.subject, predicate=w.predicate, object=w.object, valid_at=w.valid_at)
                   for w in writes_])
    memory.upsert([(USER_NAME, "KNOWS", w.subject) for w in writes_[:5]])


def test_a_scope_of_the_format_with_counts_on_the_entities_answers_alike_once_opened(
        make_memory: Callable[..., Memory], monkeypatch: pytest.MonkeyPatch) -> None:
    written = make_memory()
    stream(written)
    old = make_memory()
    with monkeypatch.context() as before:  # no count on a relationship: this version's writes keep none
        before.setattr(writes, "record_counts", lambda added, taken: [])
        before.setattr(unmerge, "record_counts", lambda added, taken: [])
        stream(old)
    # The store as formats 9-11 left it: each entity's count on its node, and their format.
    old.backend.write(Q.SET_RECORD_COUNTS, {"scope": old.scope})
    old.backend.write(Q.RECOUNT_SCOPE, {"scope": old.scope, "format": COUNTED_ON_ITSELF_FORMAT - 1,
                                        "candidate": "candidate", "now": Instant(now_micros())})
    assert stored(old) == {}  # the digest of this version finds no count on a relationship
    upgraded = make_memory(scope=old.scope)
    assert upgraded.backend.read(Q.SCOPE_STATE, {"scope": old.scope})[0]["state"]["format"] == STORE_FORMAT
    check(upgraded, "the upgrade")
    assert {k: v for k, v in stored(upgraded).items() if v} == {k: v for k, v in stored(written).items() if v}
    assert upgraded.digest().entities == written.digest().entities
    assert upgraded.stats().model_dump(exclude={"scope"}) == written.stats().model_dump(exclude={"scope"})
    # Nothing is left on the entities to move.
    assert upgraded.backend.write(Q.MOVE_RECORD_COUNTS, {"scope": old.scope, "limit": PAGE})[0]["moved"] == 0
    upgraded.upsert(Triple(subject="Dana", predicate="LIVES_IN", object="Lyon"))
    check(upgraded, "a write after the upgrade")


def test_the_digest_finds_the_entities_every_fact_gives(memory: Memory, monkeypatch: pytest.MonkeyPatch) -> None:
    memory.set_rules(max_entities=10**6, max_facts=10**6)
    writes_ = generate(1_500, questions=1, neighbourhoods=1, checkpoints=(1_500,)).writes
    for lo in range(0, len(writes_), 500):
        memory.upsert([Triple(subject=w.subject, predicate=w.predicate, object=w.object, valid_at=w.valid_at)
                       for w in writes_[lo:lo + 500]])
    memory.upsert([(USER_NAME, "KNOWS", w.subject) for w in writes_[:5]])
    check(memory, "a generated stream")
    expected = memory.backend.read(Q.MOST_CONNECTED, {
        "scope": memory.scope, "as_of": None, "now": Instant(now_micros()), "history": False, "known_at": None,
        "statuses": ["believed"], "except": [name_key(USER_NAME)], "limit": digest_engine.CENTRAL_ENTITIES})
    assert memory.digest().entities == [r["name"] for r in expected]
    monkeypatch.setattr(digest_engine, "FLOORS", (10**6, 1))  # the busiest sought from a floor no entity reaches
    assert memory.digest().entities == [r["name"] for r in expected]
