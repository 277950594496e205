"""A record's links (what it replaced and what replaced it: fragments/links) are found by exact seeks of the records'
end keys (store format 13: ``starts`` and ``ends``, a record's slot and instants as text), reading a handful of
records however many its slot (its subject and predicate) holds: before, each row of a read walked its whole slot
(issue 35: at 1M a hub's slot holds ~2,574 records; ``facts(object=..., during=...)`` spent 7.3 ms of 7.65 there,
and recall's links_of read 18,145 records for 25 facts). The answers are the slot walk's; a scope of format 12 gets
its keys when opened."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta

import pytest

from synapse_graph import Memory, Triple
from synapse_graph.catalogue import Q
from synapse_graph.engine import migrations
from synapse_graph.engine.migrations import RECORD_KEYS_FORMAT
from synapse_graph.engine.scope import STORE_FORMAT
from synapse_graph.instants import Instant
from synapse_graph.rules.timeparse import now_micros
from tests.integration.helpers import raw_cypher, wrong_record_keys
from tests.integration.plans import rows_read

pytestmark = pytest.mark.integration

HUB = 400
"""Records in the hub's slot."""
START = datetime(2000, 1, 1, tzinfo=UTC)


def hub(memory: Memory) -> None:
    """A subject whose one timeline (LIVES_IN) holds HUB records, each replaced by the next; a second timeline of
    it that meets the first at the same instants (links stay within a slot); a record of no length in the middle."""
    memory.upsert([Triple(subject="Hub", predicate="LIVES_IN", object=f"City {i}", valid_at=START + timedelta(days=i))
                   for i in range(HUB)])
    memory.upsert([Triple(subject="Hub", predicate="WORKS_AT", object=f"Firm {i}", valid_at=START + timedelta(days=i))
                   for i in range(0, HUB, 50)])


def links(memory: Memory) -> dict[str, tuple[list[str], list[str]]]:
    return {f.object: (sorted(x.object for x in f.replaces), sorted(x.object for x in f.replaced_by))
            for f in memory.facts("Hub", include_history=True)}


@pytest.mark.parametrize("api", ["sync"])
def test_the_links_of_a_record_in_a_hub_slot_are_found_reading_a_handful_of_records(memory: Memory) -> None:
    hub(memory)
    found = links(memory)
    assert found["City 200"] == (["City 199"], ["City 201"])
    assert found["City 0"] == ([], ["City 1"]) and found[f"City {HUB - 1}"] == ([f"City {HUB - 2}"], [])
    assert found["Firm 100"] == (["Firm 50"], ["Firm 150"])
    [middle] = [f for f in memory.facts("Hub", "LIVES_IN", include_history=True) if f.object == "City 200"]
    for name, params in ((Q.RECORD_BY_ID, {"id": middle.id}), (Q.LINKS_OF, {"ids": [middle.id]})):
        params = {"scope": memory.scope, "known_at": None, "candidate": "candidate", **params}
        [row] = memory.backend.read(name, params)
        assert sorted(x["object"] for x in row["links"]) == ["City 199", "City 201"], name
        # The slot's walk read every record of the slot (HUB and more); the seeks, those that meet the record.
        assert rows_read(memory, name, params) < 40, name


def test_the_links_are_those_of_the_timeline_as_the_slot_walk_found_them(memory: Memory) -> None:
    """Corrections, a record between two others, candidates (their own timeline) and a retraction: each fact's links are
    the records of its slot that meet it, in its timeline."""
    at = [START + timedelta(days=d) for d in range(6)]
    memory.upsert([Triple(subject="Ann", predicate="LIVES_IN", object="Paris", valid_at=at[0]),
                   Triple(subject="Ann", predicate="LIVES_IN", object="Rome", valid_at=at[2])])
    memory.upsert(Triple(subject="Ann", predicate="LIVES_IN", object="Oslo", valid_at=at[1], invalid_at=at[2]))
    memory.upsert(Triple(subject="Ann", predicate="LIVES_IN", object="Lima", valid_at=at[4]))
    memory.upsert(Triple(subject="Ann", predicate="LIVES_IN", object="Kyiv", valid_at=at[4], confidence=0.2),
                  model="extractor")
    memory.retract("Ann", "LIVES_IN", at=at[5])
    every = memory.facts("Ann", include_history=True, include_candidates=True)
    assert every
    for f in every:
        line = [p for p in every if p.predicate == f.predicate and p.object != f.object
                and (p.status == "candidate") == (f.status == "candidate")]
        assert sorted(x.id for x in f.replaces) == sorted(p.id for p in line if p.invalid_at == f.valid_at), f
        assert sorted(x.id for x in f.replaced_by) == sorted(p.id for p in line if p.valid_at == f.invalid_at), f


@pytest.mark.parametrize("api", ["sync"])
def test_a_scope_of_format_12_gets_its_record_keys_when_opened(make_memory: Callable[..., Memory],
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(migrations, "KEY_PAGE", 7)  # pages of a few entities: the paging is exercised
    old = make_memory()
    hub(old)
    old.upsert([Triple(subject=f"City {i}", predicate="NEAR", object=f"City {i + 1}", valid_at=START)
                for i in range(30)])
    before = links(old)
    raw_cypher(old, "MATCH (:Entity {scope: $scope})-[r:FACT]->() SET r.starts = null, r.ends = null", scope=old.scope)
    old.backend.write(Q.RECOUNT_SCOPE, {"scope": old.scope, "format": RECORD_KEYS_FORMAT - 1,
                                        "candidate": "candidate", "now": Instant(now_micros())})
    assert len(wrong_record_keys(old)) == HUB + HUB // 50 + 30
    upgraded = make_memory(scope=old.scope)
    assert upgraded.backend.read(Q.SCOPE_STATE, {"scope": old.scope})[0]["state"]["format"] == STORE_FORMAT
    assert wrong_record_keys(upgraded) == []
    assert links(upgraded) == before
