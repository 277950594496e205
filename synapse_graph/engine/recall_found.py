"""What recall's legs found (issue 28): one record per memory, however many legs returned it, with each leg's best
score: fusion's candidates (:class:`~synapse_graph.rules.fusion.Scored`).

A memory was once a candidate per leg that returned it, each made whole (its entities, episode, times, what it
says), merged again by fusion, and the merged ones made again; made once, in a record fusion reads as it is,
recall's Python after the reads takes less (``benchmarks/results/2026-12-07-*-ans28``)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from functools import lru_cache
from typing import Any

from synapse_graph.instants import to_datetime
from synapse_graph.models import RecalledFact

_DAY = 86_400_000_000


@dataclass(slots=True)
class Seen:
    """A memory the legs found, as fusion reads it (:class:`~synapse_graph.rules.fusion.Scored`): the legs, each
    one's best score, and what the first row a leg returned tells of it, completed by later ones where it lacked
    something (as ``rules/fusion.py _merged`` merges candidates)."""

    key: str
    legs: set[str]
    lexical: float | None
    vector: float | None
    graph: float | None
    entities: frozenset[str]
    episode: str | None
    valid_at: datetime | None
    fact: bool
    invalid_at: datetime | None
    tie: str


@dataclass
class Found:
    """What the legs found: by key (``o:<id>``, ``f:<id>``), the memories whole and how each leg scored them."""

    rows: dict[str, tuple[str, dict[str, Any], list[str]]] = field(default_factory=dict)
    """key -> (kind, the memory's row, its stems)."""
    seen: dict[str, Seen] = field(default_factory=dict)
    """key -> the legs that found it and their scores, in the order the legs first found them."""
    graph: dict[str, RecalledFact] = field(default_factory=dict)
    """Facts the graph leg reached, with how (hop, entry) and how relevant through the entities."""
    names: dict[str, str] = field(default_factory=dict)
    """Entity names by key, for observations (the full-text leg reads them without)."""
    links: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    """By key, the records that meet a chosen fact's (``{{links}}``): what replaced it and what it replaced."""

    def add(self, key: str, leg: str, kind: str, memory: dict[str, Any], stems: str | list[str] | None, *,
            lexical: float | None = None, vector: float | None = None, graph: float | None = None,
            tie: str | None = None) -> None:
        """A memory a leg returned, with the leg's scores (a memory found again keeps each leg's best score);
        ``stems`` as read or already split, ``tie`` what it says (:func:`said`) if the leg knew it."""
        if kind == "observation" and memory.get("entity") is not None:
            self.names.setdefault(memory["entity_key"], memory["entity"])
        seen = self.seen.get(key)
        if seen is None:
            self.rows[key] = (kind, memory, stems if isinstance(stems, list) else (stems or "").split())
            self.seen[key] = _seen(key, leg, kind, memory, lexical, vector, graph,
                                   said(kind, memory) if tie is None else tie)
            return
        seen.legs.add(leg)
        seen.lexical, seen.vector, seen.graph = (
            _best(seen.lexical, lexical), _best(seen.vector, vector), _best(seen.graph, graph))
        # the same memory (its kind is in its key; what it says is never empty): what the first row lacked
        ends = _ends(kind, memory)
        if not seen.entities.issuperset(ends):
            seen.entities = seen.entities.union(ends)
        if seen.episode is None:
            seen.episode = _episode(memory.get("session"), memory.get("valid_at"), memory["recorded_at"])
        if seen.valid_at is None:
            seen.valid_at = _datetime(memory.get("valid_at"))
        if seen.fact and seen.invalid_at is None:
            seen.invalid_at = _datetime(memory.get("invalid_at"))

    def candidates(self) -> list[Seen]:
        """Fusion's candidates: one per memory, in the order the legs first found them, with each leg's best."""
        return list(self.seen.values())


def _best(a: float | None, b: float | None) -> float | None:
    return b if a is None else a if b is None else max(a, b)


def key_of(kind: str, memory: Mapping[str, Any]) -> str:
    return f"{kind[0]}:{memory['id']}"


def _ends(kind: str, memory: Mapping[str, Any]) -> tuple[str, ...]:
    """The keys of the entities a memory is about."""
    return (memory["subject_key"], memory["object_key"]) if kind == "fact" else (memory["entity_key"],)


def _seen(key: str, leg: str, kind: str, memory: Mapping[str, Any], lexical: float | None, vector: float | None,
          graph: float | None, tie: str) -> Seen:
    """A memory a leg found first: what fusion knows of it (the entities it is about, its episode and time)."""
    fact = kind == "fact"
    valid_at = memory.get("valid_at")
    return Seen(key, {leg}, lexical, vector, graph, frozenset(_ends(kind, memory)),
                _episode(memory.get("session"), valid_at, memory["recorded_at"]), _datetime(valid_at), fact,
                _datetime(memory.get("invalid_at")) if fact else None, tie)


def said(kind: str, memory: Mapping[str, Any]) -> str:
    """What a memory says (its entities, predicate, text, time): memories that score alike are ordered by it,
    the same on every backend (their ids differ from one database to another)."""
    entities = [memory["subject_key"], memory["object_key"]] if kind == "fact" else [memory["entity_key"]]
    said = (*entities, memory.get("predicate") or "", memory.get("text") or "", str(memory.get("valid_at")))
    return "\x1f".join(said)


def _episode(session: str | None, valid_at: int | None, recorded_at: int | None) -> str | None:
    """What a memory was told in: its agent session, else the day it is valid at, else the day it was recorded."""
    if session:
        return f"session:{session}"
    instant = valid_at if valid_at is not None else recorded_at
    return None if instant is None else f"day:{instant // _DAY}"


@lru_cache(maxsize=4096)
def _datetime(instant: int | None) -> datetime | None:
    """An instant as a datetime (many memories share one: those told together)."""
    return None if instant is None else to_datetime(instant)


def by_score(scores: Mapping[str, float], said: Callable[[str], str]) -> list[tuple[str, float]]:
    """Keys by score, best first; equal scores by what the memories say (``said``), never by their ids (each
    database has its own), then by key. What a memory says is built only where scores tie (most do not)."""
    ordered = sorted(scores.items(), key=lambda item: -item[1])
    best: list[tuple[str, float]] = []
    start = 0
    while start < len(ordered):
        end = start + 1
        while end < len(ordered) and ordered[end][1] == ordered[start][1]:
            end += 1
        tied = ordered[start:end]
        best.extend(tied if len(tied) == 1 else sorted(tied, key=lambda item: (said(item[0]), item[0])))
        start = end
    return best
