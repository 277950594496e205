"""Recall's entity-centric pieces: entry entities from fulltext (and vectors), fused, and the temporal expansion
around them (the graph leg of :mod:`synapse_graph.engine.recalling`, and ``search_entities``/``subgraph``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from synapse_graph.catalogue import Q
from synapse_graph.engine import projections, rows
from synapse_graph.engine.context import Context
from synapse_graph.engine.io import Op, Read, embed, read, read_rows
from synapse_graph.engine.scope import ScopeState, state_of
from synapse_graph.instants import Instant
from synapse_graph.models import EntryEntity, RecalledFact
from synapse_graph.rules.distinct import past_belief_once
from synapse_graph.rules.recall import (
    MAX_ENTRY_ENTITIES,
    Candidate,
    bm25_rank,
    predicate_terms,
    rrf,
    scope_token,
    searched_terms,
    strengths,
    term_matches,
)
from synapse_graph.rules.timeparse import now_micros

CANDIDATES = 100
"""Candidates per search leg, the index's best first: a common word or prefix matches thousands of names,
and only the best leave the database (BM25 then ranks these; all of them on a store with fewer matches).
A term matching more names than this is left out of the search for names while the question has rarer
terms (:func:`~synapse_graph.rules.recall.searched_terms`)."""
VECTOR_HITS = 10
MIN_COSINE = 0.5
FEW_TERMS = 6
"""A question of at most this many terms reads its term counts with ``state_and_term_hits_few`` (on FalkorDB, six
term slots of sixteen: a slot costs the server even when empty, ~0.09 ms each; 602 of LoCoMo's 760 questions)."""
EXPAND_CANDIDATES = 400
"""Facts read around the entries before ranking (at least 4 x the limit): ranking happens here,
so the database's cut must leave the relevant ones in (it keeps the nearest, then the newest)."""


def state_and_terms(ctx: Context, terms: Sequence[str]) -> Read:
    """The one read of the scope's state (with ``facts``: whether it holds any fact record) and how many of the
    scope's names each term matches (up to ``CANDIDATES + 1``); :func:`split_counted` parts its rows."""
    name = Q.STATE_AND_TERM_HITS_FEW if len(terms) <= FEW_TERMS else Q.STATE_AND_TERM_HITS
    return Read(name, {"scope": ctx.scope, "scope_token": scope_token(ctx.scope), "terms": list(terms),
                       "cap": CANDIDATES + 1})


def split_counted(found: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The rows of :func:`state_and_terms`: the scope's state row, and a row a term that matches any name."""
    return [r for r in found if r["term"] is None], [r for r in found if r["term"] is not None]


Counted = tuple[ScopeState, list[dict[str, Any]]]
"""The scope's state and the term rows of :func:`state_and_terms`, read by :func:`state_and_term_hits`."""


def state_and_term_hits(ctx: Context, terms: Sequence[str]) -> Op[Counted]:
    """The scope's state and how many names each term matches, in one statement."""
    state, counted = split_counted((yield from read_rows(state_and_terms(ctx, terms))))
    return state_of(state), counted


def search_read(ctx: Context, terms: Sequence[str], hits: Mapping[str, int]) -> Read:
    """The read of the fulltext candidates for entry entities (:func:`lexical_ranking` ranks its rows)."""
    return Read(Q.SEARCH_LEXICAL, {"scope": ctx.scope, "scope_token": scope_token(ctx.scope), "terms": list(terms),
                                   "entity_terms": searched_terms(terms, hits, CANDIDATES + 1), "limit": CANDIDATES})


def ranking_of(terms: Sequence[str], found: list[dict[str, Any]], corpus_size: int
               ) -> tuple[list[tuple[str, float]], dict[str, str]]:
    """Entity keys by BM25 over the rows of :func:`search_read`, best first, and their names."""
    names = {key: name for r in found for key, _, name in r["found"] if name is not None}
    ranking = bm25_rank(terms, (Candidate(key, "", text or "") for r in found for key, text, _ in r["found"]),
                        corpus_size=corpus_size)
    return ranking, names


def entries_of(terms: Sequence[str], found: list[dict[str, Any]], *, corpus_size: int,
               limit: int = MAX_ENTRY_ENTITIES) -> list[EntryEntity]:
    """Recall's entry entities from the rows of :func:`search_read` alone (the lexical leg, fused as one)."""
    ranking, names = ranking_of(terms, found, corpus_size)
    return entry_list({"lexical": ranking}, names, limit)


def lexical_ranking(ctx: Context, terms: Sequence[str], ahead: Counted | None = None
                    ) -> Op[tuple[list[tuple[str, float]], dict[str, str]]]:
    """Entity keys by BM25 over the fulltext candidates, best first, and the names of those the
    entity index found (``ahead``: :func:`state_and_term_hits`, when already read)."""
    state, counted = ahead if ahead is not None else (yield from state_and_term_hits(ctx, terms))
    found = yield from read_rows(search_read(ctx, terms, {r["term"]: int(r["hits"]) for r in counted}))
    return ranking_of(terms, found, state.entities)


def vector_ranking(ctx: Context, model: str, query: str, min_cosine: float = MIN_COSINE
                   ) -> Op[list[tuple[str, float]]]:
    [vector] = yield from embed((query,))
    # An exact scan of this scope's vectors (see search_vector.cypher), so k needs no slack.
    found = yield from read(Q.SEARCH_VECTOR, {"scope": ctx.scope, "vector": vector, "model": model, "k": VECTOR_HITS})
    best: dict[str, float] = {}
    for row in found:
        if row["cosine"] >= min_cosine and row["key"] not in best:
            best[row["key"]] = float(row["cosine"])
    return sorted(best.items(), key=lambda item: (-item[1], item[0]))[:VECTOR_HITS]


def entry_entities(ctx: Context, text: str, terms: list[str], limit: int, ahead: Counted | None = None
                   ) -> Op[list[EntryEntity]]:
    """Recall's entry step: entities matching the question, fused from the search legs."""
    lexical, names = yield from lexical_ranking(ctx, terms, ahead)
    legs = {"lexical": lexical}
    if ctx.embedder is not None:
        legs["vector"] = yield from vector_ranking(ctx, ctx.embedder, text)
    return (yield from fuse(ctx, legs, limit, names))


def fuse(ctx: Context, legs: Mapping[str, list[tuple[str, float]]], limit: int = MAX_ENTRY_ENTITIES,
         known: Mapping[str, str] | None = None) -> Op[list[EntryEntity]]:
    """The legs' rankings fused (RRF) into at most ``limit`` entities; ``known``: names already read."""
    fused = rrf({leg: [key for key, _ in ranking] for leg, ranking in legs.items()}, limit=limit)
    names = {key: known[key] for key, _, _ in fused if known and key in known}
    missing = [key for key, _, _ in fused if key not in names]
    if missing:
        found = yield from read(projections.ENTITY_NAMES, {"scope": ctx.scope, "keys": missing})
        names.update({r["key"]: r["name"] for r in found})
    return entry_list(legs, names, limit)


def entry_list(legs: Mapping[str, list[tuple[str, float]]], names: Mapping[str, str],
               limit: int = MAX_ENTRY_ENTITIES) -> list[EntryEntity]:
    """The legs' rankings fused (RRF) into at most ``limit`` entities, those whose names are known."""
    fused = rrf({leg: [key for key, _ in ranking] for leg, ranking in legs.items()}, limit=limit)
    scores = {leg: dict(ranking) for leg, ranking in legs.items()}
    return [
        EntryEntity(
            name=names[key], key=key, score=score,
            lexical_rank=ranks.get("lexical"), lexical_score=scores.get("lexical", {}).get(key),
            vector_rank=ranks.get("vector"), vector_score=scores.get("vector", {}).get(key),
        )
        for key, score, ranks in fused if key in names
    ]


def expand(ctx: Context, entries: Sequence[EntryEntity], *, hops: int, as_of: Instant | None,
           known_at: Instant | None, limit: int, terms: Sequence[str] = ()) -> Op[list[RecalledFact]]:
    """Facts valid at ``as_of`` around the entries, most relevant first, at most ``limit``.

    Relevance (see :func:`relevance`) grows with the weight of the entry entity a fact was
    reached from (how strongly it matched the question, :func:`entry_weights`), falls with the hop,
    and gains when the question names the predicate, when the other end is an entry too
    or matches words of the question, and (at hop 2) when the question names the relation
    that leads there. The writer's confidence only breaks ties.
    """
    if not entries:
        return []
    found = yield from read_rows(expand_read(ctx, entries, hops=hops, as_of=as_of, known_at=known_at, limit=limit))
    return ranked(found, entries, hops=hops, known_at=known_at, limit=limit, terms=terms)


def expand_read(ctx: Context, entries: Sequence[EntryEntity], *, hops: int, as_of: Instant | None,
                known_at: Instant | None, limit: int, vector: list[float] | None = None) -> Read:
    """The read of :func:`expand`: the facts around the entries, nearest then newest first (with their cosines
    to ``vector``, if given)."""
    return Read(Q.RECALL_EXPAND, {
        "scope": ctx.scope, "hops": hops, "as_of": as_of, "now": Instant(now_micros()), "history": False,
        "known_at": known_at, "limit": max(limit * 4, EXPAND_CANDIDATES), "statuses": ["believed"],
        "entries": [{"key": e.key, "rank": rank} for rank, e in enumerate(entries)], "vector": vector,
        "model": ctx.embedder,
    })


def ranked(found: list[dict[str, Any]], entries: Sequence[EntryEntity], *, hops: int, known_at: Instant | None,
           limit: int, terms: Sequence[str]) -> list[RecalledFact]:
    """The rows of :func:`expand_read`, most relevant first, at most ``limit`` (see :func:`expand`)."""
    facts = [{**row["fact"], "hop": row["hop"], "entry_rank": row["entry_rank"]} for row in found]
    weights = entry_weights(entries)
    links = _links(facts, weights, terms)
    scored = sorted(
        ((relevance(row, entries, weights, terms, links, hops=hops), row) for row in facts),
        key=lambda item: (-item[0], -float(item[1]["confidence"]), item[1]["subject"], item[1]["predicate"],
                          item[1]["object"], item[1]["id"]),
    )
    recalled = []
    for score, row in (scored if known_at is not None else scored[:limit]):
        entry = entries[row["entry_rank"]].name
        words = matched_words(row, entry, terms)
        recalled.append(rows.recalled(row, hop=int(row["hop"]), entry=entry, relevance=round(score, 9),
                                      score=round(len(words) / len(terms), 6) if terms else 1.0, words=words))
    # A past belief can hold a merged entity's records of a fact beside its target's: read once.
    return past_belief_once(recalled, known_at)[:limit]


def matched_words(row: Mapping[str, Any], entry: str, terms: Sequence[str]) -> list[str]:
    """The question's content words a fact answers, in the question's order: matched by its subject's or
    object's name or type, its predicate ("work" names WORKS_AT), or the entity recall reached it from."""
    matched = (term_matches(row["subject"], terms) | term_matches(row.get("subject_type"), terms)
               | term_matches(row["object"], terms) | term_matches(row.get("object_type"), terms)
               | predicate_terms(row["predicate"], terms) | term_matches(entry, terms))
    return [t for t in terms if t in matched]


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


def _links(facts: Sequence[Mapping[str, Any]], weights: Mapping[str, float], terms: Sequence[str]) -> Links:
    """(entry key, neighbour key) -> the question's terms named by the predicates of the hop-1 facts joining them."""
    found: dict[tuple[str, str], set[str]] = {}
    for row in facts:
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
