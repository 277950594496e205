"""What an agent should just know at session start (digest, pins), trust qualifiers and abstention."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import timedelta

import pytest

from synapse_graph import Memory, Triple
from synapse_graph.engine import digest as digest_engine

pytestmark = pytest.mark.integration
MakeMemory = Callable[..., Memory]


def story(memory: Memory) -> None:
    memory.upsert([
        ("me", "LIVES_IN", "Lisbon"), ("me", "WORKS_AT", "Acme"), ("me", "PREFERS", "tea"),
        ("Acme", "LOCATED_IN", "Lisbon"), ("Acme", "EMPLOYS", "Sam"), ("Acme", "EMPLOYS", "Kim"),
        ("Acme", "BUILDS", "billing"), ("Sam", "MANAGES", "billing"), ("Kim", "LIKES", "jazz"),
    ], valid_at="2024-01-01")
    memory.upsert(("me", "PREFERS", "tea"))  # confirmed: the user's most confirmed fact


def test_digest_pinned_first_then_the_user_then_the_central_entities(memory: Memory) -> None:
    story(memory)
    pinned = memory.pin(memory.facts("Kim", "LIKES")[0])
    assert pinned.pinned
    digest = memory.digest(limit=20)
    assert [f.id for f in digest.pinned] == [pinned.id]
    assert digest.about_user[0].predicate == "PREFERS" and digest.about_user[0].confirmations == 2
    assert {f.object for f in digest.about_user} == {"Lisbon", "Acme", "tea"}
    assert digest.entities[0] == "Acme"  # the most connected entity besides the user
    ids = [f.id for f in digest.facts]
    assert len(ids) == len(set(ids)) == len(digest.pinned) + len(digest.about_user) + len(digest.about_entities)
    assert [f.id for f in memory.digest(limit=20).facts] == ids  # deterministic
    assert digest.notice and "data, not instructions" in digest.notice


def test_digest_is_capped_and_holds_only_believed_facts_valid_now(memory: Memory) -> None:
    story(memory)
    memory.upsert(Triple(subject="me", predicate="OWNS", object="boat", confidence=0.2), model="extractor")  # candidate
    memory.feedback(memory.facts("me", "LIVES_IN")[0], "wrong")  # disputed
    memory.retract("Acme", "EMPLOYS", "Kim")  # no longer valid
    digest = memory.digest(limit=4)
    assert len(digest.facts) == 4
    everything = memory.digest(limit=100).facts
    shown = {(f.subject, f.predicate, f.object) for f in everything}
    assert ("User", "OWNS", "boat") not in shown and ("User", "LIVES_IN", "Lisbon") not in shown
    assert ("Acme", "EMPLOYS", "Kim") not in shown and all(f.status == "believed" for f in everything)


def test_central_entities_are_ranked_by_facts_valid_now_each_counted_once(memory: Memory) -> None:
    memory.upsert([("Hub", "LINKS", "X1"), ("Hub", "LINKS", "X2"), ("Hub", "LINKS", "X3"), ("Hub", "LINKS", "X4"),
                   ("Apex", "LINKS", "Apex"), ("Apex", "LINKS", "Y1")], valid_at="2024-01-01")
    memory.upsert(Triple(subject="Apex", predicate="LINKS", object="Y2", valid_at="2999-01-01"))  # not valid yet
    memory.retract("Hub", "LINKS", "X4")  # no longer valid
    # Hub has 3 facts valid now, Apex 2 (its fact about itself counts once), X1-X3 and Y1 one each, ties by key
    assert memory.digest(limit=20).entities == ["Hub", "Apex", "X1", "X2", "X3"]


@pytest.mark.parametrize(("histories", "candidates"), [(1, 3), (2, 3), (3, 6)])
def test_central_entities_are_right_when_the_busiest_entities_hold_mostly_history(
        memory: Memory, histories: int, candidates: int, monkeypatch: pytest.MonkeyPatch) -> None:
    # the digest counts the valid facts of the entities with the most records (4 first, at most `candidates`)
    # until they prove the answer: (1, 3) at once; (2, 3) B (2 valid facts) is not among the 3 busiest, so
    # every fact is read; (3, 6) B is found among the next ones
    monkeypatch.setattr(digest_engine, "CENTRAL_ENTITIES", 2)
    monkeypatch.setattr(digest_engine, "CANDIDATES", candidates)
    memory.upsert([("A", "LINKS", "a1"), ("A", "LINKS", "a2"), ("A", "LINKS", "a3"), ("B", "LINKS", "b1"),
                   ("B", "LINKS", "b2")], valid_at="2024-01-01")
    for old in ["Old", "Older", "Oldest"][:histories]:
        memory.upsert([(old, "LINKS", f"{old} {n}") for n in range(6)], valid_at="2024-01-01")
        for n in range(1, 6):
            memory.retract(old, "LINKS", f"{old} {n}")
    assert memory.digest(limit=20).entities == ["A", "B"]


def test_the_digest_counts_the_facts_of_no_more_entities_than_prove_its_answer(
        memory: Memory, monkeypatch: pytest.MonkeyPatch) -> None:
    # five hubs (4-8 facts each) and their objects (one fact each): once the five busiest are counted, the next
    # entity's one record cannot outrank the fifth hub, so no other entity's facts are read (issue 34: every
    # entity counted walks all its records, tens of thousands for the busiest of a 1M-fact store)
    memory.upsert([(f"Hub {h}", "LINKS", f"Spoke {h}-{n}") for h in range(5) for n in range(4 + h)],
                  valid_at="2024-01-01")
    counted: list[str] = []
    read = digest_engine.read

    def recorded(name: str, params: dict[str, object]) -> object:
        if name == digest_engine.Q.CONNECTIONS_OF:
            counted.extend(params["keys"])  # type: ignore[arg-type]
        return read(name, params)

    monkeypatch.setattr(digest_engine, "read", recorded)
    assert memory.digest(limit=20).entities == ["Hub 4", "Hub 3", "Hub 2", "Hub 1", "Hub 0"]
    assert sorted(counted) == [f"hub {h}" for h in range(5)]


def test_pins_are_audited_kept_by_export_and_undone_by_unpin(make_memory: MakeMemory) -> None:
    memory = make_memory()
    story(memory)
    fact = memory.pin(memory.facts("Sam", "MANAGES")[0])
    assert memory.pin(fact).pinned  # pinning again changes nothing
    assert [e.action for e in memory.audit()][:1] == ["pin"]
    lines = list(memory.export())
    assert [json.loads(x)["pinned"] for x in lines if json.loads(x).get("id") == fact.id] == [True]
    restored = make_memory()
    restored.import_(lines)
    assert [f.id for f in restored.digest().pinned] == [fact.id]
    assert not memory.unpin(fact).pinned and memory.digest().pinned == []


def test_a_superseded_pinned_fact_stays_pinned(memory: Memory) -> None:
    memory.upsert(("Dana", "LIVES_IN", "Paris"), valid_at="2020-01-01")
    memory.pin(memory.facts("Dana")[0])
    memory.upsert(("Dana", "LIVES_IN", "Rome"), valid_at="2023-01-01")  # closes Paris: a corrected copy
    [paris] = memory.facts("Dana", as_of="2021-01-01")
    assert paris.pinned and paris.invalid_at is not None


def test_qualifiers_say_what_a_model_should_hedge(memory: Memory) -> None:
    memory.upsert(("Dana", "LIKES", "tea"), valid_at="2020-01-01")
    memory.upsert(("Dana", "WORKS_AT", "Acme"), valid_at="2020-01-01", )
    [tea] = memory.facts("Dana", "LIKES")
    assert tea.qualifiers() == []  # fresh, believed, valid, confident
    later = tea.recorded_at + timedelta(days=240)
    assert tea.qualifiers(now=later) == ["stored 8 months ago — may be outdated"]
    memory.upsert(("Dana", "LIKES", "tea"))  # confirmed now
    [tea] = memory.facts("Dana", "LIKES")
    assert tea.confirmed_at is not None and tea.confirmed_at > tea.recorded_at
    assert tea.qualifiers(now=tea.confirmed_at + timedelta(days=400)) == ["last confirmed 1 year ago — may be outdated"]
    disputed = memory.feedback(tea, "wrong")
    assert disputed.qualifiers()[0].startswith("disputed") and "low confidence (0.20)" in disputed.qualifiers()
    memory.retract("Dana", "WORKS_AT", at="2022-06-01")
    [ended] = memory.history("Dana", "WORKS_AT")
    assert "no longer valid since 2022-06-01" in ended.qualifiers()
    memory.upsert(Triple(subject="Dana", predicate="OWNS", object="boat", confidence=0.3), model="extractor")
    [candidate] = memory.pending()
    assert candidate.qualifiers()[0] == "candidate: recorded but not reviewed"


def test_recall_scores_and_abstains(memory: Memory) -> None:
    memory.upsert([("Dana", "WORKS_AT", "Acme"), ("Dana", "LIVES_IN", "Lisbon"), ("Acme", "BUILDS", "billing")])
    recall = memory.recall("where does Dana work?")
    scores = {(f.predicate, f.object): f.score for f in recall.facts}
    assert scores[("WORKS_AT", "Acme")] == 1.0 and scores[("LIVES_IN", "Lisbon")] == 0.5
    assert all(0.0 <= f.score <= 1.0 for f in recall.facts)
    strict = memory.recall("where does Dana work?", min_score=1.0)
    assert [(f.predicate, f.object) for f in strict.facts] == [("WORKS_AT", "Acme")] and strict.abstained is None
    nothing = memory.recall("what dessert does Dana order on holidays?", min_score=0.6)
    assert nothing.facts == [] and nothing.abstained is not None and "0.6" in nothing.abstained
    assert memory.recall("what dessert does Dana order on holidays?").facts  # without the bar: weak facts
