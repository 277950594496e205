"""Purge erases for good and reports what it removed; quotas refuse writes and write nothing."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest

from synapse_graph import InvalidScopeError, Memory, PurgeResult, QuotaExceededError
from synapse_graph.engine import erasure
from synapse_graph.engine.io import write
from tests.integration.helpers import objects, populate, populated_scope, snapshot

MakeMemory = Callable[..., Memory]


@pytest.fixture
def bystander(make_memory: MakeMemory, backend_name: str) -> Memory:
    """Another scope holding the same names, which no purge here may touch."""
    return populated_scope(make_memory, backend_name)


def about(line: dict[str, Any], key: str) -> bool:
    """Whether an export line belongs to the entity ``key``: the entity, its aliases, facts touching it."""
    match line["kind"]:
        case "entity":
            return bool(line["key"] == key)
        case "alias":
            return bool(line["target"] == key)
        case "fact":
            return key in (line["subject"], line["object"])
        case _:
            return False


def test_purge_entity_removes_it_its_facts_and_aliases(memory: Memory, bystander: Memory) -> None:
    populate(memory)
    memory.upsert(("Carol", "KNOWS", "Dana"))  # a fact pointing at Dana
    stored, stats, others = snapshot(memory), memory.stats(), snapshot(bystander)
    dana = Counter(line["kind"] for line in stored if about(line, "dana"))
    assert dana["fact"] >= 7 and dana["alias"] == 1  # history, correction, retraction, incoming fact; alias Dee
    distinct = {(line["subject"], line["predicate"], line["object"]) for line in stored
                if line["kind"] == "fact" and about(line, "dana")}

    result = memory.purge("Dee")  # by alias name

    # Facts in the user's terms (each fact once, whatever its history), records as stored.
    assert result == PurgeResult(entities=1, facts=len(distinct), records=dana["fact"], aliases=1)
    assert result.facts < result.records
    assert memory.entity("Dana") is None and memory.entity("Dee") is None
    assert memory.facts("Dana") == [] and memory.history("Dana") == []
    assert memory.facts("Carol") == []
    kept = [line for line in stored if line["kind"] in ("entity", "alias", "fact") and not about(line, "dana")]
    assert [line for line in snapshot(memory) if line["kind"] in ("entity", "alias", "fact")] == kept
    after = memory.stats()
    assert (after.entities, after.aliases) == (stats.entities - 1, stats.aliases - 1)
    assert snapshot(bystander) == others


def test_purge_of_an_unknown_entity_removes_nothing(memory: Memory) -> None:
    populate(memory)
    before = snapshot(memory)
    assert memory.purge("Nobody") == PurgeResult(entities=0, facts=0, records=0, aliases=0)
    assert snapshot(memory) == before


def test_purge_scope_empties_it_and_reports_counts(memory: Memory, bystander: Memory) -> None:
    populate(memory)
    lines, others = snapshot(memory), snapshot(bystander)
    stored = Counter(line["kind"] for line in lines)
    distinct = {(line["subject"], line["predicate"], line["object"]) for line in lines if line["kind"] == "fact"}

    result = memory.purge(scope=memory.scope)

    assert result == PurgeResult(entities=stored["entity"], facts=len(distinct), records=stored["fact"],
                                 aliases=stored["alias"])
    assert [line["kind"] for line in snapshot(memory)] == ["header"]
    assert set(memory.stats().model_dump(exclude={"scope"}).values()) == {0}
    assert memory.facts(include_history=True) == [] and memory.entity("Dana") is None
    assert snapshot(bystander) == others
    memory.upsert(("Dana", "LIVES_IN", "Paris"))  # the scope can be used again
    assert objects(memory.facts("Dana")) == ["Paris"]


def test_a_scope_larger_than_a_page_is_purged_page_by_page(memory: Memory, bystander: Memory,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """Each page is a transaction of its own deleting at most a page of each kind (a whole scope in one took a
    1 GB Neo4j heap down), and the pages together remove and count exactly what one would."""
    populate(memory)
    memory.observe("Dana", ["Dana bakes bread.", "Dana runs."])
    lines, others = snapshot(memory), snapshot(bystander)
    stored = Counter(line["kind"] for line in lines)
    distinct = {(line["subject"], line["predicate"], line["object"]) for line in lines if line["kind"] == "fact"}
    pages: list[dict[str, Any]] = []

    def paged(name: Any, params: dict[str, Any]) -> Any:
        found = yield from write(name, params)
        pages.append(found[0])
        return found
    monkeypatch.setattr(erasure, "PURGE_PAGE", 2)
    monkeypatch.setattr(erasure, "write", paged)

    result = memory.purge(scope=memory.scope)

    assert result == PurgeResult(entities=stored["entity"], facts=len(distinct),
                                 records=stored["fact"] + stored["observation"], aliases=stored["alias"])
    assert len(pages) >= stored["entity"] // 2 + 1 and pages[-1]["deleted"] == 0
    assert all(page["entities"] <= 2 and page["aliases"] <= 2 for page in pages)
    assert [line["kind"] for line in snapshot(memory)] == ["header"]
    assert set(memory.stats().model_dump(exclude={"scope"}).values()) == {0}
    assert snapshot(bystander) == others
    memory.upsert(("Dana", "LIVES_IN", "Paris"))  # the scope can be used again
    assert objects(memory.facts("Dana")) == ["Paris"]


def test_purge_of_another_scope_is_refused(memory: Memory, bystander: Memory) -> None:
    populate(memory)
    before, others = snapshot(memory), snapshot(bystander)
    for scope in (bystander.scope, "other"):
        with pytest.raises(InvalidScopeError):
            memory.purge(scope=scope)
    assert (snapshot(memory), snapshot(bystander)) == (before, others)


# -- quotas ----------------------------------------------------------------------------------------


def assert_refused(memory: Memory, call: Callable[[], object], *numbers: str) -> None:
    """The call raises QuotaExceededError naming ``numbers``, and writes nothing."""
    before = snapshot(memory)
    with pytest.raises(QuotaExceededError) as raised:
        call()
    for number in numbers:
        assert number in str(raised.value)
    assert snapshot(memory) == before


def test_fact_quota(make_memory: MakeMemory) -> None:
    memory = make_memory(max_facts=3)
    memory.upsert([("Dana", "LIKES", "Tea"), ("Dana", "LIKES", "Jazz")])

    assert_refused(memory, lambda: memory.upsert([("Dana", "LIKES", "Go"), ("Dana", "LIKES", "Chess")]),
                   "4 facts", "quota of 3")
    memory.upsert(("Dana", "LIKES", "Go"))  # the third fits
    assert_refused(memory, lambda: memory.upsert(("Dana", "LIKES", "Chess")), "4 facts", "quota of 3")
    assert memory.upsert(("Dana", "LIKES", "Tea")).confirmed == 1  # confirming adds no fact
    assert memory.stats().facts == 3


def test_entity_quota(make_memory: MakeMemory) -> None:
    memory = make_memory(max_entities=3)
    memory.upsert([("Dana", "LIKES", "Tea"), ("Dana", "LIKES", "Jazz")])

    assert_refused(memory, lambda: memory.upsert(("Dana", "LIKES", "Go")), "4 entities", "quota of 3")
    assert_refused(memory, lambda: memory.alias("Eve", "Evie"), "4 entities", "quota of 3")
    memory.upsert(("Tea", "GOES_WITH", "Jazz"))  # no new entity: allowed
    assert memory.stats().entities == 3


def test_purge_frees_quota(make_memory: MakeMemory) -> None:
    memory = make_memory(max_entities=3, max_facts=2)
    memory.upsert([("Dana", "LIKES", "Tea"), ("Dana", "LIKES", "Jazz")])
    assert_refused(memory, lambda: memory.upsert(("Dana", "LIKES", "Go")), "quota")

    assert memory.purge("Jazz") == PurgeResult(entities=1, facts=1, records=1, aliases=0)
    memory.upsert(("Dana", "LIKES", "Go"))
    assert sorted(objects(memory.facts("Dana"))) == ["Go", "Tea"]


def test_a_batch_over_quota_writes_none_of_its_aliases(make_memory: MakeMemory) -> None:
    memory = make_memory(max_facts=3)
    memory.upsert([("Bob", "LIKES", "Tea"), ("Robert", "LIKES", "Jazz")])
    assert_refused(
        memory,
        lambda: memory.upsert([("Robert", "SAME_AS", "Bob"), ("Robert", "LIKES", "Go"), ("Robert", "LIKES", "Chess")]),
        "4 facts",
    )
