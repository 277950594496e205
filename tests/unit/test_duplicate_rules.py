"""The pure rules of duplicate entities (issue 30): names read apart, how two names agree, blocking, scores."""

from __future__ import annotations

import itertools
import random

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from synapse_graph.rules.blocking import Blocks, entity_keys
from synapse_graph.rules.duplicates import (
    DEFAULT_THRESHOLD,
    Link,
    Profile,
    ScopeStats,
    pair_key,
    propose,
    score_pair,
)
from synapse_graph.rules.names import compare, fold, parse

DAY = 86_400_000_000


@pytest.mark.parametrize(("written", "tokens", "extra"), [
    ("José O'Brien-Díaz", ("jose", "obrien", "diaz"), {}),
    ("Dr. Dana Reyes", ("dana", "reyes"), {"titled": True}),
    ("Reyes, Dana", ("dana", "reyes"), {}),
    ("dana.reyes@acme.com", ("dana", "reyes"), {"handle": True}),
    ("@danareyes", ("danareyes",), {"handle": True}),
    ("dana_reyes42", ("dana", "reyes"), {"handle": True}),
    ("James Welch (writer)", ("james", "welch"), {"qualifier": "writer"}),
    ("Robert Downey Jr.", ("robert", "downey"), {"suffix": "jr"}),
    ("J.R.R. Tolkien", ("j", "r", "r", "tolkien"), {}),
])
def test_a_written_name_is_read_apart(written: str, tokens: tuple[str, ...], extra: dict[str, object]) -> None:
    form = parse(written)
    assert form.tokens == tokens
    for field, value in extra.items():
        assert getattr(form, field) == value


@pytest.mark.parametrize(("a", "b", "kind"), [
    ("Dana Reyes", "DANA REYES", "same name"),
    ("José García", "Jose Garcia", "same name"),
    ("Dr. Dana Reyes", "dana reyes", "same name"),
    ("Reyes, Dana", "Dana Reyes", "same name"),
    ("dana.reyes@acme.com", "Dana Reyes", "same name"),
    ("Dana Reyes", "Reyes Dana", "same words"),
    ("John Robinson Pierce", "John Pierce", "dropped middle name"),
    ("@danareyes", "Dana Reyes", "same name"),
    ("reyes_d", "Dana Reyes", "initials"),
    ("reyesdana", "Dana Reyes", "handle"),
    ("dreyes", "Dana Reyes", "handle initials"),
    ("Bob Smith", "Robert Smith", "nickname"),
    ("Dana Reyse", "Dana Reyes", "typo"),
    ("D. Reyes", "Dana Reyes", "initials"),
    ("J. R. R. Tolkien", "John Ronald Reuel Tolkien", "initials"),
    ("Dana", "Dana Reyes", "partial name"),
    ("D. Reyes", "Dana R.", "partial name"),
    ("Acme Corp", "ACME Corporation", "similar name"),
])
def test_how_two_names_agree(a: str, b: str, kind: str) -> None:
    assert compare(parse(a), parse(b)).kind == kind
    assert compare(parse(b), parse(a)).kind == kind


@pytest.mark.parametrize(("a", "b"), [
    ("Alan Alda", "Arlene Alda"),  # two given names
    ("Jean Gill", "Joan Gill"),  # two given names one letter apart are no typo
    ("A Fire Upon the Deep", "Ahmed Deen"),  # an initial and a typo together are too little
    ("University of Puerto Rico", "Rice University"),
    ("Real Betis B", "Real Betis"),  # a trailing letter tells teams apart
    ("Yuva Gaurav Puraskar Award", "Yuva Puraskar"),  # words left out of a long name
])
def test_names_that_do_not_agree(a: str, b: str) -> None:
    m = compare(parse(a), parse(b))
    assert m.kind == "different" or sum(w for _, w, _ in m.against) <= -5.0, m


@pytest.mark.parametrize(("a", "b", "against"), [
    ("James Welch (writer)", "James Welch (actor)", "different qualifiers"),
    ("Robert Downey Jr.", "Robert Downey Sr.", "different suffixes"),
    ("Peter Pan (1953 film)", "Peter Pan", "qualified as a thing"),
    ("England national under-21 football team", "England national football team", "different numbers"),
])
def test_what_in_two_names_speaks_against_one_entity(a: str, b: str, against: str) -> None:
    m = compare(parse(a), parse(b))
    assert m.kind == "different" or against in {kind for kind, _, _ in m.against}


def test_blocking_pairs_the_ways_one_name_is_written_and_not_all_pairs() -> None:
    written = ["Dana Reyes", "D. Reyes", "dana.reyes@acme.com", "dreyes", "Reyes, Dana", "Dana Reyse",
               "Robert Smith", "Bob Smith", "Paris", "London", "Acme Corp"]
    pairs = Blocks.of([n] for n in written).pairs()
    assert set(itertools.combinations(range(5), 2)) <= pairs  # every way of writing Dana Reyes
    assert {(0, 5), (6, 7)} <= pairs  # a typo, a nickname
    assert not any(8 in pair or 9 in pair for pair in pairs)


