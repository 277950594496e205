"""What changed: ``changes`` between two recorded times (what was learned and unlearned, who did it and why) and
``diff`` between two valid times, on both backends and both APIs."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

import pytest

from synapse_graph import InvalidInputError, InvalidTimeError, Memory, Triple
from synapse_graph.models.changes import Change
from tests.integration.helpers import raw_cypher, utc, words


def now() -> datetime:
    return datetime.now(UTC)


def story(memory: Memory) -> datetime:
    """Dana's year in the memory; returns when it began."""
    start = now()
    memory.upsert(Triple(subject="Dana", predicate="LIVES_IN", object="Paris", valid_at="2019-01-01"),
                  source="chat 1", session="s-1")
    memory.upsert([Triple(subject="Dana", predicate="WORKS_AT", object="Acme", valid_at="2020-01-01"),
                   Triple(subject="Bob", predicate="KNOWS", object="Dana", valid_at="2020-01-01")], source="chat 2")
    memory.upsert(Triple(subject="Dana", predicate="LIVES_IN", object="London", valid_at="2022-09-15"),
                  source="chat 3")
    memory.retract("Dana", "WORKS_AT", at="2024-01-31")
    memory.upsert(Triple(subject="Dana", predicate="LIKES", object="Tea", confidence=0.3), model="extractor")
    memory.approve(memory.pending()[0])
    memory.upsert(Triple(subject="Dana", predicate="LIKES", object="Jazz", confidence=0.3), model="extractor")
    memory.reject(memory.pending()[0], "she said no")
    memory.observe("Dana", ["Speaks Spanish"])
    memory.unobserve("Dana", ["Speaks Spanish"])
    return start


def described(memory: Memory, since: datetime, **asked: object) -> list[tuple[object, ...]]:
    page = memory.changes(since, **asked)  # type: ignore[arg-type]
    return [(c.kind, *((c.fact.subject, c.fact.predicate, c.fact.object) if c.fact else ()),
             *((c.observation.text,) if c.observation else ()), *c.entities) for c in page.changes]


def test_changes_say_what_was_learned_and_unlearned_with_who_and_why(memory: Memory) -> None:
    start = story(memory)
    page = memory.changes(start)
    assert page.next is None and page.since == start
    kinds = [(c.kind, c.fact.object if c.fact else c.observation.text if c.observation else None)
             for c in page.changes]
    assert sorted(kinds[:3], key=str) == [("added", "Acme"), ("added", "Dana"), ("added", "Paris")]
    assert sorted(kinds[3:5], key=str) == [("added", "London"), ("ended", "Paris")]
    assert kinds[5:] == [("ended", "Acme"), ("added", "Tea"), ("approved", "Tea"), ("added", "Jazz"),
                         ("rejected", "Jazz"), ("observed", "Speaks Spanish"), ("forgotten", "Speaks Spanish")]
    assert [c.at for c in page.changes] == sorted(c.at for c in page.changes)
    by = {(c.kind, c.fact.object if c.fact else None): c for c in page.changes}
    paris = by[("ended", "Paris")]
    assert (paris.why, paris.superseded_by.object, paris.fact.invalid_at) == (  # type: ignore[union-attr]
        "superseded", "London", utc("2022-09-15"))
    assert [(b.object, b.invalid_at) for b in paris.before] == [("Paris", None)]
    assert (paris.source, paris.client) == ("chat 3", "synapse-graph")
    added = by[("added", "Paris")]
    assert (added.source, added.session, added.action) == ("chat 1", "s-1", "upsert")
    acme = by[("ended", "Acme")]
    assert (acme.why, acme.action, acme.client, acme.fact.invalid_at) == (  # type: ignore[union-attr]
        "retracted", "retract", "synapse-graph", utc("2024-01-31"))
    assert by[("approved", "Tea")].before[0].status == "candidate"
    assert (by[("rejected", "Jazz")].why, by[("added", "Jazz")].model) == ("she said no", "extractor")
    assert "superseded by London" in str(paris)


