"""A read never returns the same fact twice: records of one fact whose intervals meet read as one."""

from __future__ import annotations

import itertools
from datetime import UTC, datetime

from hypothesis import given
from hypothesis import strategies as st

from synapse_graph.models import Fact, RecalledFact
from synapse_graph.rules.distinct import distinct_facts, meet, past_belief_once

RECORDED = datetime(2024, 1, 1, tzinfo=UTC)


def fact(obj: str, start: int, end: int | None, *, id: str = "a", confidence: float = 1.0) -> Fact:
    return Fact(id=id, subject="Robert", predicate="LIKES", object=obj,
                valid_at=datetime(2000 + start, 1, 1, tzinfo=UTC),
                invalid_at=None if end is None else datetime(2000 + end, 1, 1, tzinfo=UTC), recorded_at=RECORDED,
                confidence=confidence, confirmations=1)


def years(f: Fact) -> tuple[str, int, int | None]:
    return f.object, f.valid_at.year - 2000, None if f.invalid_at is None else f.invalid_at.year - 2000


def test_records_that_overlap_or_touch_are_one_fact_over_their_union() -> None:
    found = distinct_facts([fact("Tea", 20, 22, id="r", confidence=0.5), fact("Jazz", 1, 2),
                            fact("Tea", 22, 23, id="b", confidence=0.9), fact("Tea", 10, 12, id="c")])
    assert [years(f) for f in found] == [("Tea", 20, 23), ("Jazz", 1, 2), ("Tea", 10, 12)]
    assert (found[0].id, found[0].confidence) == ("r", 0.9)  # the first stands for the group


def test_a_record_that_bridges_two_united_records_joins_them() -> None:
    # Three names merged in turn: Robert's [22, 23), Bob's [20, 21), Bobby's [21, 22) bridging them.
    for order in itertools.permutations([fact("Tea", 22, 23, id="r"), fact("Tea", 20, 21, id="b"),
                                         fact("Tea", 21, 22, id="c")]):
        [tea] = distinct_facts(order)
        assert (years(tea), tea.id) == (("Tea", 20, 23), order[0].id)


def test_an_open_interval_stays_open_and_recalled_facts_keep_their_own_fields() -> None:
    first = RecalledFact(**fact("Tea", 20, None, id="r").model_dump(), hop=1, entry="Robert", relevance=2.0)
    second = RecalledFact(**fact("Tea", 10, 21, id="b").model_dump(), hop=2, entry="Bob", relevance=1.0)
    [tea] = distinct_facts([first, second])
    assert isinstance(tea, RecalledFact)
    assert (years(tea), tea.hop, tea.entry, tea.relevance) == (("Tea", 10, None), 1, "Robert", 2.0)


spans = st.lists(st.tuples(st.sampled_from(["Tea", "Jazz"]), st.integers(0, 9), st.integers(1, 4) | st.none()),
                 max_size=8)


@given(spans)
def test_no_two_results_are_one_fact_and_every_instant_is_kept(given_spans: list[tuple[str, int, int | None]]) -> None:
    facts = [fact(o, s, None if d is None else s + d, id=str(i)) for i, (o, s, d) in enumerate(given_spans)]
    found = distinct_facts(facts)
    assert not [(a, b) for a, b in itertools.combinations(found, 2) if a.object == b.object and meet(a, b)]
    for year in range(0, 15):
        when = datetime(2000 + year, 6, 1, tzinfo=UTC)
        assert {f.object for f in facts if f.holds_at(when)} == {f.object for f in found if f.holds_at(when)}


def test_a_past_belief_is_read_once_in_the_order_read_and_the_current_belief_as_read() -> None:
    later = RECORDED.replace(year=2025)
    read = [fact("Jazz", 1, 2, id="j"), fact("Tea", 22, 23, id="r").model_copy(update={"recorded_at": later}),
            fact("Tea", 20, 22, id="b"), fact("Tea", 10, 12, id="c")]
    assert past_belief_once(read, None) == read  # the current belief: writes keep records united
    once = past_belief_once(read, later)
    # Robert's and Bob's Tea are one fact; the earliest recorded (Bob's) stands for it at its first place.
    assert [(f.id, *years(f)) for f in once] == [("j", "Jazz", 1, 2), ("b", "Tea", 20, 23), ("c", "Tea", 10, 12)]
