"""Point-in-time rules: one test per rule of the timeline, on both backends."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta, timezone

import pytest

from synapse_graph import Memory, Triple
from tests.integration.helpers import objects, spans, utc

MICROSECOND = timedelta(microseconds=1)


def test_saving_a_currently_valid_fact_again_confirms_it(memory: Memory) -> None:
    memory.upsert(Triple(subject="Dana", predicate="SPEAKS", object="French", valid_at="2024-01-01", confidence=0.6))
    again = memory.upsert(Triple(subject="Dana", predicate="SPEAKS", object="French", confidence=0.9))
    memory.upsert(Triple(subject="Dana", predicate="SPEAKS", object="French", confidence=0.7))

    assert (again.created, again.confirmed) == (0, 1)
    [fact] = memory.history("Dana")
    assert spans([fact]) == [("French", utc("2024-01-01"), None)]
    assert (fact.confirmations, fact.confidence) == (3, 0.9)
    assert memory.stats().expired_records == 0


def test_overlapping_and_touching_intervals_merge(memory: Memory) -> None:
    def visited(start: str, end: str) -> None:
        memory.upsert(Triple(subject="Dana", predicate="VISITED", object="Rome", valid_at=start, invalid_at=end))

    visited("2024-01-01", "2024-03-01")
    visited("2024-02-01", "2024-04-01")  # overlaps
    visited("2024-04-01", "2024-05-01")  # touches
    visited("2024-08-01", "2024-09-01")  # apart: a second interval
    assert spans(memory.history("Dana")) == [
        ("Rome", utc("2024-01-01"), utc("2024-05-01")),
        ("Rome", utc("2024-08-01"), utc("2024-09-01")),
    ]
    assert memory.history("Dana")[0].confirmations == 3
    for day in ("2024-01-01", "2024-02-15", "2024-04-01", "2024-04-30"):
        assert len(memory.facts("Dana", as_of=day)) == 1
        assert len(memory.facts(as_of=day)) == 1
        assert len(memory.neighbourhood("Dana", as_of=day)) == 1
    assert memory.facts("Dana", as_of="2024-06-01") == []

    visited("2024-04-15", "2024-08-15")  # bridges both intervals into one
    assert spans(memory.history("Dana")) == [("Rome", utc("2024-01-01"), utc("2024-09-01"))]


def test_replace_closes_the_subjects_other_values(memory: Memory) -> None:
    memory.upsert([("Dana", "USES", "Vim"), ("Dana", "USES", "Emacs"), ("Eve", "USES", "Vim")], valid_at="2023-01-01")
    memory.upsert(("Dana", "USES", "Helix"), valid_at="2024-06-01", replace=True)

    assert objects(memory.facts("Dana", "USES")) == ["Helix"]
    assert sorted(objects(memory.facts("Dana", "USES", as_of="2024-05-31"))) == ["Emacs", "Vim"]
    assert sorted(spans(memory.history("Dana", "USES"))) == [
        ("Emacs", utc("2023-01-01"), utc("2024-06-01")),
        ("Helix", utc("2024-06-01"), None),
        ("Vim", utc("2023-01-01"), utc("2024-06-01")),
    ]
    assert objects(memory.facts("Eve")) == ["Vim"]  # another subject's value is not closed


@pytest.mark.parametrize("predicate", ["LIVES_IN", "WORKS_AT", "HAS_MANAGER"])
def test_single_valued_predicate_closes_the_old_value(memory: Memory, predicate: str) -> None:
    if predicate == "HAS_MANAGER":
        memory.set_rules(single_valued=memory.rules().single_valued | {predicate})
    memory.upsert(("Dana", predicate, "Old"), valid_at="2020-01-01")
    memory.upsert(("Dana", predicate, "New"), valid_at="2023-05-01")

    assert objects(memory.facts("Dana", predicate)) == ["New"]
    assert objects(memory.facts("Dana", predicate, as_of="2021-01-01")) == ["Old"]
    assert spans(memory.history("Dana", predicate)) == [
        ("Old", utc("2020-01-01"), utc("2023-05-01")),
        ("New", utc("2023-05-01"), None),
    ]


def test_unregistered_predicate_keeps_both_values(memory: Memory) -> None:
    memory.upsert(("Dana", "HAS_MANAGER", "Old"), valid_at="2020-01-01")
    memory.upsert(("Dana", "HAS_MANAGER", "New"), valid_at="2023-05-01")
    assert objects(memory.facts("Dana")) == ["Old", "New"]


def test_late_arriving_value_ends_where_the_next_one_begins(memory: Memory) -> None:
    memory.upsert(("Dana", "LIVES_IN", "London"), valid_at="2023-05-01")
    memory.upsert(("Dana", "LIVES_IN", "Paris"), valid_at="2020-01-01")  # arrives late

    assert spans(memory.history("Dana", "LIVES_IN")) == [
        ("Paris", utc("2020-01-01"), utc("2023-05-01")),
        ("London", utc("2023-05-01"), None),
    ]
    assert objects(memory.facts("Dana", as_of="2021-01-01")) == ["Paris"]
    assert objects(memory.facts("Dana")) == ["London"]


def test_a_returning_value_is_a_new_interval(memory: Memory) -> None:
    for city, day in [("Paris", "2018-01-01"), ("London", "2020-01-01"), ("Paris", "2022-01-01")]:
        memory.upsert(("Dana", "LIVES_IN", city), valid_at=day)

    assert spans(memory.history("Dana", "LIVES_IN")) == [
        ("Paris", utc("2018-01-01"), utc("2020-01-01")),
        ("London", utc("2020-01-01"), utc("2022-01-01")),
        ("Paris", utc("2022-01-01"), None),
    ]
    assert objects(memory.facts("Dana", as_of="2019-01-01")) == ["Paris"]
    assert objects(memory.facts("Dana", as_of="2021-01-01")) == ["London"]
    assert objects(memory.facts("Dana")) == ["Paris"]


def test_retract_now_ends_facts_and_keeps_them_in_history(memory: Memory) -> None:
    memory.upsert([("Dana", "LIKES", "Tea"), ("Dana", "LIKES", "Coffee")], valid_at="2024-01-01")
    before = datetime.now(UTC)
    assert memory.retract("Dana", "LIKES", "Tea") == 1
    after = datetime.now(UTC)

    assert objects(memory.facts("Dana")) == ["Coffee"]
    [tea] = [fact for fact in memory.history("Dana") if fact.object == "Tea"]
    assert tea.valid_at == utc("2024-01-01")
    assert tea.invalid_at is not None and before <= tea.invalid_at <= after

    assert memory.retract("Dana", "LIKES") == 1  # every remaining value
    assert memory.facts("Dana") == []
    assert memory.retract("Dana", "LIKES") == 0  # nothing left to end
    assert sorted(objects(memory.history("Dana"))) == ["Coffee", "Tea"]


def test_retract_at_a_given_time(memory: Memory) -> None:
    memory.upsert(("Dana", "WORKS_AT", "Acme"), valid_at="2020-01-01")
    assert memory.retract("Dana", "WORKS_AT", at="2019-06-01") == 0  # the fact did not hold yet
    assert memory.retract("Dana", "WORKS_AT", "Acme", at="2022-01-01") == 1

    assert spans(memory.history("Dana")) == [("Acme", utc("2020-01-01"), utc("2022-01-01"))]
    assert objects(memory.facts("Dana", as_of=utc("2022-01-01") - MICROSECOND)) == ["Acme"]
    assert memory.facts("Dana", as_of="2022-01-01") == []
    assert memory.facts("Dana") == []


def test_validity_is_half_open(memory: Memory) -> None:
    memory.upsert(
        Triple(subject="Dana", predicate="STAYS_AT", object="Hotel", valid_at="2024-01-01", invalid_at="2024-02-01")
    )
    assert objects(memory.facts("Dana", as_of="2024-01-01")) == ["Hotel"]
    assert objects(memory.facts("Dana", as_of=utc("2024-02-01") - MICROSECOND)) == ["Hotel"]
    assert memory.facts("Dana", as_of="2024-02-01") == []
    assert memory.facts("Dana", as_of=utc("2024-01-01") - MICROSECOND) == []
    assert len(memory.neighbourhood("Hotel", as_of="2024-01-01")) == 1
    assert memory.neighbourhood("Hotel", as_of="2024-02-01") == []


def test_values_minutes_apart_on_one_day(memory: Memory) -> None:
    memory.upsert(("Dana", "LOCATED_IN", "Lobby"), valid_at="2024-03-01T09:00:00Z")
    memory.upsert(("Dana", "LOCATED_IN", "Room 12"), valid_at="2024-03-01T09:05:00+00:00")

    assert memory.facts("Dana", as_of="2024-03-01T08:59:00Z") == []
    assert objects(memory.facts("Dana", as_of="2024-03-01T09:03:00Z")) == ["Lobby"]
    assert objects(memory.facts("Dana", as_of="2024-03-01T09:04:59.999999Z")) == ["Lobby"]
    assert objects(memory.facts("Dana", as_of="2024-03-01T09:05:00Z")) == ["Room 12"]


def test_known_at_before_a_correction_returns_the_old_belief(memory: Memory) -> None:
    memory.upsert(("Dana", "LIVES_IN", "Paris"), valid_at="2020-01-01")
    memory.upsert(("Dana", "LIVES_IN", "Berlin"), valid_at="2025-01-01")  # Paris now ends in 2025
    believed_at = max(fact.recorded_at for fact in memory.history("Dana"))

    memory.upsert(("Dana", "LIVES_IN", "London"), valid_at="2023-01-01")  # late: reshapes Paris
    corrected_at = next(fact.recorded_at for fact in memory.history("Dana") if fact.object == "London")
    assert corrected_at > believed_at

    assert objects(memory.facts("Dana", as_of="2024-01-01", known_at=believed_at)) == ["Paris"]
    assert objects(memory.facts("Dana", as_of="2024-01-01")) == ["London"]

    old_belief = memory.history("Dana", known_at=believed_at)
    assert spans(old_belief) == [("Paris", utc("2020-01-01"), utc("2025-01-01")), ("Berlin", utc("2025-01-01"), None)]
    assert (old_belief[0].recorded_at, old_belief[0].expired_at) == (believed_at, corrected_at)

    now_believed = memory.history("Dana")
    assert spans(now_believed) == [
        ("Paris", utc("2020-01-01"), utc("2023-01-01")),
        ("London", utc("2023-01-01"), utc("2025-01-01")),
        ("Berlin", utc("2025-01-01"), None),
    ]
    assert [(f.recorded_at, f.expired_at) for f in now_believed] == [
        (corrected_at, None),
        (corrected_at, None),
        (believed_at, None),
    ]


INSTANT = datetime(2024, 3, 1, 12, 30, tzinfo=UTC)
MIDNIGHT = datetime(2024, 3, 1, tzinfo=UTC)


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        pytest.param(INSTANT, INSTANT, id="aware-utc"),
        pytest.param(INSTANT.astimezone(timezone(timedelta(hours=2))), INSTANT, id="aware-plus-2h"),
        pytest.param(INSTANT.replace(tzinfo=None), INSTANT, id="naive-is-utc"),
        pytest.param(date(2024, 3, 1), MIDNIGHT, id="date"),
        pytest.param("2024-03-01", MIDNIGHT, id="iso-date"),
        pytest.param("2024-03-01T12:30:00Z", INSTANT, id="iso-z"),
        pytest.param("2024-03-01T14:30:00+02:00", INSTANT, id="iso-offset"),
        pytest.param("2024-03-01 12:30", INSTANT, id="iso-naive-is-utc"),
        pytest.param("1 March 2024 12:30", INSTANT, id="unambiguous-text"),
        pytest.param(1_709_296_200, INSTANT, id="epoch-int"),
        pytest.param(1_709_296_200.0, INSTANT, id="epoch-float"),
    ],
)
def test_time_inputs(memory: Memory, given: object, expected: datetime) -> None:
    memory.upsert(("Dana", "LIVES_IN", "Paris"), valid_at=given)  # type: ignore[arg-type]
    [fact] = memory.facts("Dana")
    assert fact.valid_at == expected
    assert objects(memory.facts("Dana", as_of=given)) == ["Paris"]  # type: ignore[arg-type]
    assert memory.facts("Dana", as_of=expected - MICROSECOND) == []