def test_a_block_too_large_pairs_nobody_through_that_key() -> None:
    names = [["John"], *([f"John {surname}"] for surname in ("Smith", "Jones", "Brown", "Adams", "Clark"))]
    assert (0, 1) in Blocks.of(names[:3]).pairs()  # a one-word name and a name with that word
    assert (0, 1) not in Blocks.of(names, max_block=3).pairs()  # "john" is in six names: too many to say
    assert (1, 2) not in Blocks.of(names).pairs()  # two longer names sharing a word are not compared


def test_only_a_new_entity_is_compared_when_asked() -> None:
    profiles = [person("dana reyes", "Dana Reyes"), person("dana reyes.", "Dana Reyes."),
                person("d. reyes", "D. Reyes")]
    found = propose(profiles, only=lambda p: p.key == "d. reyes", threshold=0.0)
    assert found and all("d. reyes" in p.pair for p in found)


def person(key: str, name: str, *links: Link, kind: str | None = "person") -> Profile:
    return Profile(key=key, name=name, type=kind, links=links)


def works_at(org: str, start_day: int, end_day: int | None = None, degree: int = 2) -> Link:
    return Link("WORKS_AT", org, True, start_day * DAY, None if end_day is None else end_day * DAY, org, degree)


def born_in(city: str) -> Link:
    return Link("BORN_IN", city, True, 0, None, city, 5)


def test_a_proposal_carries_its_score_and_evidence() -> None:
    a = person("dana reyes", "Dana Reyes", works_at("acme", 10))
    b = person("d. reyes", "D. Reyes", works_at("acme", 40))
    [found] = propose([a, b])
    assert (found.canonical, found.other) == ("dana reyes", "d. reyes")
    assert found.score >= DEFAULT_THRESHOLD
    kinds = {e.kind for e in found.evidence}
    assert {"name", "shared neighbour", "same type"} <= kinds
    assert all(e.text for e in found.evidence)
    assert found.evidence[0].as_dict()["how"] == "initials"


def test_evidence_against_outweighs_an_equal_name() -> None:
    a = person("josé garcía", "José García", born_in("madrid"))
    b = person("jose garcia", "Jose Garcia", born_in("lima"))
    assert propose([a, b], single_valued={"BORN_IN"}) == []
    [kept] = propose([a, b])  # without the rule, nothing speaks against them
    assert kept.score >= 0.95


def test_two_types_and_a_fact_between_them_speak_against() -> None:
    a = person("peter pan", "Peter Pan")
    b = person("peter pan (film)", "Peter Pan (film)", kind="work")
    assert propose([a, b]) == []
    spouse = Link("MARRIED_TO", "alda, alan", True, 0, None, "Alda, Alan", 1)
    assert propose([person("alan alda", "Alan Alda", spouse), person("alda, alan", "Alda, Alan")]) == []


def test_a_short_name_fitting_two_people_is_not_proposed() -> None:
    alone = [person("alan alda", "Alan Alda"), person("a. alda", "A. Alda")]
    assert [p.other for p in propose(alone, threshold=0.7)] == ["a. alda"]
    both = [*alone, person("arlene alda", "Arlene Alda")]
    assert propose(both, threshold=0.7) == []


def test_a_pair_recorded_distinct_is_never_proposed() -> None:
    a, b = person("dana reyes", "Dana Reyes"), person("dana reyes.", "Dana Reyes.")
    assert propose([a, b])
    assert propose([a, b], distinct={pair_key(b.key, a.key)}) == []


def test_shared_neighbours_count_more_when_rare_and_overlapping() -> None:
    stats = ScopeStats()
    a = person("dana", "Dana", works_at("acme", 10, 100, degree=2))
    near = score_pair(a, person("dana reyes", "Dana Reyes", works_at("acme", 50, degree=2)), stats, ())
    apart = score_pair(a, person("dana reyes", "Dana Reyes", works_at("acme", 200, degree=2)), stats, ())
    crowded = score_pair(a, person("dana reyes", "Dana Reyes", works_at("acme", 50, degree=5000)), stats, ())
    assert near is not None and apart is not None and crowded is not None
    assert near.score > apart.score > crowded.score


@st.composite
def names(draw: st.DrawFn) -> str:
    words = draw(st.lists(st.text(st.characters(codec="utf-8", categories=("L", "Nd", "P", "Zs")), min_size=1,
                                  max_size=12), min_size=1, max_size=4))
    return " ".join(words)


@settings(max_examples=300, deadline=None)
@given(names(), names())
@example("Dana Reyes", "Dana R")  # an initial family name: once "initials" one way, "partial name" the other
def test_comparing_names_is_symmetric_and_bounded(a: str, b: str) -> None:
    x, y = compare(parse(a), parse(b)), compare(parse(b), parse(a))
    assert x.kind == y.kind
    assert x.strength == y.strength
    assert 0.0 <= x.strength <= 8.0