def test_changes_between_two_times_by_entity_and_predicate_and_in_pages(memory: Memory) -> None:
    start = story(memory)
    middle = memory.facts("Dana", "LIVES_IN")[0].recorded_at  # London's write
    assert described(memory, start, until=middle) == described(memory, start)[:3]
    assert [d[0] for d in described(memory, middle)][:2] in (["added", "ended"], ["ended", "added"])
    lives = described(memory, start, predicate="LIVES_IN")
    assert lives[0] == ("added", "Dana", "LIVES_IN", "Paris") and lives[1:] == described(
        memory, middle, predicate="LIVES_IN")
    assert sorted(lives[1:]) == [("added", "Dana", "LIVES_IN", "London"), ("ended", "Dana", "LIVES_IN", "Paris")]
    assert {d[1:] for d in described(memory, start, entity="Bob")} == {("Bob", "KNOWS", "Dana")}
    assert described(memory, start, entity="Nobody") == []
    whole = memory.changes(start)
    pages, after = [], None
    while True:
        page = memory.changes(start, limit=2, after=after)
        assert len(page.changes) <= 2
        pages += page.changes
        if page.next is None:
            break
        after = page.next
    assert pages == whole.changes
    for bad in ("nonsense", "1.ab", "1.a.b", 12):
        with pytest.raises(InvalidInputError, match="after"):
            memory.changes(start, after=bad)  # type: ignore[arg-type]
    with pytest.raises(InvalidTimeError):
        memory.changes(start, until=start)
    with pytest.raises(InvalidInputError):
        memory.changes(start, limit=0)


def test_merges_feedback_and_a_purge_in_the_changes(memory: Memory) -> None:
    start = story(memory)
    memory.upsert(Triple(subject="D. Smith", predicate="LIVES_IN", object="Berlin", valid_at="2023-05-01"))
    merge_at = now()
    memory.alias("Dana", "D. Smith")
    memory.feedback(memory.facts("Dana", "LIVES_IN")[0], "wrong")
    assert described(memory, merge_at) == [
        ("merged", "D. Smith", "Dana"), ("ended", "Dana", "LIVES_IN", "London"),
        ("feedback", "Dana", "LIVES_IN", "Berlin")]
    [merged] = memory.changes(merge_at).changes[:1]
    assert merged.action == "alias"
    # The purged entity appears in no change, nor in the log; what the same writes did to others stays.
    memory.purge("Bob")
    after = memory.changes(start)
    text = words(json.dumps([c.model_dump(mode="json") for c in after.changes]))
    assert "bob" not in text
    assert ("added", "Dana", "WORKS_AT", "Acme") in described(memory, start)  # written with Bob's fact
    assert after.changes[-1].kind == "purged" and after.changes[-1].entities == []
    assert "bob" not in words(json.dumps([e.model_dump(mode="json") for e in memory.audit(limit=1_000)]))
    assert described(memory, start, entity="Bob") == []


def test_an_interval_two_merged_records_held_is_removed_once(memory: Memory) -> None:
    """Dan lives in Bob and Bob in Bob, each from one instant: merged (SAME_AS in the batch), both records are one
    interval, Dan in Dan, which the batch's new value from that instant replaces: one change says it, not one per
    record (found by the stateful model test)."""
    memory.upsert([("Dan", "LIVES_IN", "Bob"), ("Bob", "LIVES_IN", "Bob")], valid_at="2020-01-01")
    merge_at = now()
    memory.upsert([Triple(subject="Dan", predicate="SAME_AS", object="Bob"),
                   Triple(subject="Bob", predicate="LIVES_IN", object="Eve", valid_at="2020-01-01")])
    changes = memory.changes(merge_at).changes
    assert sorted(described(memory, merge_at)) == [
        ("added", "Dan", "LIVES_IN", "Eve"), ("merged", "Bob", "Dan"), ("removed", "Dan", "LIVES_IN", "Dan")]
    [removed] = [c for c in changes if c.kind == "removed"]
    assert (removed.why, removed.superseded_by.object) == ("superseded", "Eve")  # type: ignore[union-attr]


