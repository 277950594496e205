"""Scope rules (quotas, single-valued predicates, the candidate threshold) live in the scope:
every client of a scope enforces the stored rules, whatever it was opened with."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

from synapse_graph import Memory, QuotaExceededError, ScopeRules, ScopeRulesConflictError, Triple
from tests.integration.helpers import objects, snapshot

pytestmark = pytest.mark.integration
MakeMemory = Callable[..., Memory]


def test_a_second_client_cannot_exceed_the_stored_fact_quota(make_memory: MakeMemory) -> None:
    first = make_memory(max_facts=3)
    second = make_memory(scope=first.scope)  # opened without rules: it obeys the stored ones
    assert second.rules().max_facts == 3
    first.upsert([("Dana", "LIKES", "Tea"), ("Dana", "LIKES", "Jazz")])
    second.upsert(("Dana", "LIKES", "Go"))
    before = snapshot(first)
    with pytest.raises(QuotaExceededError, match="quota of 3"):
        second.upsert(("Dana", "LIKES", "Chess"))
    assert snapshot(first) == before


def test_a_second_client_writes_by_the_stored_single_valued_rules(make_memory: MakeMemory) -> None:
    first = make_memory(single_valued=["HAS_MANAGER"])  # LIVES_IN is not single-valued in this scope
    second = make_memory(scope=first.scope)
    second.upsert(("Dana", "HAS_MANAGER", "Sam"), valid_at="2020-01-01")
    second.upsert(("Dana", "HAS_MANAGER", "Kim"), valid_at="2022-01-01")
    assert objects(first.facts("Dana", "HAS_MANAGER")) == ["Kim"]
    second.upsert(("Dana", "LIVES_IN", "Paris"), valid_at="2020-01-01")
    second.upsert(("Dana", "LIVES_IN", "Rome"), valid_at="2022-01-01")
    assert sorted(objects(first.facts("Dana", "LIVES_IN"))) == ["Paris", "Rome"]


def test_opening_with_other_rules_is_refused_and_changes_nothing(make_memory: MakeMemory) -> None:
    first = make_memory(max_facts=3, single_valued=["HAS_MANAGER"])
    first.upsert(("Dana", "LIKES", "Tea"))
    before = snapshot(first)
    with pytest.raises(ScopeRulesConflictError, match=r"max_facts=3 \(asked 10\)"):
        make_memory(scope=first.scope, max_facts=10)
    with pytest.raises(ScopeRulesConflictError, match="single_valued"):
        make_memory(scope=first.scope, single_valued=["LIVES_IN"])
    same = make_memory(scope=first.scope, max_facts=3)  # the rules it holds already: fine
    assert same.rules() == first.rules()
    assert snapshot(first) == before


def test_set_rules_changes_them_for_every_client_and_is_audited(make_memory: MakeMemory) -> None:
    first = make_memory(max_facts=1)
    second = make_memory(scope=first.scope)
    first.upsert(("Dana", "LIKES", "Tea"))
    with pytest.raises(QuotaExceededError):
        second.upsert(("Dana", "LIKES", "Jazz"))
    rules = second.set_rules(max_facts=5, single_valued={"LIKES"})
    assert rules == first.rules() == ScopeRules(max_facts=5, single_valued=frozenset({"LIKES"}))
    first.upsert(("Dana", "LIKES", "Jazz"), valid_at="2030-01-01")  # LIKES is single-valued now: closes Tea
    assert objects(second.facts("Dana", "LIKES", as_of="2031-01-01")) == ["Jazz"]
    changes = [e for e in first.audit() if e.action == "rules"]
    assert [e.detail["rules"]["after"]["max_facts"] for e in changes] == [5, 1]
    assert changes[0].detail["rules"]["before"]["max_facts"] == 1


def test_rules_travel_with_an_export(make_memory: MakeMemory) -> None:
    origin = make_memory(max_facts=7, single_valued=["OWNS"], candidate_below=0.8)
    origin.upsert(("Dana", "OWNS", "Bike"))
    lines = list(origin.export())
    assert json.loads(lines[1])["kind"] == "rules"
    restored = make_memory()
    restored.import_(lines)
    assert restored.rules() == origin.rules()

    def stored(memory: Memory) -> list[dict[str, object]]:
        return [line for line in snapshot(memory) if line["kind"] not in ("header", "audit")]

    assert stored(restored) == stored(origin)


def test_stored_candidate_threshold_applies_to_every_client(make_memory: MakeMemory) -> None:
    first = make_memory(candidate_below=0.9)
    second = make_memory(scope=first.scope)
    second.upsert(Triple(subject="Dana", predicate="LIKES", object="Tea", confidence=0.85), model="extractor")
    assert [f.object for f in first.pending()] == ["Tea"] and first.facts("Dana") == []


# -- quotas: what they count, and advice that works ------------------------------------------------------


def test_candidates_never_use_the_believed_quota(make_memory: MakeMemory) -> None:
    memory = make_memory(max_facts=3, max_candidates=3)
    memory.upsert([Triple(subject="Dana", predicate="MENTIONS", object=f"Topic {i}", confidence=0.3)
                   for i in range(3)], model="extractor")
    assert len(memory.pending()) == 3 and memory.stats().facts == 0
    memory.upsert([("Dana", "LIKES", "Tea"), ("Dana", "LIKES", "Jazz"), ("Dana", "LIKES", "Go")])  # 3 believed fit
    with pytest.raises(QuotaExceededError, match="candidates waiting for review"):  # a flood of them is bounded
        memory.upsert(Triple(subject="Dana", predicate="MENTIONS", object="Topic 9", confidence=0.3), model="x")
    memory.reject(memory.pending()[0], "not about Dana")  # reviewing frees the candidate quota
    memory.upsert(Triple(subject="Dana", predicate="MENTIONS", object="Topic 9", confidence=0.3), model="x")
    assert len(memory.pending()) == 3


def test_quota_advice_is_true_and_following_it_makes_the_write_succeed(make_memory: MakeMemory) -> None:
    memory = make_memory(max_facts=2)
    memory.upsert([("Dana", "LIKES", "Tea"), ("Dana", "LIKES", "Jazz")])
    memory.retract("Dana", "LIKES", "Tea")  # history counts: the quota is still used
    with pytest.raises(QuotaExceededError) as refused:
        memory.upsert(("Dana", "LIKES", "Go"))
    advice = str(refused.value)
    assert "history" in advice and "purge(" in advice and "set_rules(max_facts=" in advice
    memory.purge("Tea")  # the first advice
    memory.upsert(("Dana", "LIKES", "Go"))
    with pytest.raises(QuotaExceededError):
        memory.upsert(("Dana", "LIKES", "Chess"))
    memory.set_rules(max_facts=3)  # the second advice
    memory.upsert(("Dana", "LIKES", "Chess"))
    assert sorted(objects(memory.facts("Dana"))) == ["Chess", "Go", "Jazz"]
