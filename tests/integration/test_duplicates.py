"""Duplicate entities (issue 30): proposals, write-time warnings, approve, reject and unmerge, on both backends
and both APIs, judged by what the store answers."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest

from synapse_graph import InvalidInputError, Memory, NotFoundError, Triple
from tests.integration.helpers import snapshot

pytestmark = pytest.mark.integration


def dana_twice(memory: Memory) -> None:
    """One person written down twice over time, with history, a candidate and an observation on each side,
    and a third entity that is someone else."""
    memory.upsert([
        Triple(subject="Dana Reyes", predicate="WORKS_AT", object="Acme", valid_at="2020-01-01", subject_type="person"),
        Triple(subject="Dana Reyes", predicate="LIVES_IN", object="Paris", valid_at="2020-01-01"),
        Triple(subject="Carol", predicate="KNOWS", object="Dana Reyes", valid_at="2019-05-01"),
    ])
    memory.upsert(Triple(subject="Dana Reyes", predicate="LIVES_IN", object="Lyon", valid_at="2021-06-01"))
    memory.observe("Dana Reyes", ["Speaks Spanish"])
    memory.upsert([
        Triple(subject="D. Reyes", predicate="WORKS_AT", object="Acme", valid_at="2020-06-01"),
        Triple(subject="D. Reyes", predicate="LIKES", object="Tea", valid_at="2021-01-01", invalid_at="2022-01-01"),
        Triple(subject="D. Reyes", predicate="LIKES", object="Tea", valid_at="2023-01-01"),
    ])
    memory.upsert(Triple(subject="D. Reyes", predicate="LIVES_IN", object="Lyon", valid_at="2021-09-01"))
    memory.observe("D. Reyes", ["Plays chess", "Allergic to cats"])
    memory.upsert(Triple(subject="D. Reyes", predicate="HAS_PET", object="Rex", valid_at="2022-01-01", confidence=0.4),
                  model="tiny-llm")  # a candidate (model-written, below candidate_below)
    memory.upsert(Triple(subject="Dan Brown", predicate="WORKS_AT", object="Globex", valid_at="2020-01-01"))


def reads(memory: Memory, at: str, known_at: Any) -> dict[str, Any]:
    """What the scope answers about both names at a time, as believed at ``known_at``, every field."""
    answer: dict[str, Any] = {}
    for name in ("Dana Reyes", "D. Reyes", "Carol"):
        answer[name] = {
            "as_of": sorted(f.model_dump_json() for f in memory.facts(name, as_of=at, known_at=known_at,
                                                                     include_candidates=True)),
            "history": sorted(f.model_dump_json() for f in memory.facts(name, include_history=True, known_at=known_at,
                                                                       include_candidates=True)),
            "observations": sorted(o.model_dump_json() for o in memory.observations(name, known_at=known_at)),
        }
    return answer


def test_a_scope_proposes_the_pair_with_its_evidence(memory: Memory) -> None:
    dana_twice(memory)
    [proposal] = memory.duplicates()
    assert (proposal.canonical, proposal.other) == ("Dana Reyes", "D. Reyes")
    assert proposal.score >= 0.8
    kinds = {e.kind for e in proposal.evidence}
    assert {"name", "shared neighbour"} <= kinds
    assert any(e.detail.get("entity") == "acme" for e in proposal.evidence)
    assert proposal.merge_call == "alias('Dana Reyes', 'D. Reyes')"


def test_a_write_creating_a_strong_match_says_so_and_merges_nothing(memory: Memory) -> None:
    memory.upsert(Triple(subject="Dana Reyes", predicate="WORKS_AT", object="Acme", valid_at="2020-01-01"))
    result = memory.upsert(Triple(subject="D. Reyes", predicate="WORKS_AT", object="Acme", valid_at="2021-01-01"))
    [warned] = result.possible_duplicates
    assert (warned.canonical, warned.other) == ("Dana Reyes", "D. Reyes") and warned.score >= 0.95
    assert memory.entity("D. Reyes").name == "D. Reyes"  # nothing merged
    quiet = memory.upsert(Triple(subject="Paris", predicate="LOCATED_IN", object="France"))
    assert quiet.possible_duplicates == []
    observed = memory.observe("dana.reyes", ["Sent the invoice"])
    assert [p.canonical for p in observed.possible_duplicates] == ["Dana Reyes"]
    assert [o.text for o in observed] == ["Sent the invoice"]


def test_approve_merges_with_an_audit_entry_naming_the_proposal(memory: Memory) -> None:
    dana_twice(memory)
    [proposal] = memory.duplicates()
    result = memory.approve_duplicate(proposal)
    assert result.merged and result.facts_moved > 0
    assert memory.entity("D. Reyes").name == "Dana Reyes"
    assert memory.duplicates() == []
    [entry] = [e for e in memory.audit() if e.action == "merge duplicate"]
    assert entry.detail["proposal"]["other"] == "d. reyes"
    assert entry.detail["proposal"]["score"] >= 0.8
    assert any(e["kind"] == "shared neighbour" for e in entry.detail["proposal"]["evidence"])
    with pytest.raises(InvalidInputError):
        memory.approve_duplicate("Dana Reyes", "D. Reyes")
    with pytest.raises(NotFoundError):
        memory.approve_duplicate("Dana Reyes", "Nobody")


def test_a_rejected_pair_is_never_proposed_again_across_merges_and_export(
        make_memory: Callable[..., Memory]) -> None:
    memory = make_memory()
    dana_twice(memory)
    memory.upsert(Triple(subject="dreyes", predicate="WORKS_AT", object="Acme", valid_at="2022-01-01"))
    assert {(p.canonical, p.other) for p in memory.duplicates()} >= {("Dana Reyes", "D. Reyes")}
    memory.reject_duplicate("Dana Reyes", "D. Reyes", reason="two people: Dana and her father Diego")
    assert ("Dana Reyes", "D. Reyes") not in {(p.canonical, p.other) for p in memory.duplicates()}
    assert [e.action for e in memory.audit(limit=1)] == ["distinct"]
    # a merge of either side keeps the pair apart: dreyes merged into D. Reyes, D. Reyes still not Dana
    memory.alias("D. Reyes", "dreyes")
    assert not any({p.canonical, p.other} == {"Dana Reyes", "D. Reyes"} for p in memory.duplicates(threshold=0.0))
    copy = make_memory()
    copy.import_(list(memory.export()))
    assert not any({p.canonical, p.other} == {"Dana Reyes", "D. Reyes"} for p in copy.duplicates(threshold=0.0))
    with pytest.raises(InvalidInputError):
        memory.reject_duplicate("Dana Reyes", "D. Reyes", reason="")


AS_OF = ("2020-03-01", "2021-07-01", "2022-06-01", "2099-01-01")


def past_reads(memory: Memory, known: list[Any]) -> list[dict[str, Any]]:
    return [reads(memory, at, k) for at in AS_OF for k in known]


def test_unmerge_restores_both_sides_field_for_field(memory: Memory) -> None:
    dana_twice(memory)
    before = snapshot(memory)
    written = sorted(e.at for e in memory.audit())
    known = [None, written[len(written) // 2], written[-1]]
    past = past_reads(memory, known)
    memory.approve_duplicate("Dana Reyes", "D. Reyes")
    assert memory.entity("D. Reyes").name == "Dana Reyes"
    result = memory.unmerge("D. Reyes")
    assert (result.restored, result.kept) == ("D. Reyes", "Dana Reyes")
    assert result.facts_restored >= 4 and result.observations_restored == 2
    assert result.later_facts == [] and result.later_observations == [] and result.changed_since == []
    assert past_reads(memory, known) == past
    assert without_audit(snapshot(memory)) == without_audit(before)
    assert memory.entity("D. Reyes").name == "D. Reyes"
    assert memory.stats().entities == 10
    assert {(p.canonical, p.other) for p in memory.duplicates()} == {("Dana Reyes", "D. Reyes")}
    assert memory.audit(limit=1)[0].action == "unmerge"


def test_unmerge_after_later_writes_keeps_them_on_the_kept_entity_and_says_so(memory: Memory) -> None:
    dana_twice(memory)
    known = [sorted(e.at for e in memory.audit())[-1]]
    past = past_reads(memory, known)
    memory.alias("Dana Reyes", "D. Reyes")
    later = memory.upsert([Triple(subject="D. Reyes", predicate="LIKES", object="Coffee", valid_at="2024-01-01"),
                           Triple(subject="Dana Reyes", predicate="WORKS_AT", object="Initech",
                                  valid_at="2024-02-01")])
    assert later.created >= 2
    memory.observe("Dana Reyes", ["Moved teams"])
    result = memory.unmerge("d. reyes")
    assert len(result.later_facts) >= 2 and len(result.later_observations) == 1
    assert "stayed on 'Dana Reyes'" in str(result)
    assert {f.object for f in memory.facts("Dana Reyes", "LIKES")} == {"Coffee"}
    assert {f.object for f in memory.facts("Dana Reyes", "WORKS_AT")} == {"Initech"}
    assert {f.object for f in memory.facts("D. Reyes", "LIKES")} == {"Tea"}
    assert {f.object for f in memory.facts("D. Reyes", "WORKS_AT")} == {"Acme"}
    assert [o.text for o in memory.observations("Dana Reyes")] == ["Speaks Spanish", "Moved teams"]
    # What was believed before the merge reads the same, but for when the later writes ended beliefs they changed
    assert result.changed_since
    assert ended_later(past_reads(memory, known), result.changed_since) == ended_later(past, result.changed_since)


def ended_later(found: list[dict[str, Any]], changed: list[str]) -> list[dict[str, Any]]:
    """Reads with the belief end of the records later writes changed left out."""
    def strip(fact: str) -> str:
        return re.sub(r'"expired_at":"[^"]*"', '"expired_at":null', fact) if any(i in fact for i in changed) else fact
    return [{name: {part: [strip(f) for f in facts] for part, facts in answer.items()}
             for name, answer in read.items()} for read in found]


def test_an_entity_aliased_to_a_name_the_store_never_saw_can_be_unmerged(memory: Memory) -> None:
    # The alias call creates its canonical entity: a merge into an entity of the same write.
    memory.upsert(Triple(subject="Ann", predicate="LIVES_IN", object="Paris", valid_at="2020-01-01"))
    assert memory.alias("Annie", "Ann").merged
    assert [(f.subject, f.object) for f in memory.facts("Ann")] == [("Annie", "Paris")]
    assert memory.unmerge("Ann").restored == "Ann"
    assert [(f.subject, f.object) for f in memory.facts("Ann")] == [("Ann", "Paris")]


def test_unmerge_refuses_what_it_cannot_undo(memory: Memory) -> None:
    dana_twice(memory)
    with pytest.raises(InvalidInputError):
        memory.unmerge("Dana Reyes")
    with pytest.raises(NotFoundError):
        memory.unmerge("Nobody")
    memory.alias("Dana Reyes", "D. Reyes")
    memory.alias("Carol", "Dana Reyes")
    with pytest.raises(InvalidInputError, match="unmerge"):
        memory.unmerge("D. Reyes")
    memory.unmerge("Dana Reyes")
    assert memory.unmerge("D. Reyes").restored == "D. Reyes"


def test_unmerge_works_after_export_and_import(make_memory: Callable[..., Memory]) -> None:
    memory = make_memory()
    dana_twice(memory)
    before = without_audit(snapshot(memory))
    memory.alias("Dana Reyes", "D. Reyes")
    copy = make_memory()
    copy.import_(list(memory.export()))
    copy.unmerge("D. Reyes")
    assert without_audit(snapshot(copy)) == before


def without_audit(lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [line for line in lines if line["kind"] not in ("audit", "header")]


def test_a_near_identical_observation_confirms_the_one_held_instead_of_being_stored_twice(memory: Memory) -> None:
    [held] = memory.observe("Dana", ["Speaks fluent Spanish."])
    again = memory.observe("Dana", ["speaks  fluent spanish", "SPEAKS FLUENT SPANISH!", "Plays chess"])
    assert [o.text for o in again] == ["Plays chess"]
    assert [o.id for o in again.confirmed] == [held.id]
    assert [o.text for o in memory.observations("Dana")] == ["Speaks fluent Spanish.", "Plays chess"]
    assert memory.observe("Dana", ["Speaks fluent Spanish, natively"]) != []  # more words: a new observation


def test_a_scope_rule_merges_strong_matches_only_when_asked(memory: Memory) -> None:
    memory.upsert(Triple(subject="Dana Reyes", predicate="WORKS_AT", object="Acme", valid_at="2020-01-01"))
    assert memory.rules().merge_duplicates_above is None  # off by default: the next write only warns
    warned = memory.upsert(Triple(subject="D. Reyes", predicate="LIKES", object="Tea", valid_at="2021-01-01"))
    assert warned.possible_duplicates == [] or memory.entity("D. Reyes").name == "D. Reyes"
    memory.set_rules(merge_duplicates_above=0.95)
    result = memory.upsert(Triple(subject="dana_reyes", predicate="WORKS_AT", object="Acme", valid_at="2022-01-01"))
    assert result.aliases_merged == 1 and result.entities_created == 0
    assert [p.canonical for p in result.possible_duplicates] == ["Dana Reyes"]
    assert memory.entity("dana_reyes").name == "Dana Reyes"
    assert {f.subject for f in memory.facts("Dana Reyes", include_history=True)} == {"Dana Reyes"}
    assert memory.audit(limit=1)[0].detail["merged_duplicates"][0]["other_key"] == "dana_reyes"
    weak = memory.upsert(Triple(subject="Reyes", predicate="LIVES_IN", object="Lyon"))
    assert weak.aliases_merged == 0 and memory.entity("Reyes").name == "Reyes"


def test_an_alias_naming_a_new_canonical_entity_merges_and_unmerges(memory: Memory) -> None:
    # The canonical name is new to the scope: the merge creates it (its snapshot found no entity to read before).
    memory.upsert([Triple(subject="Ann Lee", predicate="LIVES_IN", object="Oslo", valid_at="2020-01-01"),
                   Triple(subject="Ann Lee", predicate="LIKES", object="Tea", valid_at="2020-01-01")])
    merged = memory.alias("Annie Lee", "Ann Lee")
    assert merged.merged and merged.facts_moved == 2
    assert {f.object for f in memory.facts("Annie Lee")} == {"Oslo", "Tea"}
    result = memory.unmerge("Ann Lee")
    assert (result.restored, result.kept, result.facts_restored) == ("Ann Lee", "Annie Lee", 2)
    assert {f.object for f in memory.facts("Ann Lee")} == {"Oslo", "Tea"}
    assert memory.facts("Annie Lee") == []