def test_diff_gives_what_began_and_what_ended_between_two_valid_times(memory: Memory) -> None:
    story(memory)
    known = now()
    memory.upsert(Triple(subject="Dana", predicate="LIVES_IN", object="Berlin", valid_at="2023-05-01"))
    diff = memory.diff("2020-01-01", "2024-12-31")
    assert [(f.object, f.valid_at) for f in diff.began] == [
        ("London", utc("2022-09-15")), ("Berlin", utc("2023-05-01"))]
    assert [(f.object, f.invalid_at) for f in diff.ended] == [
        ("Paris", utc("2022-09-15")), ("London", utc("2023-05-01")), ("Acme", utc("2024-01-31"))]
    assert [x.object for x in diff.began[1].replaces] == ["London"]  # type: ignore[union-attr]
    # As known before Berlin: London had not ended.
    before = memory.diff("2020-01-01", "2024-12-31", known_at=known)
    assert [f.object for f in before.began] == ["London"]
    assert [f.object for f in before.ended] == ["Paris", "Acme"]
    # Of one entity; both ends of the period: a excluded, b included.
    assert [f.object for f in memory.diff("2022-09-15", "2023-05-01", entity="dana").began] == ["Berlin"]
    assert [f.object for f in memory.diff("2022-09-14", "2022-09-15", entity="London").began] == ["London"]
    assert memory.diff("2020-01-01", "2024-12-31", entity="Nobody").began == []
    with pytest.raises(InvalidTimeError, match="swap"):
        memory.diff("2024-01-01", "2020-01-01")


def test_pages_of_one_change_walk_every_write(memory: Memory) -> None:
    # A page of one read the entry of its cursor again and nothing after it: the same page forever.
    memory.upsert(("Dana", "LIVES_IN", "Paris"))
    start = memory.facts("Dana", "LIVES_IN")[0].recorded_at
    memory.upsert(("Dana", "LIKES", "Tea"))
    memory.upsert(("Dana", "KNOWS", "Eli"))
    seen, after = [], None
    for _ in range(10):
        page = memory.changes(start, limit=1, after=after)
        seen += [c.fact.object for c in page.changes if c.fact is not None]
        after = page.next
        if after is None:
            break
    assert seen == ["Paris", "Tea", "Eli"]


def walked(memory: Memory, since: datetime, limit: int) -> list[Change]:
    """Every change since ``since``, page by page."""
    changes: list[Change] = []
    after = None
    while True:
        page = memory.changes(since, limit=limit, after=after)
        changes += page.changes
        if page.next is None:
            return changes
        after = page.next


def test_a_page_of_verdicts_stored_by_the_writes_is_the_page_judged_when_read(plain: Memory) -> None:
    """Writes store what their events were on their audit entries (an added fact, a feedback): a page reads those
    events' records by id and judges the rest. Taken off (as an older library wrote them), every page is judged
    when read: the same changes, in the same pages. A verdict naming a record that is gone is judged too."""
    memory = plain
    start = story(memory)
    memory.upsert([Triple(subject=f"Guest {i}", predicate="VISITED", object="Paris", valid_at="2021-01-01")
                   for i in range(40)] + [Triple(subject="Dana", predicate="LIVES_IN", object="Rome",
                                                 valid_at="2023-01-01")], source="batch")
    memory.upsert(Triple(subject="D. Smith", predicate="LIVES_IN", object="Berlin", valid_at="2023-05-01"))
    memory.alias("Dana", "D. Smith")
    memory.feedback(memory.facts("Dana", "LIVES_IN")[0], "wrong")
    memory.purge("Bob")
    [gone] = [f for f in memory.facts("Guest 7") if f.predicate == "VISITED"]
    raw_cypher(memory, "MATCH ()-[r:FACT {id: $id}]->() DELETE r RETURN count(*) AS n", id=gone.id)
    stored = raw_cypher(memory, "MATCH (x:Audit {scope: $scope}) WHERE x.verdicts IS NOT NULL "
                                "RETURN x.verdicts AS verdicts", scope=memory.scope)
    codes = "".join(row["verdicts"] for row in stored)
    assert len(stored) >= 5 and {"a", "e", "x", "f"} <= set(codes)  # added, ended, no change, feedback
    pages = {limit: walked(memory, start, limit) for limit in (1_000, 7, 1)}
    by_entity = memory.changes(start, entity="Dana").changes
    by_predicate = memory.changes(start, predicate="VISITED").changes
    assert len(by_predicate) == 39 and "Guest 7" not in {c.fact.subject for c in by_predicate if c.fact}

    raw_cypher(memory, "MATCH (x:Audit {scope: $scope}) WHERE x.verdicts IS NOT NULL SET x.verdicts = null, "
                       "x.verdict_records = null, x.verdict_before = null, x.verdict_by = null, x.verdict_why = null "
                       "RETURN count(x) AS n", scope=memory.scope)
    assert {limit: walked(memory, start, limit) for limit in pages} == pages
    assert len(pages[1_000]) > 50 and pages[1] == pages[1_000]
    assert memory.changes(start, entity="Dana").changes == by_entity
    assert memory.changes(start, predicate="VISITED").changes == by_predicate


