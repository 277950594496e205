"""Recall: entry entities from fulltext (and vectors), fused, then a temporal expansion."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from synapse_graph.backends import Backend
from synapse_graph.catalogue import Q
from synapse_graph.embedding import Embedder
from synapse_graph.models import EntryEntity, RecalledFact
from synapse_graph.rules.recall import MAX_ENTRY_ENTITIES, Candidate, bm25_rank, predicate_match, rrf
from synapse_graph.rules.timeparse import from_micros

CANDIDATES = 1_000
VECTOR_HITS = 10
MIN_COSINE = 0.5


def lexical_ranking(backend: Backend, scope: str, terms: Sequence[str], corpus_size: int
                    ) -> list[tuple[str, float]]:
    rows = backend.read(Q.SEARCH_LEXICAL, {"scope": scope, "terms": list(terms), "limit": CANDIDATES})
    return bm25_rank(terms, (Candidate(r["key"], "", r["text"] or "") for r in rows), corpus_size=corpus_size)


def vector_ranking(backend: Backend, scope: str, embedder: Embedder, query: str,
                   min_cosine: float = MIN_COSINE) -> list[tuple[str, float]]:
    [vector] = embedder.embed([query])
    rows = backend.read(Q.SEARCH_VECTOR, {"scope": scope, "vector": vector, "k": VECTOR_HITS * 5})
    best: dict[str, float] = {}
    for row in rows:
        if row["cosine"] >= min_cosine and row["key"] not in best:
            best[row["key"]] = float(row["cosine"])
    return sorted(best.items(), key=lambda item: (-item[1], item[0]))[:VECTOR_HITS]


def fuse(backend: Backend, scope: str, legs: Mapping[str, list[tuple[str, float]]],
         limit: int = MAX_ENTRY_ENTITIES) -> list[EntryEntity]:
    fused = rrf({leg: [key for key, _ in ranking] for leg, ranking in legs.items()}, limit=limit)
    scores = {leg: dict(ranking) for leg, ranking in legs.items()}
    names = {r["key"]: r["name"] for r in backend.read(Q.ENTITY_NAMES, {"scope": scope,
                                                                         "keys": [k for k, _, _ in fused]})}
    return [
        EntryEntity(
            name=names[key], key=key, score=score,
            lexical_rank=ranks.get("lexical"), lexical_score=scores.get("lexical", {}).get(key),
            vector_rank=ranks.get("vector"), vector_score=scores.get("vector", {}).get(key),
        )
        for key, score, ranks in fused if key in names
    ]


def expand(backend: Backend, scope: str, entries: Sequence[EntryEntity], *, hops: int, as_of: int,
           known_at: int, limit: int, terms: Sequence[str] = ()) -> list[RecalledFact]:
    """Facts valid at ``as_of`` around the entries, most relevant first, at most ``limit``.

    Relevance: the fused score of the entry entity it was reached from, halved at hop 2,
    plus a bonus when both ends are entry entities or the predicate is named in the
    question. The writer's confidence only breaks ties.
    """
    if not entries:
        return []
    rows = backend.read(Q.RECALL_EXPAND, {
        "scope": scope, "hops": hops, "as_of": as_of, "known_at": known_at, "limit": limit * 4,
        "statuses": ["believed"],
        "entries": [{"key": e.key, "rank": rank} for rank, e in enumerate(entries)],
    })
    by_key = {e.key: e for e in entries}
    facts = [_recalled(row, entries, by_key, terms) for row in rows]
    facts.sort(key=lambda f: (-f.relevance, -f.confidence, f.subject, f.predicate, f.object, f.id))
    return facts[:limit]


def _recalled(row: Mapping[str, Any], entries: Sequence[EntryEntity], by_key: Mapping[str, EntryEntity],
              terms: Sequence[str]) -> RecalledFact:
    entry = entries[row["entry_rank"]]
    hop = int(row["hop"])
    ends = [by_key[k].score for k in (row["subject_key"], row["object_key"]) if k in by_key]
    relevance = entry.score / hop
    if len(ends) == 2:
        relevance += min(ends)
    if terms and predicate_match(row["predicate"], terms):
        relevance += entry.score / 2
    return RecalledFact(
        id=row["id"], subject=row["subject"], predicate=row["predicate"], object=row["object"],
        valid_at=from_micros(row["valid_at"]),
        invalid_at=None if row["invalid_at"] is None else from_micros(row["invalid_at"]),
        recorded_at=from_micros(row["recorded_at"]),
        expired_at=None if row["expired_at"] is None else from_micros(row["expired_at"]),
        confidence=float(row["confidence"]), confirmations=int(row["confirmations"]),
        source=row["source"], client=row["client"], model=row["model"], session=row["session"],
        hop=hop, entry=entry.name, relevance=round(relevance, 9),
    )