@settings(max_examples=200, deadline=None)
@given(names())
def test_a_name_agrees_with_itself_in_any_case_and_blocks_with_it(a: str) -> None:
    form = parse(a)
    if not form.tokens:
        return
    assert compare(form, parse(a.upper() if fold(a.upper()) == fold(a) else a)).kind == "same name"
    assert entity_keys([a]).keys() & entity_keys([a.swapcase()]).keys() or fold(a.swapcase()) != fold(a)


@settings(max_examples=50, deadline=None)
@given(st.lists(names(), min_size=2, max_size=12, unique_by=lambda n: n.casefold()), st.randoms())
def test_proposals_do_not_depend_on_the_order_of_the_entities(written: list[str], rnd: random.Random) -> None:
    profiles = [Profile(key=n.casefold(), name=n) for n in written]
    shuffled = profiles[:]
    rnd.shuffle(shuffled)
    first = [(p.pair, p.score) for p in propose(profiles, threshold=0.0)]
    again = [(p.pair, p.score) for p in propose(shuffled, threshold=0.0)]
    assert first == again
    assert all(0.0 <= score <= 1.0 for _, score in first)


def test_a_neighbour_shared_through_several_facts_weighs_its_strongest_pair_whatever_the_order() -> None:
    died_in = Link("DIED_IN", "china", True, 80 * DAY, None, "China", 400)
    born = Link("BORN_IN", "china", True, 0, None, "China", 400)
    a = person("jiang ying (musician)", "Jiang Ying (musician)", Link("BORN_IN", "china", True, 5 * DAY, None,
                                                                    "China", 400))
    found, again = (score_pair(a, person("jkang ying", "Jkang Ying", *links), ScopeStats(), ()) for links in
                    ((born, died_in), (died_in, born)))
    assert found is not None and found == again
    [shared] = [e for e in found.evidence if e.kind == "shared neighbour"]
    assert (shared.detail["predicate"], shared.detail["overlapping"]) == ("BORN_IN", True)


PREDICATES = ("BORN_IN", "DIED_IN", "WORKS_AT", "MARRIED_TO")


@st.composite
def linked(draw: st.DrawFn, key: str) -> list[Link]:
    return draw(st.lists(st.builds(
        lambda predicate, other, outgoing, start, length: Link(
            predicate, other, outgoing, start * DAY, None if length is None else (start + length) * DAY, other.title(),
            {"acme": 3, "lima": 40, "china": 400}.get(other, 1)),
        st.sampled_from(PREDICATES), st.sampled_from(("acme", "lima", "china", "dana reyes", "d. reyes")),
        st.booleans(), st.integers(0, 50), st.none() | st.integers(1, 30)), max_size=8))


@settings(max_examples=200, deadline=None)
@given(linked("dana reyes"), linked("d. reyes"), st.randoms())
def test_a_score_and_its_evidence_do_not_depend_on_the_order_of_the_facts(
    first: list[Link], second: list[Link], rnd: random.Random
) -> None:
    def scored(a_links: list[Link], b_links: list[Link]) -> object:
        a, b = person("dana reyes", "Dana Reyes", *a_links), person("d. reyes", "D. Reyes", *b_links)
        return score_pair(a, b, ScopeStats(), {"BORN_IN", "DIED_IN"})
    shuffled = (rnd.sample(first, len(first)), rnd.sample(second, len(second)))
    assert scored(first, second) == scored(*shuffled)


def _pairs_by_definition(entities: list[list[str]], max_block: int) -> set[tuple[int, int]]:
    """Blocking's pairs made the slow way: every key of every entity, each block, its askers."""
    keyed = [entity_keys(names) for names in entities]
    found: set[tuple[int, int]] = set()
    for key in {k for keys in keyed for k in keys}:
        members = [n for n, keys in enumerate(keyed) if key in keys]
        if not 1 < len(members) <= max_block:
            continue
        askers = [n for n in members if keyed[n][key]] if key[0] in "whi" else members
        found |= {(min(a, b), max(a, b)) for a in askers for b in members if a != b}
    return found


@settings(max_examples=150, deadline=None)
@given(st.lists(st.lists(st.sampled_from([
    "Dana Reyes", "D. Reyes", "Dana R.", "dreyes", "danareyes", "Dana", "Reyes", "Reyes Dana", "Dana Reyse",
    "Dana Maria Reyes", "Dan Reyes", "Daniel Reyes", "R. Dana", "Dana Dana", "D. D.", "de la Cruz", "Acme Inc.",
    "acme", "@dana.reyes", "Alan Alda", "A. Alda", "Arlene Alda", "alda", "aalda"]), min_size=1, max_size=3),
    min_size=2, max_size=10), st.integers(2, 6))
def test_blocking_pairs_what_its_keys_define(entities: list[list[str]], max_block: int) -> None:
    assert Blocks.of(entities, max_block=max_block).pairs() == _pairs_by_definition(entities, max_block)
