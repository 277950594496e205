"""Recall: entry entities from fulltext (and vectors), fused, then a temporal expansion."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from synapse_graph.backends import Backend
from synapse_graph.catalogue import Q
from synapse_graph.embedding import Embedder
from synapse_graph.models import EntryEntity, RecalledFact
from synapse_graph.rules.recall import (
    MAX_ENTRY_ENTITIES,
    Candidate,
    bm25_rank,
    predicate_terms,
    rrf,
    strengths,
    term_matches,
)
from synapse_graph.rules.timeparse import from_micros

CANDIDATES = 1_000
VECTOR_HITS = 10
MIN_COSINE = 0.5
EXPAND_CANDIDATES = 400
"""Facts read around the entries before ranking (at least 4 x the limit): ranking happens here,
so the database's cut must leave the relevant ones in (it keeps the nearest, then the newest)."""


def lexical_ranking(backend: Backend, scope: str, terms: Sequence[str], corpus_size: int
                    ) -> list[tuple[str, float]]:
    rows = backend.read(Q.SEARCH_LEXICAL, {"scope": scope, "terms": list(terms), "limit": CANDIDATES})
    return bm25_rank(terms, (Candidate(r["key"], "", r["text"] or "") for r in rows), corpus_size=corpus_size)


def vector_ranking(backend: Backend, scope: str, embedder: Embedder, query: str,
                   min_cosine: float = MIN_COSINE) -> list[tuple[str, float]]:
    [vector] = embedder.embed([query])
    # An exact scan of this scope's vectors (see search_vector.cypher), so k needs no slack.
    rows = backend.read(Q.SEARCH_VECTOR, {"scope": scope, "vector": vector, "model": embedder.name,
                                          "k": VECTOR_HITS})
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

    Relevance (see :func:`relevance`) grows with the weight of the entry entity a fact was
    reached from (how strongly it matched the question, :func:`entry_weights`), falls with the hop,
    and gains when the question names the predicate, when the other end is an entry too
    or matches words of the question, and (at hop 2) when the question names the relation
    that leads there. The writer's confidence only breaks ties.
    """
    if not entries:
        return []
    rows = backend.read(Q.RECALL_EXPAND, {
        "scope": scope, "hops": hops, "as_of": as_of, "known_at": known_at,
        "limit": max(limit * 4, EXPAND_CANDIDATES),
        "statuses": ["believed"],
        "entries": [{"key": e.key, "rank": rank} for rank, e in enumerate(entries)],
    })
    weights = entry_weights(entries)
    links = _links(rows, weights, terms)
    scored = sorted(
        ((relevance(row, entries, weights, terms, links, hops=hops), row) for row in rows),
        key=lambda item: (-item[0], -float(item[1]["confidence"]), item[1]["subject"], item[1]["predicate"],
                          item[1]["object"], item[1]["id"]),
    )
    return [_recalled(row, entries, score) for score, row in scored[:limit]]


def entry_weights(entries: Sequence[EntryEntity]) -> dict[str, float]:
    """Weight of each entry in the ranking of facts: its match strength over the legs
    (:func:`~synapse_graph.rules.recall.strengths`); entries named by the caller (no leg
    scores) weigh by their order, 1 for the first."""
    strength = strengths({e.key: e.lexical_score for e in entries}, {e.key: e.vector_score for e in entries},
                         min_cosine=MIN_COSINE)
    first = max(e.score for e in entries)
    return {
        e.key: strength[e.key] if e.lexical_score is not None or e.vector_score is not None else e.score / first
        for e in entries
    }


Links = Mapping[tuple[str, str], frozenset[str]]


def _links(rows: Sequence[Mapping[str, Any]], weights: Mapping[str, float], terms: Sequence[str]) -> Links:
    """(entry key, neighbour key) -> the question's terms named by the predicates of the hop-1 facts joining them."""
    found: dict[tuple[str, str], set[str]] = {}
    for row in rows:
        if int(row["hop"]) != 1:
            continue
        named = predicate_terms(row["predicate"], terms) if terms else set()
        subject, obj = row["subject_key"], row["object_key"]
        for entry, neighbour in ((subject, obj), (obj, subject)):
            if entry in weights and neighbour != entry:
                found.setdefault((entry, neighbour), set()).update(named)
    return {pair: frozenset(named) for pair, named in found.items()}


def relevance(row: Mapping[str, Any], entries: Sequence[EntryEntity], weights: Mapping[str, float],
              terms: Sequence[str], links: Links | None = None, *, hops: int = 1) -> float:
    """How relevant one expanded fact is to the question: the best of the paths that reach it.

    A path starts at an entry of weight ``w`` (the top entry's weight is ``top``): a hop-1
    fact touches the entry; a hop-2 fact touches a neighbour joined to it by hop-1 facts.

    - base: ``w`` at hop 1; at hop 2 ``w`` if the question names the joining relation (it
      asks through it), else ``w / 2``;
    - ``+ w / 2`` if the question names the fact's predicate with words the path has not
      used already (so the neighbour's other facts of the same relation gain nothing);
    - for each end other than the entry: ``+`` its weight if it is an entry too, else ``+ top``
      times the share of the question's words its name or type matches.
    """
    links = links or {}
    ends = (row["subject_key"], row["object_key"])
    own = entries[row["entry_rank"]].key
    paths: list[tuple[str, str | None, frozenset[str] | None]] = []  # entry, neighbour, terms the link names
    if int(row["hop"]) == 1:
        paths.append((own, None, frozenset()))
    if hops > 1:
        paths += [(key, end, links[(key, end)]) for key in weights if key not in ends for end in ends
                  if (key, end) in links]
        if not paths:  # the joining fact fell out of the database's cut
            paths.append((own, None, None))
    named = predicate_terms(row["predicate"], terms) if terms else set()
    top = max(weights.values())
    best = 0.0
    for key, via, used in paths:  # via: the neighbour a hop-2 path goes through
        w = weights[key]
        score = w if used is not None and (via is None or used) else w / 2
        if named - (used or frozenset()):
            score += w / 2
        for end, name, kind in ((ends[0], row["subject"], row.get("subject_type")),
                                (ends[1], row["object"], row.get("object_type"))):
            if end == key:
                continue
            if end in weights:
                score += weights[end]
            elif terms:
                score += top * len(term_matches(name, terms) | term_matches(kind, terms)) / len(terms)
        best = max(best, score)
    return best


def _recalled(row: Mapping[str, Any], entries: Sequence[EntryEntity], score: float) -> RecalledFact:
    entry = entries[row["entry_rank"]]
    return RecalledFact(
        id=row["id"], subject=row["subject"], predicate=row["predicate"], object=row["object"],
        valid_at=from_micros(row["valid_at"]),
        invalid_at=None if row["invalid_at"] is None else from_micros(row["invalid_at"]),
        recorded_at=from_micros(row["recorded_at"]),
        expired_at=None if row["expired_at"] is None else from_micros(row["expired_at"]),
        confidence=float(row["confidence"]), confirmations=int(row["confirmations"]),
        source=row["source"], client=row["client"], model=row["model"], session=row["session"],
        hop=int(row["hop"]), entry=entry.name, relevance=round(score, 9),
    )
