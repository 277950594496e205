"""Pure parts of the result shaping: exact times, fact lines, and cursors that cannot be forged into a crash."""

from __future__ import annotations

import base64
import json
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from synapse_graph.mcp import reference
from synapse_graph.mcp.formatting import (
    LIST_ENDS,
    InvalidCursorError,
    Snapshot,
    Trust,
    cursor_at_most,
    decode_cursor,
    encode_cursor,
    fact_line,
    observation_line,
    size_at_most,
    when,
)
from synapse_graph.mcp.schemas import QueryFactsArgs, RecallArgs
from synapse_graph.models import Fact, Observation


def test_times_are_as_short_as_they_are_exact() -> None:
    assert when(datetime(2022, 9, 15, tzinfo=UTC)) == "2022-09-15"
    assert when(datetime(2022, 9, 15, 9, 30, tzinfo=UTC)) == "2022-09-15T09:30:00Z"
    assert when(datetime(2022, 9, 15, 9, 30, 0, 120, tzinfo=UTC)) == "2022-09-15T09:30:00.000120Z"
    assert when(None) == "now"


def test_a_fact_line_says_its_interval_its_qualifiers_and_id() -> None:
    fact = Fact(id="f1", subject="Dana", predicate="LIVES_IN", object="Paris",
                valid_at=datetime(2019, 3, 1, tzinfo=UTC), invalid_at=datetime(2022, 9, 15, 9, 30, tzinfo=UTC),
                recorded_at=datetime(2024, 1, 1, tzinfo=UTC), confidence=0.4, confirmations=2, status="disputed")
    trust = Trust(datetime(2024, 9, 10, tzinfo=UTC))
    assert fact_line(fact, trust.of(fact)) == (
        "Dana LIVES_IN Paris  [2019-03-01 → 2022-09-15T09:30:00Z)  conf 0.4  ⚠ disputed: feedback said it is stale "
        "or wrong; no longer valid since 2022-09-15; stored 8 months ago — may be outdated; low confidence (0.40)"
        "  id f1")
    fresh = fact.model_copy(update={"status": "believed", "invalid_at": None, "confidence": 1.0, "pinned": True})
    assert fact_line(fresh, Trust(datetime(2024, 3, 1, tzinfo=UTC)).of(fresh)) == (
        "Dana LIVES_IN Paris  [2019-03-01 → now]  conf 1  pinned  id f1")
    # The threshold is the server's option: a shorter one calls the same fact old sooner.
    assert Trust(datetime(2024, 3, 1, tzinfo=UTC), timedelta(days=30)).of(fresh) == [
        "stored 2 months ago — may be outdated"]


def test_an_observation_is_one_quoted_line_and_can_be_old() -> None:
    note = Observation(id="o1", entity="Dana", text='Speaks "fluent" Spanish\nand Basque',
                       recorded_at=datetime(2023, 1, 5, tzinfo=UTC))
    assert observation_line(note, Trust(datetime(2023, 2, 1, tzinfo=UTC)).of_observation(note)) == (
        'Dana: "Speaks \\"fluent\\" Spanish\\nand Basque"  recorded 2023-01-05  id o1')
    assert Trust(datetime(2024, 2, 1, tzinfo=UTC)).of_observation(note) == ["stored 1 year ago — may be outdated"]


def _forge(body: object) -> str:
    return base64.urlsafe_b64encode(json.dumps(body).encode()).decode().rstrip("=")


def test_cursors_continue_only_the_call_that_issued_them() -> None:
    args = QueryFactsArgs(subject="Dana", limit=50)
    snapshot = Snapshot(offset=20, as_of="2024-01-01", known_at="2025-01-01T00:00:00+00:00")
    cursor = encode_cursor("query_facts", args, snapshot)
    assert decode_cursor("query_facts", args.model_copy(update={"cursor": cursor}), cursor) == snapshot
    with pytest.raises(InvalidCursorError, match="different call"):
        decode_cursor("query_facts", QueryFactsArgs(subject="Dana", limit=51), cursor)
    with pytest.raises(InvalidCursorError, match="different call"):
        decode_cursor("recall_context", RecallArgs(query="Dana"), cursor)
    fingerprint = json.loads(base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)))["f"]
    for forged in ("%%%", "bm90IGpzb24", _forge([1, 2]), _forge({"f": fingerprint, "o": -1}),
                   _forge({"f": fingerprint, "o": True}), _forge({"f": fingerprint, "o": "3"}),
                   _forge({"f": fingerprint, "o": 1, "a": 5})):
        with pytest.raises(InvalidCursorError, match="call again without a cursor"):
            decode_cursor("query_facts", args, forged)


_TEXT = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=30)


@given(st.lists(st.tuples(_TEXT, _TEXT, st.lists(_TEXT, max_size=4),
                          st.lists(st.tuples(_TEXT, _TEXT, st.lists(_TEXT, max_size=2)), max_size=3)), max_size=6),
       _TEXT)
def test_a_graph_answers_size_is_at_most_the_sum_of_its_items_bounds(
        nodes: list[tuple[str, str, list[str], list[tuple[str, str, list[str]]]]], query: str) -> None:
    # reference._page measures an answer whole only once this bound could pass the budget: it must never be less.
    args = reference.SearchNodesArgs(query=query)
    snap = Snapshot(0, None, "2026-12-02T00:00:00+00:00")
    shown = [(f"{i:020d}:{name}", reference.EntityOut(name=name, entityType=kind, observations=notes),
              [reference.RelationOut(**{"from": name, "to": to, "relationType": rel, "qualifiers": q or None})
               for to, rel, q in relations]) for i, (name, kind, notes, relations) in enumerate(nodes)]
    at_most = reference._graph_answer("search_nodes", args, snap, [], more=False).size() + LIST_ENDS
    for count, (resume, entity, relations) in enumerate(shown, start=1):
        at_most += sum(size_at_most(item) for item in (entity, *relations))
        exact = reference._graph_answer("search_nodes", args, snap, shown[:count], more=True).size()
        assert exact <= at_most + cursor_at_most("search_nodes", args, snap, resume)
