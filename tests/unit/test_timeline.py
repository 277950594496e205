"""Tests for :mod:`synapse_graph.rules.timeline`, the pure temporal planner.

Plans are applied to an in-memory state the way the store applies them: expired
records leave the believed state, updated ones are replaced, created ones join it.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from synapse_graph.rules.timeline import (
    FOREVER,
    Plan,
    Provenance,
    Record,
    TimelinePlanner,
    Write,
    end_of,
    merge_plan,
)

NOW = 1_000


_SERIAL = itertools.count()


def ids(prefix: str = "n") -> Callable[[], str]:
    """Fresh record ids, unique across planners (like uuids)."""
    return lambda: f"{prefix}{next(_SERIAL)}"


def rec(
    obj: str,
    valid_at: int,
    invalid_at: int | None = None,
    *,
    id: str | None = None,
    subject: str = "s",
    predicate: str = "P",
    confirmations: int = 1,
    confidence: float = 1.0,
    expired_at: int | None = None,
) -> Record:
    return Record(
        id=id or f"{subject}-{predicate}-{obj}-{valid_at}-{invalid_at}",
        subject=subject,
        predicate=predicate,
        object=obj,
        valid_at=valid_at,
        invalid_at=invalid_at,
        recorded_at=0,
        expired_at=expired_at,
        confidence=confidence,
        confirmations=confirmations,
    )


def wr(
    obj: str,
    valid_at: int,
    invalid_at: int | None = None,
    *,
    single: bool = False,
    subject: str = "s",
    predicate: str = "P",
    confidence: float = 1.0,
) -> Write:
    return Write(
        subject=subject,
        predicate=predicate,
        object=obj,
        valid_at=valid_at,
        invalid_at=invalid_at,
        confidence=confidence,
        single_valued=single,
    )


def apply(state: Iterable[Record], plan: Plan) -> list[Record]:
    """The believed records after the store applies ``plan`` to ``state``."""
    state = list(state)
    known = {r.id for r in state}
    expired = [r.id for r in plan.expires]
    updated = {r.id: r for r in plan.updates}
    assert set(expired) <= known and len(set(expired)) == len(expired), "expires must name believed records once"
    assert set(updated) <= known and not set(updated) & set(expired), "updates must name believed, kept records"
    assert not {c.id for c in plan.creates} & known, "created records need fresh ids"
    for record in plan.creates:
        assert record.valid_at < end_of(record.invalid_at), f"empty interval planned: {record}"
    kept = [updated.get(r.id, r) for r in state if r.id not in set(expired)]
    return kept + [c for c in plan.creates if c.expired_at is None]


def step(state: list[Record], write: Write, now: int = NOW) -> tuple[list[Record], Plan]:
    planner = TimelinePlanner(state, now=now, new_id=ids(f"w{now}-"))
    planner.add(write)
    plan = planner.plan()
    return apply(state, plan), plan


def shape(records: Iterable[Record]) -> list[tuple[str, int, int, int]]:
    """Comparable form of a state: (object, valid_at, end, confirmations), ids and times of belief aside."""
    return sorted((r.object, r.valid_at, end_of(r.invalid_at), r.confirmations) for r in records)


def overlap(a: Record, b: Record) -> bool:
    return a.valid_at < end_of(b.invalid_at) and b.valid_at < end_of(a.invalid_at)


def conf(records: Iterable[Record], obj: str) -> int:
    return sum(r.confirmations for r in records if r.object == obj)


# -- Record --------------------------------------------------------------------------------------


def test_validity_is_half_open() -> None:
    r = rec("a", 10, 20)
    assert not r.holds_at(9) and r.holds_at(10) and r.holds_at(19) and not r.holds_at(20)
    assert rec("a", 10).holds_at(FOREVER - 1)
    assert end_of(None) == FOREVER and end_of(5) == 5


def test_meets_counts_touching_as_meeting() -> None:
    r = rec("a", 10, 20)
    assert r.meets(20, 30) and r.meets(0, 10) and r.meets(12, 13) and r.meets(0, None)
    assert not r.meets(21, 30) and not r.meets(0, 9)
    assert rec("a", 10).meets(1000, None)


# -- TimelinePlanner: examples ---------------------------------------------------------------------


def test_new_fact_is_created() -> None:
    state, plan = step([], wr("a", 5))
    assert shape(state) == [("a", 5, FOREVER, 1)]
    assert (plan.created, plan.confirmed, plan.closed, plan.fact_delta) == (1, 0, 0, 1)
    assert plan.creates[0].recorded_at == NOW and plan.creates[0].expired_at is None


def test_write_inside_an_interval_confirms_it() -> None:
    old = rec("a", 0, 10, confirmations=2, confidence=0.4)
    state, plan = step([old], wr("a", 3, 7, confidence=0.9))
    assert not plan.creates and not plan.expires and plan.confirmed == 1 and plan.fact_delta == 0
    (updated,) = plan.updates
    assert updated.id == old.id and updated.confirmations == 3 and updated.confidence == 0.9
    state, plan = step(state, wr("a", 0, 10, confidence=0.1))
    assert state[0].confirmations == 4 and state[0].confidence == 0.9


@pytest.mark.parametrize(
    ("existing", "write", "united"),
    [
        ((0, 10), (5, 15), (0, 15)),  # overlap
        ((0, 10), (10, 15), (0, 15)),  # touching after
        ((10, 20), (0, 10), (0, 20)),  # touching before
        ((5, 10), (0, None), (0, None)),  # swallowed by an open write
    ],
)
def test_overlapping_or_touching_intervals_of_a_fact_unite(
    existing: tuple[int, int | None], write: tuple[int, int | None], united: tuple[int, int | None]
) -> None:
    old = rec("a", *existing, confirmations=2)
    state, plan = step([old], wr("a", *write))
    assert shape(state) == [("a", united[0], end_of(united[1]), 3)]
    assert plan.expires == [old] and plan.closed == 1 and plan.created == 1 and plan.fact_delta == 0


def test_a_write_bridging_two_intervals_unites_all_three() -> None:
    state = [rec("a", 0, 5, confirmations=2), rec("a", 8, 12, confirmations=3)]
    state, plan = step(state, wr("a", 5, 8))
    assert shape(state) == [("a", 0, 12, 6)]
    assert plan.fact_delta == -1


def test_separate_intervals_of_a_fact_stay_separate() -> None:
    state, _ = step([rec("a", 0, 5)], wr("a", 6, 9))
    assert shape(state) == [("a", 0, 5, 1), ("a", 6, 9, 1)]


def test_multi_valued_predicates_keep_every_object() -> None:
    state, _ = step([rec("a", 0)], wr("b", 5))
    assert shape(state) == [("a", 0, FOREVER, 1), ("b", 5, FOREVER, 1)]


def test_single_valued_write_closes_the_current_value() -> None:
    paris = rec("paris", 0, confirmations=4)
    state, plan = step([paris], wr("london", 10, single=True))
    assert shape(state) == [("london", 10, FOREVER, 1), ("paris", 0, 10, 4)]
    assert plan.expires == [paris] and plan.closed == 1 and plan.fact_delta == 1


def test_single_valued_write_at_the_same_instant_replaces_the_value() -> None:
    state, plan = step([rec("paris", 10)], wr("london", 10, single=True))
    assert shape(state) == [("london", 10, FOREVER, 1)]
    assert plan.fact_delta == 0 and plan.closed == 1


def test_late_arriving_value_ends_where_the_next_one_begins() -> None:
    state = [rec("paris", 0, 10), rec("london", 10)]
    state, _ = step(state, wr("rome", 5, single=True))
    assert shape(state) == [("london", 10, FOREVER, 1), ("paris", 0, 5, 1), ("rome", 5, 10, 1)]
    # A given end before the next value is kept.
    state, _ = step([rec("london", 10)], wr("rome", 2, 4, single=True))
    assert shape(state) == [("london", 10, FOREVER, 1), ("rome", 2, 4, 1)]


def test_single_valued_write_touching_its_own_past_unites_and_supersedes() -> None:
    state = [rec("london", 0, 5), rec("paris", 5)]
    state, _ = step(state, wr("london", 5, single=True))
    assert shape(state) == [("london", 0, FOREVER, 2)]


def test_single_valued_confirmation_still_closes_other_values() -> None:
    # KNOWS-like data written multi-valued, then a replacing write of a value already held.
    state = [rec("bob", 0), rec("cat", 0)]
    state, plan = step(state, wr("bob", 5, single=True))
    assert shape(state) == [("bob", 0, FOREVER, 2), ("cat", 0, 5, 1)]
    assert plan.confirmed == 1


def test_writes_of_other_subjects_and_predicates_are_independent() -> None:
    state = [rec("a", 0, subject="o"), rec("a", 0, predicate="Q")]
    state, _ = step(state, wr("b", 5, single=True))
    assert shape(state) == [("a", 0, FOREVER, 1), ("a", 0, FOREVER, 1), ("b", 5, FOREVER, 1)]


def test_retract_ends_holding_facts_only() -> None:
    state = [rec("a", 0), rec("b", 10, 20), rec("c", 30)]
    planner = TimelinePlanner(state, now=NOW, new_id=ids())
    assert planner.retract("s", "P", None, 15) == 2
    assert shape(apply(state, planner.plan())) == [("a", 0, 15, 1), ("b", 10, 15, 1), ("c", 30, FOREVER, 1)]


def test_retract_at_the_start_removes_the_interval() -> None:
    state = [rec("a", 15, 20), rec("b", 0)]
    planner = TimelinePlanner(state, now=NOW, new_id=ids())
    assert planner.retract("s", "P", "a", 15) == 1
    plan = planner.plan()
    assert shape(apply(state, plan)) == [("b", 0, FOREVER, 1)] and plan.fact_delta == -1


def test_retract_at_the_end_is_a_no_op() -> None:
    state = [rec("a", 0, 15)]
    planner = TimelinePlanner(state, now=NOW, new_id=ids())
    assert planner.retract("s", "P", None, 15) == 0
    assert planner.plan().is_empty()


def test_batch_writes_see_each_other() -> None:
    planner = TimelinePlanner([], now=NOW, new_id=ids())
    planner.add(wr("a", 0, single=True))
    planner.add(wr("b", 10, single=True))
    planner.add(wr("b", 12, single=True))
    plan = planner.plan()
    assert shape(plan.creates) == [("a", 0, 10, 1), ("b", 10, FOREVER, 2)]
    assert (plan.created, plan.confirmed) == (2, 1) and not plan.expires


def test_a_record_written_and_cut_in_one_batch_is_created_once() -> None:
    planner = TimelinePlanner([], now=NOW, new_id=ids())
    planner.add(wr("a", 0, single=True))
    planner.add(wr("b", 0, single=True))
    plan = planner.plan()
    assert shape(plan.creates) == [("b", 0, FOREVER, 1)] and plan.fact_delta == 1


def test_reshaped_records_are_recorded_anew() -> None:
    old = replace(rec("a", 0, confirmations=3, confidence=0.5), provenance=Provenance(source="doc"))
    planner = TimelinePlanner([old], now=NOW, new_id=ids("x"))
    planner.retract("s", "P", None, 5)
    plan = planner.plan()
    (copy,) = plan.creates
    assert plan.expires == [old]
    assert copy.id != old.id and copy.recorded_at == NOW and copy.expired_at is None
    assert (copy.valid_at, copy.invalid_at, copy.confirmations, copy.confidence) == (0, 5, 3, 0.5)
    assert copy.provenance == old.provenance


def test_empty_plan() -> None:
    plan = TimelinePlanner([rec("a", 0)], now=NOW).plan()
    assert plan.is_empty() and plan.fact_delta == 0 and Plan().is_empty()


# -- TimelinePlanner: properties -------------------------------------------------------------------

OBJECTS = ("a", "b", "c")
T = st.integers(min_value=0, max_value=12)


@st.composite
def writes(draw: st.DrawFn, single: bool | None = None) -> Write:
    valid_at = draw(T)
    invalid_at = draw(st.none() | st.integers(min_value=valid_at + 1, max_value=14))
    return wr(
        draw(st.sampled_from(OBJECTS)),
        valid_at,
        invalid_at,
        single=draw(st.booleans()) if single is None else single,
        confidence=draw(st.sampled_from([0.2, 0.5, 1.0])),
    )


retractions = st.tuples(st.none() | st.sampled_from(OBJECTS), T)
actions = st.one_of(writes(), retractions)


Action = Write | tuple[str | None, int]


def act(state: list[Record], action: Action, now: int) -> list[Record]:
    """Apply one write, or one retraction ``(object or None, at)``."""
    if isinstance(action, Write):
        return step(state, action, now)[0]
    planner = TimelinePlanner(state, now=now, new_id=ids(f"r{now}-"))
    planner.retract("s", "P", *action)
    return apply(state, planner.plan())


def run(actions: Iterable[Action]) -> list[Record]:
    state: list[Record] = []
    for now, action in enumerate(actions, start=1):
        state = act(state, action, now)
    return state


def assert_same_fact_never_meets(state: list[Record]) -> None:
    for a, b in itertools.combinations(state, 2):
        if a.object == b.object:
            assert not a.meets(b.valid_at, b.invalid_at), f"{a} and {b} overlap or touch"


@settings(max_examples=200)
@given(st.lists(writes(single=True), max_size=12))
def test_single_valued_records_never_overlap(sequence: list[Write]) -> None:
    state: list[Record] = []
    for now, write in enumerate(sequence, start=1):
        state, _ = step(state, write, now)
        for a, b in itertools.combinations(state, 2):
            assert not overlap(a, b), f"{a} and {b} overlap"
        assert_same_fact_never_meets(state)


@settings(max_examples=200)
@given(st.lists(actions, max_size=12))
def test_records_of_one_fact_never_overlap_or_touch(sequence: list[Action]) -> None:
    state: list[Record] = []
    for now, action in enumerate(sequence, start=1):
        state = act(state, action, now)
        assert_same_fact_never_meets(state)


@settings(max_examples=200)
@given(st.lists(actions, max_size=8), writes())
def test_confirmations_are_never_lost(history: list[Action], write: Write) -> None:
    state = run(history)
    after, plan = step(state, write)
    # The written fact gains exactly one confirmation, whatever merges happened.
    assert conf(after, write.object) == conf(state, write.object) + 1
    # Other values lose only records closed at the very instant they began.
    for obj in set(OBJECTS) - {write.object}:
        vanished = (
            sum(
                r.confirmations
                for r in state
                if r.object == obj and r.holds_at(write.valid_at) and r.valid_at == write.valid_at
            )
            if write.single_valued
            else 0
        )
        assert conf(after, obj) == conf(state, obj) - vanished
    assert plan.created + plan.confirmed == 1
    assert plan.fact_delta == len(after) - len(state)


@settings(max_examples=200)
@given(st.lists(actions, max_size=8), writes())
def test_writing_the_same_fact_again_only_confirms(history: list[Action], write: Write) -> None:
    state, _ = step(run(history), write)
    again, plan = step(state, write, NOW + 1)
    assert not plan.creates and not plan.expires and plan.confirmed == 1 and plan.created == 0
    (updated,) = plan.updates
    (before,) = [r for r in state if r.id == updated.id]
    assert updated.confirmations == before.confirmations + 1
    assert shape(again) == sorted(
        (r.object, r.valid_at, end_of(r.invalid_at), r.confirmations + (r.id == updated.id)) for r in state
    )


@settings(max_examples=200)
@given(st.lists(actions, max_size=6), st.lists(writes(), min_size=1, max_size=4))
def test_a_batch_equals_its_writes_one_by_one(history: list[Action], batch: list[Write]) -> None:
    state = run(history)
    planner = TimelinePlanner(state, now=NOW, new_id=ids("b"))
    for write in batch:
        planner.add(write)
    together = apply(state, planner.plan())
    apart = state
    for write in batch:
        apart, _ = step(apart, write)
    assert shape(together) == shape(apart)


@settings(max_examples=200)
@given(st.lists(actions, max_size=8), st.none() | st.sampled_from(OBJECTS), T)
def test_retract_ends_exactly_the_holding_intervals(history: list[Action], obj: str | None, at: int) -> None:
    state = run(history)
    planner = TimelinePlanner(state, now=NOW, new_id=ids("r"))
    ended = planner.retract("s", "P", obj, at)
    after = apply(state, planner.plan())
    hit = [r for r in state if (obj is None or r.object == obj) and r.holds_at(at)]
    assert ended == len(hit)
    expected = [r for r in state if r not in hit] + [replace(r, invalid_at=at) for r in hit if r.valid_at < at]
    assert shape(after) == shape(expected)
    assert not any((obj is None or r.object == obj) and r.holds_at(at) for r in after)


# -- merge_plan ------------------------------------------------------------------------------------


def test_merge_copies_records_that_meet_nothing() -> None:
    moved = [rec("x", 0, 5, id="m1"), rec("x", 0, 2, id="old", expired_at=50)]
    plan = merge_plan([rec("x", 6, id="t1")], moved, single_valued=(), now=NOW, new_id=ids())
    assert sorted(plan.creates, key=lambda r: r.id) == sorted(moved, key=lambda r: r.id)
    assert not plan.expires and plan.confirmed == 0


def test_merge_unites_meeting_records_of_a_fact() -> None:
    target = rec("x", 5, 10, id="t1", confirmations=2, confidence=0.3)
    moved = rec("x", 10, 20, id="m1", confirmations=3, confidence=0.8)
    plan = merge_plan([target], [moved], single_valued=(), now=NOW, new_id=ids("u"))
    assert plan.expires == [target]
    union, history = plan.creates
    assert history == replace(moved, expired_at=NOW)
    assert (union.valid_at, union.invalid_at, union.confirmations, union.confidence) == (5, 20, 5, 0.8)
    assert union.recorded_at == NOW and union.expired_at is None


def test_merge_unites_moved_records_that_became_one_fact() -> None:
    # s->t and t->s both become t->t when s is merged into t.
    a = rec("t", 0, 5, id="m1", subject="t")
    b = rec("t", 5, None, id="m2", subject="t", confirmations=2)
    plan = merge_plan([], [a, b], single_valued=(), now=NOW, new_id=ids("u"))
    live = [c for c in plan.creates if c.expired_at is None]
    assert shape(live) == [("t", 0, FOREVER, 3)]
    assert sorted(c.id for c in plan.creates if c.expired_at == NOW) == ["m1", "m2"]


def test_merge_bridging_record_unites_a_chain() -> None:
    target = [rec("x", 0, 2, id="t1"), rec("x", 4, 6, id="t2", confirmations=2)]
    plan = merge_plan(target, [rec("x", 2, 4, id="m1", confirmations=4)], single_valued=(), now=NOW, new_id=ids("u"))
    assert shape(apply(target, plan)) == [("x", 0, 6, 7)]


@st.composite
def disjoint_spans(draw: st.DrawFn) -> list[tuple[int, int | None]]:
    """Intervals of one fact that neither overlap nor touch."""
    points = sorted(draw(st.sets(st.integers(min_value=0, max_value=30), max_size=6)))
    if len(points) % 2:
        points.append(None)  # type: ignore[arg-type]
    return list(zip(points[::2], points[1::2], strict=True))


def records(subject: str, obj: str, spans: list[tuple[int, int | None]], prefix: str) -> list[Record]:
    return [
        rec(obj, v, i, id=f"{prefix}{n}", subject=subject, confirmations=1 + n % 3) for n, (v, i) in enumerate(spans)
    ]


def covered(records: Iterable[Record], subject: str, obj: str) -> set[int]:
    return {t for r in records if (r.subject, r.object) == (subject, obj) for t in range(0, 40) if r.holds_at(t)}


@settings(max_examples=200)
@given(
    st.fixed_dictionaries({k: disjoint_spans() for k in ("tx", "ty", "xt", "tt")}),
    st.fixed_dictionaries({k: disjoint_spans() for k in ("sx", "st", "ts", "ss")}),
    st.lists(st.tuples(st.sampled_from(["x", "y"]), T, T), max_size=3),
)
def test_merge_keeps_coverage_and_confirmations(
    target_spans: dict[str, list[tuple[int, int | None]]],
    source_spans: dict[str, list[tuple[int, int | None]]],
    expired: list[tuple[str, int, int]],
) -> None:
    """Merge s into t: facts t->x, t->y, x->t of t; s->x, s->t, t->s, s->s of s (re-keyed)."""
    target = [r for key, spans in target_spans.items() for r in records(key[0], key[1], spans, f"t{key}")]
    rekey = {"s": "t", "t": "t", "x": "x"}
    moved = [
        replace(r, subject=rekey[r.subject], object=rekey[r.object])
        for key, spans in source_spans.items()
        for r in records(key[0], key[1], spans, f"s{key}")
    ]
    history = [rec(o, a, a + b + 1, id=f"h{n}", subject="t", expired_at=NOW - 1) for n, (o, a, b) in enumerate(expired)]
    plan = merge_plan(target, moved + history, single_valued=(), now=NOW, new_id=ids("u"))
    after = apply(target, plan)
    assert_same_fact_never_meets([r for r in after if r.subject == "t"])
    for subject, obj in {(r.subject, r.object) for r in [*target, *moved]}:
        same = [r for r in after if (r.subject, r.object) == (subject, obj)]
        assert_same_fact_never_meets(same)
        assert covered(after, subject, obj) == covered([*target, *moved], subject, obj)
        for r in same:
            if r.invalid_at is None:
                assert any(x.invalid_at is None for x in [*target, *moved] if (x.subject, x.object) == (subject, obj))
    assert sum(r.confirmations for r in after) == sum(r.confirmations for r in [*target, *moved])
    # Every moved record is kept exactly once: as it was, or as history expired now.
    created = [c.id for c in plan.creates]
    for r in moved + history:
        assert created.count(r.id) == 1
    for c in plan.creates:
        if c.id.startswith("h"):
            assert c.expired_at == NOW - 1


def test_new_records_carry_the_writes_trust_state() -> None:
    planner = TimelinePlanner([], now=NOW, new_id=ids())
    planner.add(replace(wr("a", 0), status="candidate", flag="rejected before"))
    (created,) = planner.plan().creates
    assert (created.status, created.flag) == ("candidate", "rejected before")


@pytest.mark.parametrize("written", [(0, 10), (5, 20), (10, 30)])  # inside, overlapping, touching
def test_a_write_never_ends_a_dispute(written: tuple[int, int]) -> None:
    """Only feedback ends a dispute: a write united with a disputed record keeps the fact disputed, whatever
    its interval (before, a write that extended the interval made the whole fact believed again)."""
    disputed = replace(rec("x", 0, 10, id="d1"), status="disputed")
    after, _ = step([disputed], wr("x", *written))
    assert [(r.status, r.confirmations) for r in after] == [("disputed", 2)]


def test_a_candidate_united_with_a_flagged_one_keeps_the_flag() -> None:
    flagged = replace(rec("x", 0, 10, id="c1"), status="candidate", flag="rejected before: no")
    after, _ = step([flagged], replace(wr("x", 5, 20), status="candidate"))
    assert [(r.status, r.flag, r.valid_at, r.invalid_at) for r in after] == [
        ("candidate", "rejected before: no", 0, 20)]


def test_merge_unites_only_records_in_the_same_trust_state() -> None:
    target = rec("x", 0, 10, id="t1")
    moved = replace(rec("x", 5, 20, id="m1"), status="candidate")
    plan = merge_plan([target], [moved], single_valued=(), now=NOW, new_id=ids("u"))
    assert plan.creates == [moved] and not plan.expires


# -- merge_plan: as if the moved facts had been written to the target in the first place ----------------


def test_merge_resolves_two_current_values_of_a_single_valued_predicate() -> None:
    paris = rec("paris", 10, id="t1", predicate="LIVES_IN")  # the target's value
    london = rec("london", 20, id="m1", predicate="LIVES_IN")  # the merged entity's, later
    plan = merge_plan([paris], [london], single_valued={"LIVES_IN"}, now=NOW, new_id=ids("u"))
    after = apply([paris], plan)
    assert sorted((r.object, r.valid_at, r.invalid_at) for r in after) == [("london", 20, None), ("paris", 10, 20)]
    # London moved untouched keeps its id and belief time; Paris was reshaped, its old record expired.
    assert london in plan.creates and plan.expires == [paris]


def test_merge_ends_an_earlier_moved_value_where_the_targets_later_one_begins() -> None:
    berlin = rec("berlin", 30, id="t1", predicate="LIVES_IN")
    paris = rec("paris", 10, id="m1", predicate="LIVES_IN")
    plan = merge_plan([berlin], [paris], single_valued={"LIVES_IN"}, now=NOW, new_id=ids("u"))
    after = apply([berlin], plan)
    assert sorted((r.object, r.valid_at, r.invalid_at) for r in after) == [("berlin", 30, None), ("paris", 10, 30)]
    kept = [c for c in plan.creates if c.id == "m1"]
    assert kept == [replace(paris, expired_at=NOW)]  # the moved record changed: kept as history


def test_merge_keeps_candidates_and_disputes() -> None:
    believed = rec("x", 0, id="t1")
    disputed = replace(rec("x", 0, id="m1"), status="disputed")
    candidate_t = replace(rec("y", 0, id="t2"), status="candidate")
    candidate_m = replace(rec("y", 0, id="m2", confirmations=2), status="candidate")
    plan = merge_plan([believed, candidate_t], [disputed, candidate_m], single_valued=(), now=NOW, new_id=ids("u"))
    after = apply([believed, candidate_t], plan)
    assert sorted((r.object, r.status, r.confirmations) for r in after) == [("x", "disputed", 2),
                                                                            ("y", "candidate", 3)]


def test_a_candidate_never_closes_a_believed_value_in_a_merge() -> None:
    paris = rec("paris", 10, id="t1", predicate="LIVES_IN")
    london = replace(rec("london", 20, id="m1", predicate="LIVES_IN"), status="candidate")
    plan = merge_plan([paris], [london], single_valued={"LIVES_IN"}, now=NOW, new_id=ids("u"))
    after = apply([paris], plan)
    assert sorted((r.object, r.invalid_at, r.status) for r in after) == [("london", None, "candidate"),
                                                                         ("paris", None, "believed")]


# -- the short ways: a new fact that unites with nothing --------------------------------------------------


class _GeneralOnly(TimelinePlanner):
    shortcuts = False


_OBJECTS = st.sampled_from(["a", "b", "c"])
_TIMES = st.integers(0, 40)


@st.composite
def _stored(draw: st.DrawFn) -> list[Record]:
    made = []
    for i in range(draw(st.integers(0, 4))):
        start = draw(_TIMES)
        end = draw(st.none() | st.integers(start + 1, 50))
        made.append(replace(rec(draw(_OBJECTS), start, end, id=f"old{i}", subject=draw(st.sampled_from(["s", "t"])),
                                confirmations=draw(st.integers(1, 3))),
                            status=draw(st.sampled_from(["believed", "disputed"])), pinned=draw(st.booleans()),
                            flag=draw(st.none() | st.just("rejected once")), confirmed_at=draw(st.none() | _TIMES)))
    return made


@st.composite
def _writes(draw: st.DrawFn) -> list[Write]:
    return [replace(wr(draw(_OBJECTS), start, draw(st.none() | st.integers(start + 1, 50)),
                       single=draw(st.booleans()), subject=draw(st.sampled_from(["s", "t", "u"])),
                       predicate=draw(st.sampled_from(["P", "Q"])), confidence=draw(st.sampled_from([0.5, 1.0]))),
                    flag=draw(st.none() | st.just("")), status=draw(st.sampled_from(["believed", "disputed"])))
            for start in draw(st.lists(_TIMES, max_size=8))]


@settings(max_examples=400, deadline=None)
@given(stored=_stored(), writes=_writes())
def test_the_short_ways_plan_exactly_what_the_general_case_plans(stored: list[Record], writes: list[Write]) -> None:
    plans = []
    # The planner as Write, the general case only, and as planning.facts drives it: the first write of a timeline
    # by its values (TimelinePlanner.first), the others as Writes.
    for kind, by_values in ((TimelinePlanner, False), (_GeneralOnly, False), (TimelinePlanner, True)):
        serial = itertools.count()
        planner = kind(stored, now=NOW, new_id=lambda serial=serial: f"new{next(serial)}")
        for write in writes:
            if not (by_values and planner.first(write.subject, write.predicate, write.object, write.valid_at,
                                                write.invalid_at, write.confidence, write.provenance, write.status,
                                                write.flag)):
                planner.add(write)
        plans.append(planner.plan())
    assert plans[0] == plans[1] == plans[2]
    # The short ways build their records without Record.__init__ (rules/built.py): the same fields, in order.
    for plan in plans[1:]:
        assert [list(vars(r).items()) for r in plans[0].creates] == [list(vars(r).items()) for r in plan.creates]
