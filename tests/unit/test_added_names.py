"""Candidates brought up to date when entities are added (rules/added_names.py) equal those of blocking the whole
scope again: the pairs, their name matches, the weaker names' fits, the word counts, the hopeful pairs."""

from __future__ import annotations

from itertools import pairwise
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from synapse_graph.rules.added_names import KeyIndex, add
from synapse_graph.rules.duplicates import Candidates, Profile, name_candidates, pair_key
from synapse_graph.rules.text import name_key

GIVEN = ("dana", "d.", "alan", "a.", "al", "maria", "m", "jo", "johnny", "bob", "robert", "rob")
FAMILY = ("reyes", "reyez", "alda", "alder", "lopez", "lópez", "smith", "smyth", "inc", "acme", "dreyes", "")


@st.composite
def people(draw: st.DrawFn) -> Profile:
    given_name, family = draw(st.sampled_from(GIVEN)), draw(st.sampled_from(FAMILY))
    name = f"{given_name} {family}".strip()
    aliases = tuple(sorted(draw(st.lists(st.sampled_from(("dana reyes", "d reyes", "al", "bob smith")),
                                          max_size=1))))
    return Profile(key=name_key(name), name=name, aliases=aliases, type=draw(st.sampled_from((None, "Person"))))


def by_key(found: Candidates, threshold: float) -> dict[str, Any]:
    profiles = found.profiles
    return {
        "profiles": sorted(p.key for p in profiles),
        "matches": {pair_key(profiles[i].key, profiles[j].key): m for (i, j), m in found.matches.items()},
        "fits": {profiles[w].key: n for w, n in found.fits.items()},
        "words": {w: n for w, n in found.stats.words.items() if n},
        "hopeful": {pair_key(profiles[i].key, profiles[j].key) for i, j in found.hopeful(threshold)},
    }


@settings(max_examples=300, deadline=None)
@given(st.lists(people(), min_size=1, max_size=40, unique_by=lambda p: p.key), st.integers(1, 6),
       st.integers(2, 6), st.sampled_from((0.5, 0.8, 0.95)), st.randoms())
def test_adding_entities_gives_the_candidates_of_a_full_blocking(everyone: list[Profile], added: int, max_block: int,
                                                                 threshold: float, rng: Any) -> None:
    rng.shuffle(everyone)
    old, new = sorted(everyone[added:], key=lambda p: p.key), everyone[:added]
    keys = sorted(p.key for p in everyone)
    distinct = {pair_key(a, b) for a, b in pairwise(keys) if rng.random() < 0.2}
    before = name_candidates(old, distinct=distinct, max_block=max_block)
    before.hopeful(threshold)
    index = KeyIndex.of(before, max_block=max_block)
    grown = add(before, index, new, (), threshold=threshold, distinct=distinct)
    whole = name_candidates(sorted(everyone, key=lambda p: p.key), distinct=distinct, max_block=max_block)
    assert by_key(grown.candidates, threshold) == by_key(whole, threshold)
    profiles = grown.candidates.profiles
    assert all(profiles[i].key < profiles[j].key for i, j in grown.candidates.matches)
    was = {pair_key(before.profiles[i].key, before.profiles[j].key) for i, j in before.hopeful(threshold)}
    now = by_key(whole, threshold)["hopeful"]
    assert grown.gone == was - now
    assert now - was <= grown.again <= now


@settings(max_examples=100, deadline=None)
@given(st.lists(people(), min_size=2, max_size=30, unique_by=lambda p: p.key), st.integers(2, 5))
def test_adding_one_at_a_time_keeps_equal_to_a_full_blocking(everyone: list[Profile], max_block: int) -> None:
    found = name_candidates([everyone[0]], max_block=max_block)
    index = KeyIndex.of(found, max_block=max_block)
    for n, profile in enumerate(everyone[1:], start=2):
        found = add(found, index, [profile], (), threshold=0.8, distinct=set()).candidates
        whole = name_candidates(sorted(everyone[:n], key=lambda p: p.key), max_block=max_block)
        assert by_key(found, 0.8) == by_key(whole, 0.8)
