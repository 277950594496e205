"""Supersession chains: every fact a read returns says what it replaced and what replaced it, so "where did
Dana live before London?" is one read, and a chain of values reads both ways."""

from __future__ import annotations

from datetime import datetime

from synapse_graph import Fact, Memory, Triple
from tests.integration.helpers import utc

MOVES = [("Paris", "2019-01-01"), ("London", "2022-09-15"), ("Berlin", "2023-05-01"), ("Rome", "2024-02-01")]


def links(fact: Fact) -> tuple[list[str], list[str]]:
    assert fact.replaces is not None and fact.replaced_by is not None
    return [x.object for x in fact.replaces], [x.object for x in fact.replaced_by]


def move(memory: Memory, moves: list[tuple[str, str]] = MOVES) -> None:
    for city, when in moves:
        memory.upsert(Triple(subject="Dana", predicate="LIVES_IN", object=city, valid_at=when))


def test_a_chain_of_three_supersessions_reads_both_ways(memory: Memory) -> None:
    move(memory)
    history = memory.history("Dana", "LIVES_IN")
    by_city = {f.object: f for f in history}
    assert [links(f) for f in history] == [
        ([], ["London"]), (["Paris"], ["Berlin"]), (["London"], ["Rome"]), (["Berlin"], [])]
    # Forward from the first value, by the ids the links give...
    ids = {f.id: f for f in history}
    walked, at = [], by_city["Paris"]
    while at.replaced_by:
        [step] = at.replaced_by
        assert (step.valid_at, step.invalid_at) == (ids[step.id].valid_at, ids[step.id].invalid_at)
        walked.append(step.object)
        at = ids[step.id]
    assert walked == ["London", "Berlin", "Rome"]
    # ...and back from the current one.
    walked, at = [], memory.facts("Dana", "LIVES_IN")[0]
    while at.replaces:
        [step] = at.replaces
        walked.append(step.object)
        at = ids[step.id]
    assert walked == ["Berlin", "London", "Paris"]


def test_where_did_dana_live_before_london_is_one_read(memory: Memory) -> None:
    move(memory)
    [london] = memory.facts("Dana", "LIVES_IN", as_of="2023-01-01")
    assert london.object == "London"
    [before] = london.replaces  # type: ignore[misc]
    assert (before.object, before.valid_at, before.invalid_at) == ("Paris", utc("2019-01-01"), utc("2022-09-15"))
    [after] = london.replaced_by  # type: ignore[misc]
    assert (after.object, after.valid_at) == ("Berlin", utc("2023-05-01"))
    # Reads by object and by predicate carry the same links.
    [by_object] = memory.facts(object="London", predicate="LIVES_IN", as_of="2023-01-01")
    [by_predicate] = memory.facts(predicate="LIVES_IN", as_of="2023-01-01")
    assert links(by_object) == links(by_predicate) == links(london) == (["Paris"], ["Berlin"])


def test_a_late_arrival_and_a_retraction_change_the_chain_and_a_past_belief_keeps_the_old_one(memory: Memory) -> None:
    move(memory, MOVES[:3])
    known = memory.facts("Dana", "LIVES_IN")[0].recorded_at
    # A value learned late, between London and Berlin: it ends where Berlin begins.
    memory.upsert(Triple(subject="Dana", predicate="LIVES_IN", object="Oslo", valid_at="2023-01-01"))
    assert [links(f) for f in memory.history("Dana", "LIVES_IN")] == [
        ([], ["London"]), (["Paris"], ["Oslo"]), (["London"], ["Berlin"]), (["Oslo"], [])]
    assert [links(f) for f in memory.history("Dana", "LIVES_IN", known_at=known)] == [
        ([], ["London"]), (["Paris"], ["Berlin"]), (["London"], [])]
    # A retraction ends a value with nothing after it.
    memory.retract("Dana", "LIVES_IN", at="2024-06-01")
    [berlin] = memory.facts("Dana", "LIVES_IN", as_of="2024-01-01")
    assert links(berlin) == (["Oslo"], []) and berlin.invalid_at == utc("2024-06-01")