def test_a_change_shows_its_record_as_facts_reads_it_every_field(plain: Memory) -> None:
    """A change's facts are the records as ``facts`` read them right after its write, field for field (values a
    write leaves absent read as their defaults: confidence 1, one confirmation, believed, not pinned): a later
    confirmation, pin or end does not rewrite what an earlier change shows, with and without an entity filter.
    An entry that stores no values of its records (written before store format 16) shows them as they are now."""
    memory = plain
    start = now()
    after: list[tuple[datetime, dict[str, object]]] = []  # the records as each write left them

    def written() -> None:
        after.append((now(), {f.id: f.model_copy(update={"replaces": None, "replaced_by": None})
                              for subject in ("Dana", "Ann")
                              for f in memory.facts(subject, include_history=True, include_candidates=True)}))

    memory.upsert(Triple(subject="Dana", predicate="LIVES_IN", object="Paris", valid_at="2019-01-01"),
                  source="chat 1", session="s-1")
    written()
    memory.upsert(Triple(subject="Dana", predicate="LIKES", object="Tea", confidence=0.37), model="extractor")
    written()
    for _ in range(2):  # confirmed once
        memory.upsert(Triple(subject="Ann", predicate="KNOWS", object="Dana", valid_at="2020-01-01"))
        written()
    memory.pin(memory.facts("Ann", "KNOWS")[0])
    memory.upsert(Triple(subject="Dana", predicate="LIVES_IN", object="London", valid_at="2022-09-15"))
    written()
    held = after[-1][1]

    def shown(**asked: object) -> list[tuple[datetime, Any]]:
        page = memory.changes(start, **asked)  # type: ignore[arg-type]
        return [(c.at, f) for c in page.changes for f in (c.fact, c.superseded_by, *c.before) if f is not None]

    unfiltered, by_entity = shown(), shown(entity="Ann")
    compared = [(f, left[f.id]) for at, f in unfiltered if f.id in (left := next(m for t, m in after if t >= at))]
    assert len(compared) >= 5 and all(f == left for f, left in compared)
    assert {(f.confidence, f.confirmations, f.status, f.pinned) for f, _ in compared} == {
        (1.0, 1, "believed", False), (0.37, 1, "candidate", False)}
    assert by_entity and all(f in unfiltered for f in by_entity)
    raw_cypher(memory, "MATCH (x:Audit {scope: $scope}) WHERE x.verdicts IS NOT NULL SET x.verdicts = null, "
                       "x.verdict_records = null, x.verdict_before = null, x.verdict_by = null, x.verdict_why = null, "
                       "x.verdict_values = null RETURN count(x) AS n", scope=memory.scope)
    judged = shown()
    assert [(at, f.id) for at, f in judged] == [(at, f.id) for at, f in unfiltered]
    assert all(f == held[f.id].model_copy(update={"expired_at": None if f.expired_at is None else at})
               for at, f in judged if f.id in held)
    assert {(f.confirmations, f.pinned) for _, f in judged} >= {(2, True)}


