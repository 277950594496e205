"""rules/grams.py: a text holds every gram of every substring of it (so the index misses no match)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from synapse_graph.rules.grams import GRAM, MAX_QUERY_GRAMS, grams, query_grams
from synapse_graph.rules.recall import words


@given(st.text(), st.text(), st.text(), st.data())
def test_a_text_holds_the_grams_of_each_of_its_substrings(before: str, other: str, after: str, data: st.DataObject
                                                            ) -> None:
    text = before + other + after
    lowered = text.lower()
    start = data.draw(st.integers(0, len(lowered)))
    query = lowered[start:data.draw(st.integers(start, len(lowered)))]
    tokens = query_grams(query)
    if len(query) < GRAM:
        assert tokens is None
    else:
        assert tokens is not None and len(tokens) <= MAX_QUERY_GRAMS
        assert set(tokens) <= set(grams("unrelated", text).split())


def test_tokens_are_single_words_no_word_of_a_question_can_prefix() -> None:
    held = grams("a b,c\td", "Ünïcode 🎉 text", "x")
    assert held and all(t.startswith("_") and t[1:].isalnum() and t.isascii() for t in held.split())
    assert not any(w.startswith("_") for w in words(held))  # so no term of recall is a prefix of a gram
    assert grams("ab", None, "") == ""
