"""Fusing recall's legs into one ranking of memories, with what only a memory knows (issue 28).

Measured on LoCoMo's development split (``benchmarks/locomo/research.py``; ``docs/recall-design.md``): each
leg's score is scaled by the leg's best among the candidates, the legs are averaged with :class:`Weights`
(so the same bonuses serve recall with and without an embedder), and three bonuses are added:

- **entity**: the memory is about an entity the question names (an observation's entity);
- **time**: the memory is valid in the window the question names (:mod:`synapse_graph.rules.asked_time`),
  and, for a "when" question, it carries a time at all;
- **episode**: the best fused score among the candidates recorded in the same episode (an agent session or
  a day), scaled to ``[0, 1]`` over the episodes present: memories told together are asked about together.

A fact can also be reached through the entities the question names (recall's entity-centric leg, ``graph``):
a fact's legs are averaged over the three, an observation's over the lexical and vector legs only (no graph
reaches it), so an observation is not ranked down for a leg that could never find it. A fact holds over an
interval: it is in the window when the interval overlaps it (``overlaps``); an observation when its time is.

Evidence recall@10 there: 0.685 with MiniLM (dense alone 0.594, RRF 0.577), 0.625 without an embedder
(BM25 0.533). Rank fusion (RRF) keeps only ranks and measured 0.654 in the same place.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol


@dataclass(frozen=True, slots=True)
class Weights:
    """How much each leg and bonus counts; the legs' weights are relative (their weighted mean is taken)."""

    lexical: float = 0.3
    vector: float = 1.0
    entity: float = 0.5
    time: float = 1.0
    dated: float = 1.0
    """For a "when" question, a memory that carries a time: one without cannot answer it, however well its
    words match (as much as the window's bonus; 0.25, the design's first guess, let a shorter undated text and
    its episode's bonus outrank the dated one). Not measurable on LoCoMo, where every memory is dated."""
    episode: float = 0.5
    graph: float = 2.0
    """The entity-centric leg (facts around the entities the question names), for facts. Chosen on the golden
    recall eval (``benchmarks/recall_eval``: recall@8 lexical 0.953 / 0.967 / 0.967, lexical+vector 0.980 /
    0.987 / 0.980 with weights 1 / 2 / 3; LoCoMo has no facts)."""


@dataclass(frozen=True, slots=True)
class Candidate:
    """One memory a leg returned: its scores (``None`` where a leg did not score it) and what it is about."""

    key: str
    lexical: float | None = None
    vector: float | None = None
    entities: frozenset[str] = frozenset()
    episode: str | None = None
    valid_at: datetime | None = None
    graph: float | None = None
    """Its relevance through the named entities (a fact the entity-centric leg reached)."""
    fact: bool = False
    """A fact (held over ``[valid_at, invalid_at)``, reachable by the graph leg), not an observation."""
    invalid_at: datetime | None = None
    tie: str = ""
    """What it says (e.g. subject, predicate, object): equal scores are ordered by it, the same on every backend."""


class Scored(Protocol):
    """What fusion reads of a memory a leg returned (a :class:`Candidate`, or a caller's record of one with the
    same attributes: recall's keeps one per memory, each leg's best score in it, so none is made for fusion)."""

    @property
    def key(self) -> str: ...
    @property
    def lexical(self) -> float | None: ...
    @property
    def vector(self) -> float | None: ...
    @property
    def entities(self) -> frozenset[str]: ...
    @property
    def episode(self) -> str | None: ...
    @property
    def valid_at(self) -> datetime | None: ...
    @property
    def graph(self) -> float | None: ...
    @property
    def fact(self) -> bool: ...
    @property
    def invalid_at(self) -> datetime | None: ...
    @property
    def tie(self) -> str: ...


@dataclass(frozen=True, slots=True)
class Fused:
    """A memory's place in the fused ranking and what made its score (for explanations and tests)."""

    key: str
    score: float
    legs: float
    entity: float = 0.0
    time: float = 0.0
    episode: float = 0.0


