"""The reads the web inspector's overview, review and audit pages need, on both backends and both APIs.

``Memory.growth`` is checked against the store's own export (every record with when it was recorded and
expired): each point must count exactly what had been recorded at or before it and not expired by it.
The audit log's filters and pages are checked against the whole log read at once.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from synapse_graph import Growth, InvalidInputError, Memory, Triple

pytestmark = pytest.mark.integration

MakeMemory = Callable[..., Memory]
EXTRACTOR = "extractor-model"  # facts a model extracted below the threshold become candidates


def _time(text: str | None) -> datetime | None:
    return None if text is None else datetime.fromisoformat(text.replace("Z", "+00:00"))


def expected_at(lines: list[dict[str, Any]], at: datetime) -> dict[str, int]:
    """What the scope held at ``at``, counted from its export."""
    counts = dict.fromkeys(("facts", "candidates", "entities", "observations"), 0)
    for line in lines:
        if line["kind"] == "entity":
            counts["entities"] += _time(line["created_at"]) <= at  # type: ignore[operator]
        elif line["kind"] in ("fact", "observation"):
            made, gone = _time(line["recorded_at"]), _time(line["expired_at"])
            if made <= at and (gone is None or gone > at):  # type: ignore[operator]
                kind = "observations" if line["kind"] == "observation" else (
                    "candidates" if line.get("status") == "candidate" else "facts")
                counts[kind] += 1
    return counts


def story(memory: Memory) -> None:
    """Writes spread over recorded time: a move (a superseded record), a candidate, an observation forgotten."""
    memory.upsert(Triple(subject="Dana", predicate="LIVES_IN", object="Paris", valid_at="2020-01-01"))
    time.sleep(0.02)
    memory.upsert(Triple(subject="Dana", predicate="LIVES_IN", object="Rome", valid_at="2021-01-01"))
    time.sleep(0.02)
    memory.observe("Dana", ["Speaks Italian", "Owns a bike"])
    time.sleep(0.02)
    memory.upsert(Triple(subject="Dana", predicate="WORKS_AT", object="Acme", confidence=0.3), model=EXTRACTOR)
    time.sleep(0.02)
    memory.unobserve("Dana", ["Owns a bike"])
    memory.upsert(Triple(subject="Erin", predicate="KNOWS", object="Dana"))


def test_growth_counts_what_the_store_held_at_each_point(memory: Memory) -> None:
    assert memory.growth().points == []  # nothing recorded yet: no chart
    story(memory)
    lines = [json.loads(line) for line in memory.export()]
    growth = memory.growth(steps=25)
    assert isinstance(growth, Growth) and len(growth.points) == 25
    assert growth.since == min(_time(x["at"]) for x in lines if x["kind"] == "audit")
    for point in growth.points:
        held = point.model_dump(exclude={"at"})
        assert held == expected_at(lines, point.at), point.at
    assert [p.entities for p in growth.points] == sorted(p.entities for p in growth.points)
    first, last = growth.points[0], growth.points[-1]
    assert (first.facts, first.entities) == (1, 2)  # the first write alone
    stats = memory.stats()
    assert (last.facts, last.candidates, last.entities, last.observations) == (
        stats.facts, stats.candidates, stats.entities, stats.observations) == (3, 1, 5, 1)
    assert last.at >= growth.until  # type: ignore[operator]


def test_growth_between_given_times_and_bad_arguments(memory: Memory) -> None:
    story(memory)
    lines = [json.loads(line) for line in memory.export()]
    audit = sorted(_time(x["at"]) for x in lines if x["kind"] == "audit")
    since, until = audit[1], audit[-2]
    growth = memory.growth(steps=3, since=since, until=until)
    assert growth.points[0].at == since and growth.points[-1].at >= until
    for point in growth.points:
        assert point.model_dump(exclude={"at"}) == expected_at(lines, point.at)
    before = memory.growth(steps=2, since=since - timedelta(days=1), until=since - timedelta(hours=1))
    assert all(p.facts == p.entities == 0 for p in before.points)
    for bad in ({"steps": 1}, {"steps": 1_001}, {"steps": "10"}, {"since": until, "until": since},
                {"since": "not a time"}):
        with pytest.raises(InvalidInputError):
            memory.growth(**bad)  # type: ignore[arg-type]


def test_audit_filters_and_pages(make_memory: MakeMemory) -> None:
    memory = make_memory(client="agent-a")
    other = make_memory(scope=memory.scope, client="agent-b")
    memory.upsert(Triple(subject="Dana", predicate="LIVES_IN", object="Paris"))
    other.upsert(Triple(subject="Erin", predicate="KNOWS", object="Dana"))
    memory.observe("Erin", ["Plays chess"])
    [knows] = memory.facts("Erin", "KNOWS")
    other.feedback(knows, "stale")
    memory.feedback(knows, "helpful")
    everything = memory.audit()
    assert [e.action for e in everything] == ["feedback:helpful", "feedback:stale", "observe", "upsert", "upsert"]

    assert [e.action for e in memory.audit(action="feedback")] == ["feedback:helpful", "feedback:stale"]
    assert [e.action for e in memory.audit(action="feedback:stale")] == ["feedback:stale"]
    assert memory.audit(action="feed") == []  # a kind is a whole word before ':', not a prefix
    assert [e.id for e in memory.audit(client="agent-b")] == [e.id for e in everything if e.client == "agent-b"]
    assert [e.action for e in memory.audit("Erin", client="agent-a")] == ["feedback:helpful", "observe"]
    assert memory.audit(session="no-such-session") == []
    middle = everything[2].at
    assert [e.id for e in memory.audit(since=middle)] == [e.id for e in everything[:3]]
    assert [e.id for e in memory.audit(until=middle)] == [e.id for e in everything[3:]]

    pages, after = [], None
    while True:
        page = memory.audit(limit=2, after=after) if after is not None else memory.audit(limit=2)
        pages.append(page)
        if len(page) < 2:
            break
        after = page[-1]
    assert [e.id for page in pages for e in page] == [e.id for e in everything]
    from synapse_graph.rules.cursors import audit_cursor

    cursor = audit_cursor(everything[1].at, everything[1].id)
    assert [e.id for e in memory.audit(after=cursor)] == [e.id for e in everything[2:]]
    for bad in ({"after": "e1.bm90LWEtY3Vyc29y"}, {"after": 12}, {"action": ""}, {"client": 3}, {"since": []},
                {"colour": "red"}):
        with pytest.raises(InvalidInputError):
            memory.audit(**bad)  # type: ignore[arg-type]


def test_audit_in_brief_cuts_each_entrys_lists_and_counts_them(memory: Memory) -> None:
    """``audit(brief=n)``: the same entries as the whole log, each with its first n entities and records and
    their exact counts, its detail left out (a hub's page of bulk writes names tens of thousands)."""
    memory.upsert([Triple(subject="Hub", predicate="KNOWS", object=f"Person {i:02d}") for i in range(40)])
    memory.upsert(Triple(subject="Hub", predicate="LIVES_IN", object="Paris", valid_at="2020-01-01"))
    memory.upsert(Triple(subject="Hub", predicate="LIVES_IN", object="Rome", valid_at="2022-01-01"))
    whole, brief = memory.audit("Hub"), memory.audit("Hub", brief=3)
    assert [e.id for e in brief] == [e.id for e in whole] and len(whole) == 3
    for short, full in zip(brief, whole, strict=True):
        assert short.brief and not full.brief and short.detail == {} and full.detail
        assert short.entities == full.entities[:3] and short.facts == full.facts[:3]
        assert (short.entity_count, short.fact_count) == (len(full.entities), len(full.facts))
        assert (full.entity_count, full.fact_count) == (len(full.entities), len(full.facts))
    assert (brief[-1].entity_count, brief[-1].fact_count) == (41, 40)
    assert [str(e) for e in memory.audit("Hub", brief=5)] == [str(e) for e in whole]  # a line names five
    assert brief[0].fact_count == len(whole[0].facts) >= 2  # Rome created, Paris's interval ended
    with pytest.raises(InvalidInputError):
        memory.audit(brief=0)
    lines = [json.loads(line) for line in memory.export()]
    logged = [line for line in lines if line["kind"] == "audit"]
    assert logged and all(not {"entity_count", "fact_count", "brief"} & set(line) for line in logged)  # as before
    header = lines[0]
    line = {"kind": "audit", **brief[0].model_dump(mode="json")}
    with pytest.raises(InvalidInputError, match="brief"):
        memory.import_([json.dumps(header), json.dumps(line)])


def test_pending_with_disputed_facts(memory: Memory) -> None:
    memory.upsert([Triple(subject="Dana", predicate="LIVES_IN", object="Paris"),
                   Triple(subject="Dana", predicate="KNOWS", object="Erin")])
    memory.upsert(Triple(subject="Dana", predicate="WORKS_AT", object="Acme", confidence=0.3), model=EXTRACTOR)
    [knows] = memory.facts("Dana", "KNOWS")
    memory.feedback(knows, "wrong")
    [candidate] = memory.pending()
    assert candidate.object == "Acme" and candidate.status == "candidate"
    both = memory.pending(include_disputed=True)
    assert sorted((f.object, f.status) for f in both) == [("Acme", "candidate"), ("Erin", "disputed")]
    assert [f.object for f in memory.pending(include_disputed=True, limit=1)] == [both[0].object]
    memory.feedback(knows, "helpful")  # helpful ends the dispute
    assert [f.object for f in memory.pending(include_disputed=True)] == ["Acme"]
    assert datetime.now(UTC) - both[0].recorded_at < timedelta(minutes=5)


def test_recalled_facts_say_which_words_of_the_question_they_answer(memory: Memory) -> None:
    memory.upsert([Triple(subject="Dana Reyes", predicate="WORKS_AT", object="Acme Robotics"),
                   Triple(subject="Dana Reyes", predicate="LIVES_IN", object="Lisbon")])
    recall = memory.recall("where does Dana work and which robotics company")
    by_object = {f.object: f for f in recall.facts}
    # "company" names nothing stored; "work" names WORKS_AT; "dana" the subject (and the entry of LIVES_IN)
    assert by_object["Acme Robotics"].words == ["dana", "work", "robotics"]
    assert by_object["Lisbon"].words == ["dana"]
    for fact in recall.facts:
        assert fact.score == pytest.approx(len(fact.words) / 4)


def test_reviews_are_audited_with_the_reviewer_as_their_client(make_memory: MakeMemory) -> None:
    writer = make_memory(client="extractor-agent")
    reviewer = make_memory(scope=writer.scope, client="reviewer")
    writer.upsert([Triple(subject="Dana", predicate="LIKES", object="Jazz", confidence=0.3),
                   Triple(subject="Dana", predicate="PLAYS", object="Chess", confidence=0.3)], model=EXTRACTOR,
                  source="chat")
    jazz, chess = sorted(writer.pending(), key=lambda f: f.object == "Chess")
    reviewer.approve(jazz)
    reviewer.reject(chess, "she never plays")
    approved, rejected = reviewer.audit(action="approve")[0], reviewer.audit(action="reject")[0]
    assert (approved.client, rejected.client) == ("reviewer", "reviewer")
    assert (approved.model, approved.source) == (EXTRACTOR, "chat")  # what was approved keeps its provenance
    [believed] = writer.facts("Dana", "LIKES")
    assert (believed.client, believed.model, believed.source) == ("extractor-agent", EXTRACTOR, "chat")


def test_last_write_moves_with_every_change_and_only_then(memory: Memory) -> None:
    assert memory.last_write() is None
    memory.upsert(Triple(subject="Dana", predicate="LIVES_IN", object="Paris"))
    first = memory.last_write()
    assert first is not None and first == memory.audit(limit=1)[0].at
    memory.facts("Dana")
    memory.stats()
    memory.alias("Dana", "Dana")  # changes nothing
    assert memory.last_write() == first
    [fact] = memory.facts("Dana")
    memory.feedback(fact, "helpful")
    second = memory.last_write()
    assert second is not None and second > first and second == memory.audit(limit=1)[0].at
    memory.purge("Dana")
    third = memory.last_write()
    assert third is not None and third > second


def test_a_limit_no_database_can_take_is_bad_input(memory: Memory) -> None:
    memory.upsert(Triple(subject="Dana", predicate="LIVES_IN", object="Paris"))
    calls = [lambda: memory.facts("Dana", limit=2**63 - 1), lambda: memory.observations(limit=2**63),
             lambda: memory.recall("where does Dana live", limit=2**64), lambda: memory.pending(limit=2**70),
             lambda: memory.audit(limit=2**64)]
    for call in calls:
        with pytest.raises(InvalidInputError, match="limit must be from 1 to"):
            call()
    assert [f.object for f in memory.facts("Dana", limit=1_000_000_000)] == ["Paris"]
    assert [f.object for f in memory.recall("where does Dana live", limit=1_000_000_000).facts] == ["Paris"]
