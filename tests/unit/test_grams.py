"""rules/grams.py: a text holds every gram of every substring of it (so the index misses no match)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from synapse_graph.rules.grams import GRAM, MAX_QUERY_GRAMS, grams, query_grams


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


def test_tokens_are_single_words_of_letters_and_digits() -> None:
    held = grams("a b,c\td", "Ünïcode 🎉 text", "x")
    assert held and all(t.isalnum() and t.isascii() for t in held.split())
    assert grams("ab", None, "") == ""
