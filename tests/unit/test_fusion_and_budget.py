"""Recall's fusion of legs and bonuses (rules/fusion.py) and packing into a token budget (rules/budget.py)."""

from __future__ import annotations

from datetime import datetime
from itertools import pairwise

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from synapse_graph.rules.asked_time import asked_time
from synapse_graph.rules.budget import Packed, approx_tokens, pack
from synapse_graph.rules.fusion import Candidate, Weights, fuse

MAY_8 = datetime(2023, 5, 8, 13, 56)
JUNE_9 = datetime(2023, 6, 9, 10, 0)


def _keys(found: list[object]) -> list[str]:
    return [f.key for f in found]  # type: ignore[attr-defined]


def test_legs_are_scaled_by_their_best_and_averaged_with_their_weights() -> None:
    found = fuse([Candidate("a", lexical=10.0, vector=0.30), Candidate("b", lexical=2.0, vector=0.60),
                  Candidate("c", vector=0.45)], weights=Weights(lexical=1.0, vector=1.0))
    assert _keys(found) == ["a", "b", "c"]
    assert [round(f.legs, 3) for f in found] == [0.75, 0.6, 0.375]  # (1 + .5)/2, (.2 + 1)/2, (0 + .75)/2
    vector_first = fuse([Candidate("a", lexical=10.0, vector=0.30), Candidate("b", lexical=2.0, vector=0.60)])
    assert _keys(vector_first) == ["b", "a"]  # the default weighs the vector leg 1, the lexical 0.3


def test_without_an_embedder_the_lexical_leg_alone_ranks() -> None:
    found = fuse([Candidate("a", lexical=1.0), Candidate("b", lexical=3.0)])
    assert _keys(found) == ["b", "a"] and found[0].legs == pytest.approx(1.0)


def test_a_memory_about_the_named_entity_goes_first() -> None:
    """"What animals does Melanie own?": her cat beats a closer sentence about someone else."""
    candidates = [Candidate("caroline-dog", lexical=4.0, vector=0.62, entities=frozenset({"caroline"})),
                  Candidate("melanie-cat", lexical=3.0, vector=0.55, entities=frozenset({"melanie"}))]
    assert _keys(fuse(candidates)) == ["caroline-dog", "melanie-cat"]
    named = fuse(candidates, named={"melanie"})
    assert _keys(named) == ["melanie-cat", "caroline-dog"] and named[0].entity == 0.5


def test_a_memory_valid_in_the_asked_window_goes_first() -> None:
    asked = asked_time("What did Caroline do on 8 May, 2023?", datetime(2023, 7, 1))
    candidates = [Candidate("june", vector=0.7, valid_at=JUNE_9), Candidate("may", vector=0.5, valid_at=MAY_8),
                  Candidate("undated", vector=0.8)]
    found = fuse(candidates, in_window=asked.contains)
    assert _keys(found) == ["may", "undated", "june"] and found[0].time == 1.0


def test_a_when_question_prefers_memories_that_carry_a_time() -> None:
    candidates = [Candidate("undated", lexical=1.0), Candidate("dated", lexical=0.9, valid_at=MAY_8)]
    assert _keys(fuse(candidates)) == ["undated", "dated"]
    assert _keys(fuse(candidates, asks_when=True)) == ["dated", "undated"]


def test_memories_of_the_best_episode_rise_together() -> None:
    candidates = [Candidate("s1-best", vector=0.9, episode="s1"), Candidate("s2-a", vector=0.8, episode="s2"),
                  Candidate("s1-other", vector=0.6, episode="s1"), Candidate("s3", vector=0.7, episode="s3")]
    found = fuse(candidates)
    assert _keys(found) == ["s1-best", "s1-other", "s2-a", "s3"]
    assert [f.episode for f in found] == pytest.approx([0.5, 0.5, 0.25, 0.0])
    assert _keys(fuse(candidates, weights=Weights(episode=0.0))) == ["s1-best", "s2-a", "s3", "s1-other"]