def test_only_values_that_meet_are_linked_and_candidates_keep_to_their_own_timeline(memory: Memory) -> None:
    memory.upsert([Triple(subject="Dana", predicate="WORKED_ON", object="Apollo", valid_at="2020-01-01",
                          invalid_at="2020-06-01"),
                   Triple(subject="Dana", predicate="WORKED_ON", object="Gemini", valid_at="2020-09-01")])
    assert [links(f) for f in memory.history("Dana", "WORKED_ON")] == [([], []), ([], [])]  # a gap between them
    memory.upsert(Triple(subject="Dana", predicate="LIVES_IN", object="Paris", valid_at="2020-01-01"))
    memory.upsert(Triple(subject="Dana", predicate="LIVES_IN", object="Lyon", valid_at="2021-01-01", confidence=0.3),
                  model="extractor")  # a candidate: it closes nothing, and is linked to nothing believed
    [paris] = memory.facts("Dana", "LIVES_IN")
    assert links(paris) == ([], [])
    [lyon] = memory.pending()
    assert links(lyon) == ([], [])
    memory.approve(lyon)
    history = memory.history("Dana", "LIVES_IN")
    assert [(f.object, *links(f)) for f in history] == [("Paris", [], ["Lyon"]), ("Lyon", ["Paris"], [])]


def test_links_follow_a_merge(memory: Memory) -> None:
    memory.upsert(Triple(subject="Dana", predicate="LIVES_IN", object="Paris", valid_at="2019-01-01"))
    memory.upsert(Triple(subject="D. Smith", predicate="LIVES_IN", object="London", valid_at="2022-09-15"))
    memory.alias("Dana", "D. Smith")
    assert [(f.object, *links(f)) for f in memory.history("Dana", "LIVES_IN")] == [
        ("Paris", [], ["London"]), ("London", ["Paris"], [])]
    assert isinstance(memory.history("Dana")[0].replaced_by[0].valid_at, datetime)  # type: ignore[index]


def test_neighbourhood_recall_and_digest_say_what_replaced_what_as_facts_does(memory: Memory) -> None:
    move(memory, MOVES[:3])
    memory.upsert([Triple(subject="Dana", predicate="WORKS_AT", object="Acme", valid_at="2019-06-01"),
                   Triple(subject="Eli", predicate="LIVES_IN", object="London", valid_at="2020-01-01")])
    memory.upsert(Triple(subject="Dana", predicate="WORKS_AT", object="Globex", valid_at="2022-01-01"))
    at = "2023-01-01"
    memory.pin(memory.facts("Dana", "WORKS_AT")[0])
    read = {f.id: f for f in memory.facts("Dana", as_of=at) + memory.facts("Eli", as_of=at)}
    assert sorted((f.object, *links(f)) for f in read.values()) == [
        ("Globex", ["Acme"], []), ("London", [], []), ("London", ["Paris"], ["Berlin"])]
    # Every fact a neighbourhood returns is the fact facts() returns, links included (hop 1 and hop 2).
    around = memory.neighbourhood("Dana", as_of=at)
    assert sorted(f.id for f in around) == sorted(f.id for f in read.values() if f.subject == "Dana")
    assert around == [read[f.id] for f in around]
    two_hops = memory.neighbourhood("Globex", hops=2, as_of=at)
    assert sorted(f.object for f in two_hops) == ["Globex", "London"] and two_hops == [read[f.id] for f in two_hops]
    # ...and so does every fact recall and the digest return.
    recalled = memory.recall("Where does Dana live and work?", as_of=at).facts
    assert recalled and all((f.replaces, f.replaced_by) == (read[f.id].replaces, read[f.id].replaced_by)
                            for f in recalled)
    digest = memory.digest(as_of=at)
    shown = digest.pinned + digest.about_user + digest.about_entities
    assert len(shown) == 3 and shown == [read[f.id] for f in shown]
