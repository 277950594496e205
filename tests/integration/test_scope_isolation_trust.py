"""Scope isolation of the trust and audit paths: review, feedback, rejections, the audit log, export.

Scope B is a neighbour of scope A on the same database: its name starts with A's (so a
prefix match would leak) and it uses the same entity names. Whatever B does, including
naming A's fact ids, B never sees or changes anything of A's, and the other way round.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest

from synapse_graph import Fact, Memory, NotFoundError, Triple

pytestmark = pytest.mark.integration

MakeMemory = Callable[..., Memory]
EXTRACTOR = "extractor-model"  # facts a model extracted below the threshold become candidates


def export(memory: Memory) -> list[dict[str, Any]]:
    return sorted((json.loads(line) for line in memory.export()), key=lambda x: json.dumps(x, sort_keys=True))


def ids(lines: list[dict[str, Any]], kind: str) -> set[str]:
    return {x["id"] for x in lines if x["kind"] == kind}


@dataclass
class Trusting:
    """A scope with every trust state: believed, candidate, disputed, a rejection, and its audit log."""

    memory: Memory
    believed: Fact
    candidate: Fact
    disputed: Fact


def populate(memory: Memory) -> Trusting:
    memory.upsert([Triple(subject="Dana", predicate="LIVES_IN", object="Paris", valid_at="2020-01-01"),
                   Triple(subject="Dana", predicate="KNOWS", object="Erin", valid_at="2020-01-01")])
    memory.upsert([Triple(subject="Dana", predicate="WORKS_AT", object="Acme", confidence=0.3),
                   Triple(subject="Dana", predicate="LIKES", object="Jazz", confidence=0.3)], model=EXTRACTOR)
    by_object = {f.object: f for f in memory.pending()}
    memory.reject(by_object["Jazz"], "the user said no")
    [knows] = memory.facts("Dana", "KNOWS")
    disputed = memory.feedback(knows, "wrong")
    [believed] = memory.facts("Dana", "LIVES_IN")
    return Trusting(memory, believed, by_object["Acme"], disputed)


@pytest.fixture
def scope_a(make_memory: MakeMemory) -> Trusting:
    return populate(make_memory())


@pytest.fixture
def scope_b(make_memory: MakeMemory, scope_a: Trusting) -> Trusting:
    return populate(make_memory(scope=f"{scope_a.memory.scope}-{uuid.uuid4().hex[:6]}"))


def test_each_scope_sees_only_its_own_review_queue_and_log(scope_a: Trusting, scope_b: Trusting) -> None:
    a, b = scope_a.memory, scope_b.memory
    assert [f.id for f in a.pending()] == [scope_a.candidate.id]
    assert [f.id for f in b.pending()] == [scope_b.candidate.id]
    a_log, b_log = a.audit(limit=1000), b.audit(limit=1000)
    assert len(a_log) == len(b_log) == 4  # upsert, upsert, reject, feedback
    assert not {e.id for e in a_log} & {e.id for e in b_log}
    a_lines, b_lines = export(a), export(b)
    for mine, theirs in ((a_lines, b_lines), (b_lines, a_lines)):
        facts = ids(mine, "fact")
        logged = {f for x in mine if x["kind"] == "audit" for f in x["facts"]}
        assert logged <= facts, "an audit entry names a record of another scope"
        assert not facts & ids(theirs, "fact") and not ids(mine, "audit") & ids(theirs, "audit")
        assert len([x for x in mine if x["kind"] == "rejection"]) == 1
        assert {x["status"] for x in mine if x["kind"] == "fact" and x["expired_at"] is None} == {
            "believed", "candidate", "disputed"}
    assert [e.action for e in b.audit("Dana")] == [e.action for e in b_log]
    assert a.stats().candidates == b.stats().candidates == 1
    assert a.facts("Dana", include_disputed=True) != b.facts("Dana", include_disputed=True)


@pytest.mark.parametrize(
    "act",
    [
        pytest.param(lambda b, a: b.approve(a.candidate.id), id="approve-candidate"),
        pytest.param(lambda b, a: b.approve(a.candidate), id="approve-candidate-object"),
        pytest.param(lambda b, a: b.reject(a.candidate.id, "not yours"), id="reject-candidate"),
        pytest.param(lambda b, a: b.feedback(a.believed.id, "wrong"), id="feedback-believed"),
        pytest.param(lambda b, a: b.feedback(a.disputed, "helpful"), id="feedback-disputed"),
        pytest.param(lambda b, a: b.feedback(a.candidate.id, "stale"), id="feedback-candidate"),
    ],
)
def test_acting_on_another_scopes_fact_ids_raises_and_changes_nothing(
    scope_a: Trusting, scope_b: Trusting, act: Callable[[Memory, Trusting], object]
) -> None:
    a, b = scope_a.memory, scope_b.memory
    before = export(a), export(b)
    with pytest.raises(NotFoundError, match="no current fact"):
        act(b, scope_a)
    assert (export(a), export(b)) == before  # not even an audit entry in B
    a.approve(scope_a.candidate)  # A's candidate is still A's to review
    assert [f.object for f in a.facts("Dana", "WORKS_AT")] == ["Acme"]
    assert b.facts("Dana", "WORKS_AT") == []


def test_review_and_feedback_in_one_scope_leave_the_other_alone(scope_a: Trusting, scope_b: Trusting) -> None:
    a, b = scope_a.memory, scope_b.memory
    before = export(a)
    b.approve(scope_b.candidate)
    b.feedback(scope_b.disputed, "helpful")
    b.feedback(scope_b.believed, "stale")
    b.upsert(Triple(subject="Dana", predicate="HAS_ROLE", object="Lead", confidence=0.2), model=EXTRACTOR)
    [new] = b.pending()
    b.reject(new, "no")
    assert export(a) == before
    assert [f.id for f in a.pending()] == [scope_a.candidate.id]
    assert len(a.audit(limit=1000)) == 4 and len(b.audit(limit=1000)) == 9


def test_a_rejection_flags_only_its_own_scope(scope_a: Trusting, make_memory: MakeMemory) -> None:
    a = scope_a.memory
    c = make_memory(scope=f"{a.scope}-{uuid.uuid4().hex[:6]}")
    # A rejected (Dana, LIKES, Jazz): written again in A it comes back as a flagged candidate...
    a.upsert(("Dana", "LIKES", "Jazz"))
    [flagged] = a.pending()[-1:]
    assert (flagged.object, flagged.status) == ("Jazz", "candidate") and "the user said no" in (flagged.flag or "")
    # ...but in another scope the same fact is simply believed, and nothing there mentions the rejection.
    c.upsert(("Dana", "LIKES", "Jazz"))
    assert c.pending() == []
    [fact] = c.facts("Dana", "LIKES")
    assert (fact.status, fact.flag) == ("believed", None)
    assert not [x for x in export(c) if x["kind"] == "rejection"]
    assert "the user said no" not in "\n".join(c.export())


def test_purging_one_scope_keeps_the_others_log_and_rejections(scope_a: Trusting, scope_b: Trusting) -> None:
    a, b = scope_a.memory, scope_b.memory
    before = export(a)
    b.purge(scope=b.scope)
    assert export(a) == before
    assert b.audit() == [] and b.pending() == [] and [x["kind"] for x in export(b)] == ["header"]
    # Purging an entity in A erases its audit entries and rejections in A only.
    b2 = populate(b)
    b_before = export(b2.memory)
    a.purge("Dana")
    assert not [x for x in export(a) if x["kind"] in ("fact", "rejection")]
    assert export(b2.memory) == b_before


def test_import_restores_log_and_rejections_into_its_own_scope_only(scope_a: Trusting, make_memory: MakeMemory) -> None:
    a = scope_a.memory
    before = export(a)
    c = make_memory(scope=f"{a.scope}-{uuid.uuid4().hex[:6]}")
    c.import_(a.export())
    assert export(a) == before
    restored = export(c)
    assert ids(restored, "fact") == ids(before, "fact")  # records keep their ids...
    assert [f.id for f in c.pending()] == [scope_a.candidate.id]
    c.approve(scope_a.candidate.id)  # ...and approving in C changes C's copy only
    assert [f.id for f in a.pending()] == [scope_a.candidate.id]
    assert export(a) == before
    assert len([x for x in restored if x["kind"] == "rejection"]) == 1
    with pytest.raises(NotFoundError):
        a.feedback(c.facts("Dana", "WORKS_AT")[0].id, "wrong")  # C's new record is not A's
    assert export(a) == before