def test_ties_keep_the_legs_order_and_limit_cuts() -> None:
    candidates = [Candidate("b", lexical=1.0), Candidate("a", lexical=1.0), Candidate("c", lexical=0.5)]
    assert _keys(fuse(candidates)) == ["b", "a", "c"]
    assert _keys(fuse(candidates, limit=2)) == ["b", "a"]
    assert fuse([]) == []


def test_a_memory_two_legs_returned_counts_once_with_both_scores() -> None:
    candidates = [Candidate("a", lexical=2.0), Candidate("b", lexical=4.0, episode="s1"),
                  Candidate("a", vector=0.9, valid_at=MAY_8), Candidate("b", vector=0.3, entities=frozenset("x"))]
    found = fuse(candidates, named={"x"}, weights=Weights(lexical=1.0, vector=1.0, episode=0.0))
    assert [(f.key, round(f.legs, 3), f.entity) for f in found] == [("b", 0.667, 0.5), ("a", 0.75, 0.0)]


_candidates = st.lists(st.builds(
    Candidate, key=st.text(min_size=1, max_size=3),
    lexical=st.none() | st.floats(min_value=0.01, max_value=50), vector=st.none() | st.floats(-1, 1),
    entities=st.frozensets(st.sampled_from("xyz"), max_size=2), episode=st.none() | st.sampled_from("pq"),
    valid_at=st.none() | st.sampled_from([MAY_8, JUNE_9])), max_size=12)


@given(_candidates, st.frozensets(st.sampled_from("xyz")), st.booleans())
@example([Candidate("0"), Candidate("0", vector=2.225073858507e-311), Candidate("00", vector=-1.0, episode="p")],
         frozenset(), False)  # a subnormal best cosine scaled -1 to -inf and the episode bonus to nan
def test_fusion_ranks_each_memory_once_best_first(candidates: list[Candidate], named: frozenset[str],
                                                 when: bool) -> None:
    found = fuse(candidates, named=named, asks_when=when, in_window=lambda at: at == MAY_8)
    assert sorted(_keys(found)) == sorted({c.key for c in candidates})
    assert all(round(a.score, 9) >= round(b.score, 9) for a, b in pairwise(found))  # equal as shown: by what they say
    for f in found:
        assert f.score == pytest.approx(f.legs + f.entity + f.time + f.episode)


def test_approx_tokens() -> None:
    assert approx_tokens("") == 1
    assert approx_tokens("Melanie has a cat named Oliver.") == 8  # 31 characters
    assert approx_tokens("日本語") == 3
    assert approx_tokens("café") == 2  # ceil(3 / 4) + 1


def test_pack_keeps_the_best_that_fit_in_order() -> None:
    lines = ["a" * 40, "b" * 80, "c" * 12, "d" * 20]  # 10, 20, 3, 5 tokens
    packed = pack(lines, 20, approx_tokens)
    assert packed == Packed(kept=["a" * 40, "c" * 12, "d" * 20], tokens=18, left_out=1)
    assert pack(lines, 0, approx_tokens) == Packed(kept=[], tokens=0, left_out=4)
    assert pack([], 10, approx_tokens) == Packed()
    with pytest.raises(ValueError, match="max_tokens"):
        pack(lines, -1, approx_tokens)


@given(st.lists(st.integers(min_value=0, max_value=60), max_size=30), st.integers(min_value=0, max_value=200))
def test_packing_never_overruns_and_leaves_out_only_what_did_not_fit(costs: list[int], budget: int) -> None:
    items = list(enumerate(costs))
    packed = pack(items, budget, lambda item: item[1])
    assert packed.tokens == sum(c for _, c in packed.kept) <= budget
    assert packed.kept == [item for item in items if item in packed.kept]  # rank order kept
    assert packed.left_out == len(items) - len(packed.kept)
    used = 0
    for item in items:  # greedy: an item left out did not fit in what was left when its turn came
        if item in packed.kept:
            used += item[1]
        else:
            assert used + item[1] > budget
