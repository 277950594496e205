"""Observations: free text about an entity, recorded and forgotten in time, found by recall, erased by purge."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

from synapse_graph import InvalidInputError, Memory, QuotaExceededError
from tests.integration.helpers import snapshot, words

pytestmark = pytest.mark.integration
MakeMemory = Callable[..., Memory]


def texts(observations: list) -> list[str]:  # type: ignore[type-arg]
    return [o.text for o in observations]


def test_observe_records_new_texts_once_and_forgetting_keeps_history(memory: Memory) -> None:
    added = memory.observe("Dana", ["Speaks fluent Spanish", "Prefers morning meetings"], source="chat")
    assert texts(added) == ["Speaks fluent Spanish", "Prefers morning meetings"]
    assert added[0].entity == "Dana" and added[0].source == "chat"
    assert texts(memory.observe("dana", ["Speaks fluent Spanish", "Plays chess"])) == ["Plays chess"]
    assert texts(memory.observations("Dana")) == ["Speaks fluent Spanish", "Prefers morning meetings", "Plays chess"]
    before = memory.observations("Dana")[0].recorded_at
    assert memory.unobserve("Dana", ["Plays chess", "never said"]) == 1
    assert texts(memory.observations("Dana")) == ["Speaks fluent Spanish", "Prefers morning meetings"]
    history = memory.observations("Dana", include_history=True)
    assert [o.expired_at is not None for o in history] == [False, False, True]
    assert "Plays chess" in texts(memory.observations("Dana", known_at=history[2].recorded_at))
    assert memory.observations("Nobody") == [] and memory.unobserve("Nobody", ["x"]) == 0
    assert [e.action for e in memory.audit("Dana")][:2] == ["unobserve", "observe"]
    assert before.tzinfo is not None


def test_recall_finds_observations_by_their_words_with_their_entity(memory: Memory) -> None:
    memory.upsert(("Dana", "WORKS_AT", "Acme"))
    memory.observe("Dana", ["Speaks fluent Spanish", "Prefers morning meetings"])
    memory.observe("Kim", ["Allergic to peanuts"])
    recall = memory.recall("who speaks Spanish?")
    assert [(o.entity, o.text) for o in recall.observations] == [("Dana", "Speaks fluent Spanish")]
    assert recall.memories[0] == recall.observations[0] and recall.observations[0].rank == 1
    assert ("Dana", "WORKS_AT", "Acme") in {(f.subject, f.predicate, f.object) for f in memory.recall("Dana").facts}
    memory.unobserve("Dana", ["Speaks fluent Spanish"])
    assert texts(memory.recall("who speaks Spanish?").observations) == []


def test_observations_count_toward_the_fact_quota(make_memory: MakeMemory) -> None:
    memory = make_memory(max_facts=2)
    memory.upsert(("Dana", "LIKES", "Tea"))
    memory.observe("Dana", ["Speaks Spanish"])
    before = snapshot(memory)
    with pytest.raises(QuotaExceededError):
        memory.observe("Dana", ["Plays chess"])
    assert snapshot(memory) == before
    stats = memory.stats()
    assert (stats.facts, stats.observations) == (1, 1)


def test_observations_move_in_a_merge_and_are_erased_by_purge(memory: Memory) -> None:
    memory.observe("Bob", ["Has a diagnosis of asthma"])
    memory.observe("Robert", ["Lives near the park"])
    assert memory.alias("Robert", "Bob").merged
    assert texts(memory.observations("Robert")) == ["Has a diagnosis of asthma", "Lives near the park"]
    memory.purge("Bob")
    assert memory.observations() == []
    exported = words("\n".join(memory.export()))
    assert "asthma" not in exported and "park" not in exported and "bob" not in exported
    assert memory.stats().facts == 0


def test_secrets_in_observations_are_redacted(memory: Memory) -> None:
    [note] = memory.observe("Dana", ["mail her at dana@example.com"])
    assert note.text == "mail her at [REDACTED:email]"


def test_observations_travel_with_an_export(make_memory: MakeMemory) -> None:
    origin = make_memory()
    origin.observe("Dana", ["Speaks Spanish", "Plays chess"])
    origin.unobserve("Dana", ["Plays chess"])
    lines = list(origin.export())
    assert sum(json.loads(x)["kind"] == "observation" for x in lines) == 2
    restored = make_memory()
    restored.import_(lines)
    restored.import_(lines)  # twice changes nothing
    assert [(o.id, o.text, o.recorded_at, o.expired_at) for o in restored.observations(include_history=True)] == [
        (o.id, o.text, o.recorded_at, o.expired_at) for o in origin.observations(include_history=True)]
    assert restored.stats().observations == origin.stats().observations == 1


def test_observe_many_records_every_entity_in_one_write_or_none(memory: Memory) -> None:
    made = memory.observe_many([("Dana", ["Speaks Spanish"], "person"), ("Kim", []),
                                ("dana", ["Speaks Spanish", "Runs marathons"])])
    assert [[o.text for o in new] for new in made] == [["Speaks Spanish"], [], ["Runs marathons"]]
    dana, kim = memory.entity("Dana"), memory.entity("Kim")
    assert dana is not None and dana.type == "person" and kim is not None
    assert [o.text for o in memory.observations("Dana")] == ["Speaks Spanish", "Runs marathons"]
    before = snapshot(memory)
    with pytest.raises(InvalidInputError, match="observation"):
        memory.observe_many([("Lee", ["Plays chess"]), ("Max", ["x" * 10_001])])
    assert snapshot(memory) == before and memory.entity("Lee") is None
