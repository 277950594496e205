"""The per-neighbour cap that hop 2 reads with: water-filling over the neighbours' fact counts."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from synapse_graph.rules.shares import fair_cut, level


def test_small_neighbours_leave_their_unused_share_to_the_hub() -> None:
    assert level([1, 2, 300], 10) == 7  # 1 + 2 + 7
    assert level([50, 50], 10) == 5
    assert level([3, 3, 3], 100) == 3  # everything there is
    assert level([], 10) == 1 and level([0, 0], 5) == 1


@given(st.lists(st.integers(0, 500), min_size=1, max_size=30), st.integers(1, 2000))
def test_the_level_is_the_smallest_cap_that_fills_the_limit(capacities: list[int], wanted: int) -> None:
    cap = level(capacities, wanted)

    def given(c: int) -> int:
        return sum(min(capacity, c) for capacity in capacities)

    if sum(capacities) >= wanted:
        assert given(cap) >= wanted
        assert cap == 1 or given(cap - 1) < wanted
    else:
        assert given(cap) == sum(capacities)


def test_the_cut_keeps_every_neighbour_and_fills_from_the_one_that_gave_most() -> None:
    vias = [["hub"]] * 8 + [["bea"], ["cy"]]  # the hub's facts are the oldest
    assert fair_cut(vias, 6) == [0, 1, 2, 3, 8, 9]
    assert fair_cut(vias, 20) == list(range(10))
    assert fair_cut([["a", "b"], ["a"], ["b"]], 2) == [0, 2]  # a fact two neighbours found counts once


@given(st.lists(st.lists(st.sampled_from("abcde"), min_size=1, max_size=2), max_size=60), st.integers(1, 80))
def test_the_cut_fills_the_limit_whenever_the_items_can(vias: list[list[str]], wanted: int) -> None:
    kept = fair_cut(vias, wanted)
    assert kept == sorted(set(kept)) and len(kept) <= wanted
    assert len(kept) == min(wanted, len(vias))
    given = {key: sum(key in v for v in vias) for v in vias for key in v}
    for key, count in given.items():  # a neighbour is cut only if the others filled what it left
        if sum(key in vias[i] for i in kept) < count:
            assert len(kept) == wanted
