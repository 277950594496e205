"""What recall's legs found, one record per memory (engine/recall_found.py): fused as the candidates it replaced."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from synapse_graph.engine.recall_found import Found, _datetime, _episode, said
from synapse_graph.rules.fusion import Candidate, Weights, fuse
from synapse_graph.rules.stems import Matches, bm25

_DAY = 86_400_000_000
_SCORES = st.none() | st.sampled_from([0.0, 0.25, 0.5, 1.0, 2.5])


def _candidate(key: str, kind: str, memory: dict[str, Any], **scores: float | None) -> Candidate:
    """A leg's row as recall made it a candidate of its own (fusion merged them), before engine/recall_found.py."""
    fact = kind == "fact"
    entities = [memory["subject_key"], memory["object_key"]] if fact else [memory["entity_key"]]
    valid_at = memory.get("valid_at")
    return Candidate(key, entities=frozenset(entities), valid_at=_datetime(valid_at), tie=said(kind, memory),
                     episode=_episode(memory.get("session"), valid_at, memory["recorded_at"]), fact=fact,
                     invalid_at=_datetime(memory.get("invalid_at") if fact else None), **scores)


@st.composite
def _rows(draw: st.DrawFn) -> list[tuple[str, str, str, dict[str, Any], dict[str, float | None]]]:
    """Rows of a few memories as the legs return them: one memory several times, by other legs, some rows of it
    lacking what another has (a session, a time), as rows of different statements may."""
    memories = []
    for i in range(draw(st.integers(1, 6))):
        kind = draw(st.sampled_from(["fact", "observation"]))
        row: dict[str, Any] = {
            "id": str(i), "recorded_at": draw(st.integers(0, 5)) * _DAY,
            "valid_at": draw(st.none() | st.integers(0, 5).map(lambda d: d * _DAY)),
            "session": draw(st.none() | st.sampled_from(["s1", "s2"])), "text": draw(st.sampled_from(["a", "b"]))}
        if kind == "fact":
            row |= {"subject_key": draw(st.sampled_from(["dana", "lee"])), "object_key": "paris",
                    "predicate": "LIVES_IN", "invalid_at": draw(st.none() | st.just(9 * _DAY))}
        else:
            row |= {"entity_key": draw(st.sampled_from(["dana", "lee"])), "entity": "Dana"}
        memories.append((kind, row))
    found = []
    for _ in range(draw(st.integers(1, 14))):
        kind, row = draw(st.sampled_from(memories))
        shown = {k: v for k, v in row.items() if k not in draw(st.sets(st.sampled_from(["session", "valid_at"])))}
        leg = draw(st.sampled_from(["lexical", "vector", "window", "graph"]))
        scores = {"lexical": draw(_SCORES), "vector": draw(_SCORES)} | (
            {"graph": draw(_SCORES)} if kind == "fact" else {})
        found.append((f"{kind[0]}:{row['id']}", leg, kind, shown, scores))
    return found


@given(_rows(), st.sets(st.sampled_from(["dana", "lee", "paris"])), st.booleans())
def test_one_record_per_memory_fuses_as_a_candidate_per_row_did(
        rows: list[tuple[str, str, str, dict[str, Any], dict[str, float | None]]], named: set[str],
        asks_when: bool) -> None:
    found = Found()
    for key, leg, kind, memory, scores in rows:
        found.add(key, leg, kind, memory, "", lexical=scores["lexical"], vector=scores["vector"],
                  graph=scores.get("graph"))
    each = [_candidate(key, kind, memory, **scores) for key, _, kind, memory, scores in rows]
    for weights in (Weights(), Weights(lexical=1.0, vector=0.0)):
        assert fuse(found.candidates(), named=named, asks_when=asks_when, weights=weights) == fuse(
            each, named=named, asks_when=asks_when, weights=weights)
        assert fuse(found.candidates(), named=named, weights=weights, limit=2) == fuse(
            each, named=named, weights=weights)[:2]
    assert {k: found.seen[k].legs for k in found.seen} == {
        k: {leg for key, leg, *_ in rows if key == k} for k, *_ in rows}


@given(st.lists(st.lists(st.sampled_from(["cat", "dog", "ran", "the", "sat"]), max_size=8), max_size=12),
       st.lists(st.sampled_from(["cat", "dog", "ran", "zzz"]), min_size=1, max_size=4, unique=True),
       st.integers(0, 40), st.booleans())
def test_bm25_scores_as_it_did_term_by_term(docs: list[list[str]], asked: list[str], corpus: int,
                                            counted: bool) -> None:
    import math

    by_key = {str(i): doc for i, doc in enumerate(docs)}
    matches = Matches(len(docs) + 3, sum(map(len, docs)) + 7, dict.fromkeys(asked, 2)) if counted else None
    expected: dict[str, float] = {}  # BM25 as rules/stems.py computed it before (the same floats, bit for bit)
    wanted, k1, b = set(asked), 1.2, 0.75
    tfs_of = {key: {s: doc.count(s) for s in dict.fromkeys(s for s in doc if s in wanted)}
              for key, doc in by_key.items()}
    m = matches or Matches(len(docs), sum(map(len, docs)),
                           {s: sum(1 for t in tfs_of.values() if s in t) for s in wanted})
    total = max(corpus, m.documents)
    average = (m.length / m.documents if m.documents else 0.0) or 1.0
    for key, tfs in tfs_of.items():
        if tfs:
            norm = k1 * (1 - b + b * len(by_key[key]) / average)
            expected[key] = 0.0
            for s, tf in tfs.items():
                df = min(total, m.frequency.get(s, 0))
                expected[key] += math.log(1 + (total - df + 0.5) / (df + 0.5)) * tf * (k1 + 1) / (tf + norm)
    assert bm25(asked, by_key, corpus_size=corpus, matches=matches) == (expected if docs else {})