def fuse(candidates: Sequence[Scored], *, named: Collection[str] = (),
         in_window: Callable[[datetime], bool] | None = None, asks_when: bool = False,
         weights: Weights = Weights(), limit: int | None = None,
         overlaps: Callable[[datetime, datetime | None], bool] | None = None) -> list[Fused]:
    """The candidates best first (ties ordered by what they say); ``named``: the entity keys the question names;
    ``in_window``: whether an instant lies in the window the question names (``None``: it names none);
    ``overlaps``: whether an interval ``[start, end)`` (``None``: open) meets it, for facts (by default, their
    start must lie in it). A memory several legs returned counts once, with each leg's score."""
    unique = _merged(candidates)
    legs = _legs(unique, weights)
    episode_bonus = _episodes(unique, legs, weights.episode)
    names = set(named)
    parts: list[tuple[float, float, float, float]] = []  # each one's score, entity, time and episode bonuses
    for candidate, leg_score in zip(unique, legs, strict=True):
        entity = weights.entity if names and not candidate.entities.isdisjoint(names) else 0.0
        time = 0.0
        if candidate.valid_at is not None:
            if candidate.fact and overlaps is not None:
                time += weights.time if overlaps(candidate.valid_at, candidate.invalid_at) else 0.0
            elif in_window is not None and in_window(candidate.valid_at):
                time += weights.time
            if asks_when:
                time += weights.dated
        episode = episode_bonus.get(candidate.episode, 0.0) if candidate.episode is not None else 0.0
        parts.append((leg_score + entity + time + episode, entity, time, episode))
    # Rounded as results show it: float noise between backends must not order equal memories differently.
    order = sorted(range(len(unique)), key=lambda i: (-round(parts[i][0], 9), unique[i].tie, i))
    # One memory once: two records of one fact (a merge's copy beside the record a past belief still reads) are
    # the same answer, and the better ranked one stands for both. Only those kept are made (up to ``limit``).
    seen: set[str] = set()
    kept: list[Fused] = []
    for i in order:
        if limit is not None and 0 <= limit <= len(kept):
            break
        tie = unique[i].tie
        if tie and tie in seen:
            continue
        seen.add(tie)
        score, entity, time, episode = parts[i]
        kept.append(Fused(unique[i].key, score, legs[i], entity, time, episode))
    return kept[:limit]


def _merged(candidates: Sequence[Scored]) -> list[Scored]:
    """One candidate per key, where the first was (legs return the same memory): each leg's best score kept."""
    if len({c.key for c in candidates}) == len(candidates):  # one per key already (recall's)
        return list(candidates)
    merged: dict[str, Scored] = {}
    for c in candidates:
        had = merged.get(c.key)
        if had is None:
            merged[c.key] = c
            continue
        merged[c.key] = Candidate(
            c.key, lexical=_best(had.lexical, c.lexical), vector=_best(had.vector, c.vector),
            entities=had.entities | c.entities, episode=had.episode if had.episode is not None else c.episode,
            valid_at=had.valid_at if had.valid_at is not None else c.valid_at, graph=_best(had.graph, c.graph),
            fact=had.fact or c.fact, invalid_at=had.invalid_at if had.invalid_at is not None else c.invalid_at,
            tie=had.tie or c.tie)
    return list(merged.values())


def _best(a: float | None, b: float | None) -> float | None:
    return b if a is None else a if b is None else max(a, b)


TINY = 1e-9
"""A leg's best score at or below this found nothing worth scaling up (a cosine of 1e-311 would turn -1 into -inf)."""


def _share(score: float | None, best: float) -> float:
    """A leg's score over its best, in [0, 1]: nothing found, a negative cosine or a best too small to scale is 0."""
    if score is None or best <= TINY or score <= 0:
        return 0.0
    return score / best


def _legs(candidates: Sequence[Scored], weights: Weights) -> list[float]:
    """Each leg's score over the leg's best among the candidates, averaged with the weights of the legs asked
    that could find the candidate (the vector leg is asked when any candidate has a cosine, the graph leg when
    any has a graph score, and it finds facts only; a leg that found nothing adds 0)."""
    best_lexical = max((c.lexical for c in candidates if c.lexical is not None), default=0.0)
    best_vector = max((c.vector for c in candidates if c.vector is not None), default=0.0)
    best_graph = max((c.graph for c in candidates if c.graph is not None), default=0.0)
    asked = weights.lexical + (weights.vector if any(c.vector is not None for c in candidates) else 0.0)
    graph_asked = weights.graph if any(c.graph is not None for c in candidates) else 0.0
    scores: list[float] = []
    for c in candidates:
        total = asked + (graph_asked if c.fact else 0.0)  # the legs asked that could find it, found or not
        if total == 0:
            scores.append(0.0)
            continue
        scores.append((weights.lexical * _share(c.lexical, best_lexical)
                       + weights.vector * _share(c.vector, best_vector)
                       + (weights.graph * _share(c.graph, best_graph) if c.fact else 0.0))
                      / total)
    return scores


def _episodes(candidates: Sequence[Scored], legs: Sequence[float], weight: float) -> dict[str, float]:
    """Each episode's bonus: its best leg score among the candidates, scaled to [0, weight] over the episodes."""
    if not weight:
        return {}
    best: dict[str, float] = {}
    for candidate, score in zip(candidates, legs, strict=True):
        if candidate.episode is not None:
            best[candidate.episode] = max(best.get(candidate.episode, score), score)
    if not best:
        return {}
    low, high = min(best.values()), max(best.values())
    scale = (high - low) or 1.0
    return {episode: weight * (value - low) / scale for episode, value in best.items()}
