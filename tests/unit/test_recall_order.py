"""The lexical leg's order: best score first, equal scores cut by what the memories say, then by key. What a
memory says is built only for tied scores; the order must be the one a full sort by all three gives."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from synapse_graph.engine.recalling import _by_score, _said


def _observation(key: str, entity: str, text: str, valid_at: int | None) -> dict[str, Any]:
    return {"kind": "observation",
            "memory": {"id": key[2:], "entity_key": entity, "text": text, "valid_at": valid_at}}


@given(st.lists(st.tuples(st.sampled_from([0.5, 1.0, 1.25, 2.0]), st.sampled_from(["dana", "ravi"]),
                          st.sampled_from(["likes tea", "has a cat", ""]), st.none() | st.integers(0, 3)),
                max_size=30))
def test_ties_are_cut_as_a_full_sort_cuts_them(memories: list[tuple[float, str, str, int | None]]) -> None:
    pool = {f"o:{i}": _observation(f"o:{i}", entity, text, at) for i, (_, entity, text, at) in enumerate(memories)}
    scores = {f"o:{i}": score for i, (score, *_rest) in enumerate(memories)}
    full = sorted(scores.items(), key=lambda item: (-item[1], _said("observation", pool[item[0]]["memory"]), item[0]))
    assert _by_score(scores, pool) == full
