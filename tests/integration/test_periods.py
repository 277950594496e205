"""Periods, not only instants: facts valid during a period (at some moment of it) or throughout it (at every
moment), by subject, by object and by predicate alone, each read served by an index of the fact's slots."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from synapse_graph import InvalidInputError, InvalidTimeError, Memory, Triple
from synapse_graph.catalogue import Q
from synapse_graph.engine.scope import STORE_FORMAT
from synapse_graph.instants import Instant
from synapse_graph.rules.timeparse import now_micros
from tests.integration.helpers import objects, raw_cypher
from tests.integration.plans import plans_of

WORKED = [
    ("Dana", "Acme", "2018-03-01", "2020-04-01"),  # left during 2020
    ("Eli", "Acme", "2020-11-15", None),  # joined during 2020
    ("Fay", "Acme", "2015-01-01", None),  # all of 2020 and since
    ("Gus", "Acme", "2017-01-01", "2019-12-31"),  # left the day before 2020
    ("Hal", "Acme", "2021-01-01", None),  # joined the moment 2020 ended
    ("Ivy", "Initech", "2019-01-01", None),  # another employer
]
YEAR_2020 = ("2020-01-01", "2021-01-01")


def employ(memory: Memory) -> None:
    memory.upsert([Triple(subject=person, predicate="WORKED_AT", object=employer, valid_at=start, invalid_at=end)
                   for person, employer, start, end in WORKED])
    # Acme is a hub of other facts: the object-side read must not walk them.
    memory.upsert([Triple(subject=f"Client {i}", predicate="BUYS_FROM", object="Acme", valid_at="2020-06-01")
                   for i in range(40)])
    memory.upsert(Triple(subject="Acme", predicate="LOCATED_IN", object="Oslo", valid_at="2010-01-01"))


def subjects(facts: list) -> list[str]:  # type: ignore[type-arg]
    return sorted(f.subject for f in facts)


def test_who_worked_at_acme_during_2020_and_throughout_it(memory: Memory) -> None:
    employ(memory)
    during = memory.facts(predicate="WORKED_AT", object="Acme", during=YEAR_2020)
    assert subjects(during) == ["Dana", "Eli", "Fay"]
    assert subjects(memory.facts(predicate="WORKED_AT", object="Acme", throughout=YEAR_2020)) == ["Fay"]
    # An open end: from 2020 on.
    assert subjects(memory.facts(predicate="WORKED_AT", object="Acme", during=("2020-01-01", None))) == [
        "Dana", "Eli", "Fay", "Hal"]
    assert subjects(memory.facts(predicate="WORKED_AT", object="acme", throughout=("2021-06-01", None))) == [
        "Eli", "Fay", "Hal"]
    # By object alone, by predicate alone, by subject: the same rule.
    assert len(memory.facts(object="Acme", during=YEAR_2020)) == 3 + 40
    assert subjects(memory.facts(predicate="WORKED_AT", during=YEAR_2020)) == ["Dana", "Eli", "Fay", "Ivy"]
    assert objects(memory.facts("Dana", during=YEAR_2020)) == ["Acme"]
    assert objects(memory.facts("Dana", during=("2020-04-01", "2020-05-01"))) == []  # ended as it began
    assert objects(memory.facts("Gus", "WORKED_AT", during=("2019-12-30T23:59:59.999999", "2020-01-01"))) == ["Acme"]
    # An instant is the shortest period: during and throughout agree with as_of.
    instant = ("2020-04-01T00:00:00", "2020-04-01T00:00:00.000001")
    for asked in ({"during": instant}, {"throughout": instant}):
        assert subjects(memory.facts(predicate="WORKED_AT", object="Acme", **asked)) == subjects(
            memory.facts(predicate="WORKED_AT", object="Acme", as_of=instant[0])) == ["Fay"]


def test_periods_read_a_past_belief(memory: Memory) -> None:
    employ(memory)
    known = memory.facts("Acme", "LOCATED_IN")[0].recorded_at  # the last write before the retraction
    memory.retract("Fay", "WORKED_AT", "Acme", at="2020-07-01")
    assert subjects(memory.facts(predicate="WORKED_AT", object="Acme", throughout=YEAR_2020)) == []
    assert subjects(memory.facts(predicate="WORKED_AT", object="Acme", throughout=YEAR_2020, known_at=known)) == [
        "Fay"]


def test_a_period_is_checked_before_anything_is_read(memory: Memory) -> None:
    memory.upsert(("Dana", "WORKED_AT", "Acme"))
    for bad in [("2021-01-01", "2020-01-01"), ("2020-01-01", "2020-01-01"), ("2020-01-01",), "2020", (None, "2021"),
                ("2020-01-01", "someday")]:
        with pytest.raises(InvalidTimeError):
            memory.facts("Dana", during=bad)  # type: ignore[arg-type]
    with pytest.raises(InvalidInputError, match="not both"):
        memory.facts("Dana", during=YEAR_2020, throughout=YEAR_2020)
    with pytest.raises(InvalidInputError, match="as_of"):
        memory.facts("Dana", during=YEAR_2020, as_of="2020-06-01")
    with pytest.raises(InvalidInputError, match="include_history"):
        memory.facts("Dana", throughout=YEAR_2020, include_history=True)


def test_period_reads_seek_the_slot_indexes(plain: Memory) -> None:
    memory = plain
    employ(memory)
    asked = {
        Q.FACTS_BY_OBJECT_SLOT: lambda: memory.facts(predicate="WORKED_AT", object="Acme", during=YEAR_2020),
        Q.FACTS_BY_PREDICATE: lambda: memory.facts(predicate="WORKED_AT", throughout=YEAR_2020),
        Q.FACTS_BY_SLOT: lambda: memory.facts("Dana", "WORKED_AT", during=YEAR_2020),
    }
    index = {Q.FACTS_BY_OBJECT_SLOT: "object_slot", Q.FACTS_BY_PREDICATE: "predicate_slot", Q.FACTS_BY_SLOT: "slot"}
    for statement, call in asked.items():
        plan = plans_of(memory, call)[str(statement)]
        seeks = [line for line in plan if "Index" in line]
        assert not [line for line in plan if "Label Scan" in line or "AllNodesScan" in line
                    or "NodeByLabelScan" in line], plan
        if memory.backend.dialect == "neo4j":
            assert any(f"FACT({index[statement]})" in line for line in seeks), seeks
        else:
            assert any(line.startswith("Edge By Index Scan | [r:FACT]") for line in seeks), seeks
        # what replaced each fact: the slot's index again, for each row returned
        assert sum("FACT" in line for line in seeks) >= 2, seeks


def test_a_store_written_before_side_slots_is_upgraded_on_open(plain: Memory,
                                                                 make_memory: Callable[..., Memory]) -> None:
    old = plain
    employ(old)
    # Make the scope look like format 5: facts without their object's and predicate's slots.
    unset = "MATCH (a:Entity {scope: $scope})-[r:FACT]->() REMOVE r.object_slot, r.predicate_slot RETURN count(r) AS n"
    [removed] = raw_cypher(old, unset, scope=old.scope)
    assert removed["n"] == len(WORKED) + 41
    old.backend.write(Q.RECOUNT_SCOPE, {"scope": old.scope, "format": 5, "candidate": "candidate",
                                        "now": Instant(now_micros())})
    assert old.facts(predicate="WORKED_AT", object="Acme", during=YEAR_2020) == []  # the indexes no longer find them

    upgraded = make_memory(scope=old.scope)
    assert old.backend.read(Q.FACTS_WITHOUT_SIDE_SLOTS, {"scope": old.scope, "limit": 10}) == []
    assert subjects(upgraded.facts(predicate="WORKED_AT", object="Acme", during=YEAR_2020)) == ["Dana", "Eli", "Fay"]
    assert subjects(upgraded.facts(predicate="WORKED_AT", during=YEAR_2020)) == ["Dana", "Eli", "Fay", "Ivy"]
    assert upgraded.backend.read(Q.SCOPE_STATE, {"scope": old.scope})[0]["state"]["format"] == STORE_FORMAT


def test_a_past_belief_holds_a_fact_throughout_a_period_across_two_records_a_merge_joined(memory: Memory) -> None:
    # Before the merge Ann and Bob each knew Cat for a while; merged, a read of that time sees Ann know Cat from
    # 2018 to 2022 in two records that touch: throughout 2019-2021 holds, as for one record.
    memory.upsert([Triple(subject="Ann", predicate="KNOWS", object="Cat", valid_at="2018-01-01",
                          invalid_at="2020-01-01"),
                   Triple(subject="Bob", predicate="KNOWS", object="Cat", valid_at="2020-01-01",
                          invalid_at="2022-01-01")])
    known = memory.facts("Ann", "KNOWS", include_history=True)[0].recorded_at
    memory.alias("Ann", "Bob")
    period = ("2019-01-01", "2021-01-01")
    assert [(f.subject, f.valid_at.year, f.invalid_at.year) for f in  # type: ignore[union-attr]
            memory.facts("Ann", "KNOWS", throughout=period, known_at=known)] == [("Ann", 2018, 2022)]
    assert [f.object for f in memory.facts(object="Cat", predicate="KNOWS", during=period, known_at=known)] == ["Cat"]
    assert [(f.valid_at.year, f.invalid_at.year) for f in  # type: ignore[union-attr]
            memory.facts("Ann", "KNOWS", throughout=period)] == [(2018, 2022)]  # the merge united them