def test_stored_values_give_way_to_the_records_after_a_merge_an_unmerge_and_an_erasure(plain: Memory) -> None:
    """A write's entry keeps what its changes show of their records (store format 16), and a page shows that
    while it still describes them. A merge renames and moves records, an unmerge moves them back, an erasure
    deletes them: after each, every earlier change is shown exactly as the records say (as a page that reads them
    all by id shows it): the merged name, the restored one, and no erased name."""
    memory = plain
    start = now()
    memory.upsert(Triple(subject="Dana", predicate="LIKES", object="Tea"))
    memory.upsert(Triple(subject="D. Smith", predicate="LIVES_IN", object="Paris", valid_at="2019-01-01"))
    memory.upsert(Triple(subject="D. Smith", predicate="LIVES_IN", object="London", valid_at="2022-09-15"))
    memory.upsert([Triple(subject="Ann", predicate="KNOWS", object="Bob"),
                   Triple(subject="Ann", predicate="WORKS_AT", object="Acme")])
    kept = "MATCH (x:Audit {scope: $scope}) WHERE x.verdict_values IS NOT NULL RETURN x.id AS id, x.verdict_values AS v"
    stored = raw_cypher(memory, kept, scope=memory.scope)
    assert len(stored) >= 4  # each of the writes above

    def as_read() -> list[Change]:
        """The page as it is, checked against the page that reads every record (the values put back after)."""
        page = memory.changes(start, limit=1_000).changes
        values = raw_cypher(memory, kept, scope=memory.scope)
        raw_cypher(memory, "MATCH (x:Audit {scope: $scope}) SET x.verdict_values = null RETURN count(x) AS n",
                   scope=memory.scope)
        read = memory.changes(start, limit=1_000).changes
        raw_cypher(memory, "UNWIND $values AS v MATCH (x:Audit {scope: $scope, id: v.id}) SET x.verdict_values = v.v "
                           "RETURN count(x) AS n", scope=memory.scope, values=values)
        assert page == read
        return page

    def facts(page: list[Change]) -> set[tuple[str, str, str, str]]:
        return {(c.kind, c.fact.subject, c.fact.predicate, c.fact.object) for c in page if c.fact is not None}

    assert {("ended", "D. Smith", "LIVES_IN", "Paris"), ("added", "Ann", "KNOWS", "Bob")} <= facts(as_read())
    memory.alias("Dana", "D. Smith")
    merged = facts(as_read())
    assert ("ended", "Dana", "LIVES_IN", "Paris") in merged and not any("D. Smith" in f for f in merged)
    memory.unmerge("D. Smith")
    assert ("ended", "D. Smith", "LIVES_IN", "Paris") in facts(as_read())
    memory.purge("Bob")
    erased = as_read()
    assert "bob" not in words(json.dumps([c.model_dump(mode="json") for c in erased]))
    assert ("added", "Ann", "WORKS_AT", "Acme") in facts(erased)
    memory.upsert(Triple(subject="Ann", predicate="WORKS_AT", object="Initech", valid_at="2025-01-01"))
    assert ("added", "Ann", "WORKS_AT", "Initech") in facts(as_read())
    # Which entries a page takes the values of: those recorded after the erasure only (the values marked here).
    raw_cypher(memory, "MATCH (x:Audit {scope: $scope}) WHERE x.verdict_values IS NOT NULL SET x.verdict_values = "
                       "replace(replace(x.verdict_values, '\"Initech\"', '\"Initech!\"'), '\"Ann\"', '\"Ann!\"') "
                       "RETURN count(x) AS n", scope=memory.scope)
    shown = facts(memory.changes(start, limit=1_000).changes)
    assert ("added", "Ann!", "WORKS_AT", "Initech!") in shown and ("added", "Ann", "WORKS_AT", "Acme") in shown


def test_a_purge_leaves_what_another_entity_changed_as_it_was_told(memory: Memory) -> None:
    """Dana lived in Paris, then in Berlin from the same day (with Cat's fact in that write); Paris then merged
    into Berlin, so both records of that write are Dana living in Berlin. Purging Cat rewrites that write's entry
    without Cat's fact: Dana's records' changes read as before (Berlin added, Paris removed), not as one fact
    corrected by the other (found by the stateful model test). A value ended by an erased one reads as ended, by
    nothing the log still names."""
    start = now()
    memory.upsert(Triple(subject="Dana", predicate="LIVES_IN", object="Paris", valid_at="2024-01-01",
                         invalid_at="2030-01-01"))
    memory.upsert([Triple(subject="Dana", predicate="LIVES_IN", object="Berlin", valid_at="2024-01-01"),
                   Triple(subject="Cat", predicate="KNOWS", object="Dana", valid_at="2024-01-01")])
    memory.alias("Berlin", "Paris")
    told = described(memory, start)
    memory.purge("Cat")
    assert described(memory, start) == [c for c in told if "Cat" not in c] + [("purged",)]
    memory.upsert(Triple(subject="Dana", predicate="LIVES_IN", object="Rome", valid_at="2026-01-01"))
    told = described(memory, start)
    assert told[-2:] in ([("added", "Dana", "LIVES_IN", "Rome"), ("ended", "Dana", "LIVES_IN", "Berlin")],
                         [("ended", "Dana", "LIVES_IN", "Berlin"), ("added", "Dana", "LIVES_IN", "Rome")])
    memory.purge("Rome")
    after = memory.changes(start).changes
    assert described(memory, start) == [c for c in told if "Rome" not in c] + [("purged",)]
    ended = after[-2]
    assert (ended.kind, ended.why, ended.superseded_by, ended.fact.invalid_at) == (  # type: ignore[union-attr]
        "ended", None, None, utc("2026-01-01"))
    assert [(b.object, b.invalid_at) for b in ended.before] == [("Berlin", None)]
