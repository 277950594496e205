"""Pure rules of recall: term limits, stems for predicate matching, match strengths, BM25."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from synapse_graph.rules.recall import (
    MAX_TERM_LENGTH,
    _split_case,
    content_terms,
    predicate_terms,
    scope_token,
    searched_terms,
    stem,
    strengths,
    term_matches,
)
from synapse_graph.rules.stems import Matches, bm25, fact_search_text, fact_sentence, search_stems


def test_words_longer_than_any_name_are_dropped() -> None:
    assert content_terms("dana " + "x" * (MAX_TERM_LENGTH + 1)) == ["dana"]
    assert content_terms("x" * 4000) == []
    assert content_terms("y" * MAX_TERM_LENGTH) == ["y" * MAX_TERM_LENGTH]


@pytest.mark.parametrize(
    ("word", "expected"),
    [("owns", "own"), ("owned", "own"), ("owner", "own"), ("lives", "liv"), ("live", "liv"), ("running", "run"),
     ("runs", "run"), ("used", "use"), ("uses", "use"), ("led", "lead"), ("leads", "lead"), ("called", "call"),
     ("maintains", "maintain"), ("maintained", "maintain"), ("written", "writ"), ("write", "writ"), ("bus", "bus")],
)
def test_stem(word: str, expected: str) -> None:
    assert stem(word) == expected


@pytest.mark.parametrize(
    ("predicate", "term", "named"),
    [("WORKS_AT", "work", True), ("OWNED_BY", "owns", True), ("OWNED_BY", "owner", True), ("LED_BY", "leads", True),
     ("MAINTAINED_BY", "maintains", True), ("DECIDED", "decide", True), ("LIVES_IN", "live", True),
     ("WRITTEN_IN", "write", True), ("OWNED_BY", "by", False), ("LIVES_IN", "lisbon", False),
     ("WORKS_AT", "wo", False), ("HAS_ROLE", "role", True)],
)
def test_a_term_names_a_predicate_by_its_stem(predicate: str, term: str, named: bool) -> None:
    assert (predicate_terms(predicate, [term]) == {term}) is named


def test_strengths_keep_the_margins_that_rank_fusion_drops() -> None:
    found = strengths({"a": 8.0, "b": 2.0, "c": None, "d": 4.0}, {"a": None, "b": None, "c": 0.9, "d": 0.55})
    assert found == pytest.approx({"a": 1.0, "b": 0.25, "c": 0.8, "d": 0.6})
    assert strengths({"a": None}, {"a": None}) == {"a": 1.0}  # entries named by the caller


def test_term_matches_reads_names_as_the_index_does() -> None:
    assert term_matches("billingService", ["billing", "serv", "job"]) == {"billing", "serv"}
    assert term_matches("programming language", ["language"]) == {"language"}
    assert term_matches(None, ["x"]) == set()


def test_a_possessive_s_is_not_a_word_of_the_question() -> None:
    assert content_terms("Which city is Sam Okafor's team in?") == ["city", "sam", "okafor", "team"]
    assert content_terms("Dana’s laptop") == ["dana", "laptop"]
    assert content_terms("k8s") == ["k", "8", "s"]


def test_common_terms_are_left_out_of_the_name_search_while_rarer_ones_remain() -> None:
    hits = {"project": 101, "alpha": 101, "1234": 6}  # counted up to the cap; "depend" matches nothing
    assert searched_terms(["project", "alpha", "1234", "depend"], hits, 101) == ["1234"]
    assert searched_terms(["project", "alpha"], hits, 101) == ["project", "alpha"]  # only common: all
    # A term that matches no name is not a rarer one: it cannot stand in for the common ones.
    assert searched_terms(["project", "alpha", "depend"], hits, 101) == ["project", "alpha", "depend"]
    assert searched_terms(["project", "1234"], {"project": 100, "1234": 6}, 101) == ["project", "1234"]
    assert searched_terms([], {}, 101) == []


def test_scope_tokens_are_one_plain_word_per_scope() -> None:
    tokens = {scope_token(s) for s in ("a", "b", "a b", "a:b", "ä", "test-1", "")}
    assert len(tokens) == 7
    assert all(t.isascii() and t.isalnum() and t[0] == "s" and len(t) == 25 for t in tokens)
    assert scope_token("team/alpha") == scope_token("team/alpha")


def _split_case_by_letter(chunk: str) -> list[str]:
    """The letter-by-letter rule of rules/recall.py _split_case, without its shortcut for plain words."""
    parts: list[str] = []
    current = ""
    for index, char in enumerate(chunk):
        if current:
            previous, following = current[-1], chunk[index + 1] if index + 1 < len(chunk) else ""
            if ((previous.islower() and char.isupper())
                    or (previous.isupper() and char.isupper() and following.islower())
                    or (previous.isdigit() != char.isdigit())):
                parts.append(current)
                current = ""
        current += char
    parts.append(current)
    return parts


@given(st.text(alphabet=st.characters(categories=("Lu", "Ll", "Lt", "Lo", "Nd", "No")), min_size=1, max_size=12))
def test_the_shortcut_for_plain_words_splits_as_the_letter_rule_does(chunk: str) -> None:
    assert _split_case(chunk) == _split_case_by_letter(chunk)


@pytest.mark.parametrize("chunk",
                         ["Project", "alpha", "12", "x", "parseHTTPResponse2", "AB", "ǅx", "abc1", "Ab中", "²3"])
def test_plain_and_mixed_words_split_as_the_letter_rule_does(chunk: str) -> None:
    assert _split_case(chunk) == _split_case_by_letter(chunk)


_PARTS = st.text(alphabet=st.characters(codec="utf-8") | st.sampled_from("'’s _-.\u0301\u00b4\ufb01\u3000"),
                 max_size=24)


@given(_PARTS, st.from_regex(r"[A-Z][A-Z0-9_]{0,12}", fullmatch=True), _PARTS, st.none() | _PARTS)
def test_a_facts_search_text_is_the_stems_of_its_sentence(subject: str, predicate: str, obj: str,
                                                           source: str | None) -> None:
    # fact_search_text stems the sentence's parts apart (cached); the stems are the whole sentence's.
    assert fact_search_text(subject, predicate, obj, source) == search_stems(fact_sentence(subject, predicate, obj),
                                                                              source)


@given(_PARTS, st.none() | _PARTS)
def test_a_search_text_holds_its_stems_one_space_apart(text: str, source: str | None) -> None:
    # The database splits it at single spaces to score it as BM25 does (cypher/fragments/lexical_cut.cypher).
    held = search_stems(text, source)
    assert held.split(" ") == held.split() or held == ""


_STEMS = st.lists(st.sampled_from(["cat", "dog", "sun", "lake", "run", "two", "paint"]), max_size=12)


@given(st.dictionaries(st.text("abcdef", min_size=1, max_size=4), _STEMS, min_size=1, max_size=30),
       st.lists(st.sampled_from(["cat", "dog", "sun", "owl"]), min_size=1, max_size=4, unique=True),
       st.integers(0, 60), st.data())
def test_some_matches_scored_with_what_bm25_needs_of_all_score_as_among_all(
        docs: dict[str, list[str]], asked: list[str], corpus_size: int, data: st.DataObject) -> None:
    matching = {key: doc for key, doc in docs.items() if set(doc) & set(asked)}
    whole = bm25(asked, matching, corpus_size=corpus_size)
    some = data.draw(st.sets(st.sampled_from(sorted(matching)))) if matching else set()
    matches = Matches(len(matching), sum(len(doc) for doc in matching.values()),
                      {stem: sum(1 for doc in matching.values() if stem in doc) for stem in asked})
    scored = bm25(asked, {key: matching[key] for key in some}, corpus_size=corpus_size, matches=matches)
    assert scored == {key: whole[key] for key in some}



@given(st.dictionaries(st.text("abc:0123", min_size=1, max_size=4), st.sampled_from([0.0, 0.5, 1.25, 2.0, 3.5]),
                       max_size=30),
       st.dictionaries(st.text("abc:0123", min_size=1, max_size=4), st.text("xyz", max_size=2)))
def test_memories_are_ordered_by_score_then_what_they_say_as_a_full_sort_orders_them(
        scores: dict[str, float], says: dict[str, str]) -> None:
    # engine/recall_found.py builds what a memory says only where scores tie: the order is the full sort's.
    from synapse_graph.engine.recall_found import by_score as _by_score

    said_for: list[str] = []

    def said(key: str) -> str:
        said_for.append(key)
        return says.get(key, "")

    expected = sorted(scores.items(), key=lambda item: (-item[1], says.get(item[0], ""), item[0]))
    assert _by_score(scores, said) == expected
    assert all(sum(s == scores[k] for s in scores.values()) > 1 for k in said_for)
