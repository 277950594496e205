"""Precision and recall of duplicate proposals on a labelled set, through the pure rules (no store)."""

from __future__ import annotations

import time
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from benchmarks.duplicates.dataset import LabelledSet
from benchmarks.temporal_kg import name_key
from synapse_graph.rules.duplicates import DEFAULT_THRESHOLD, Link, Profile, Proposal, propose

EPOCH_US = 1_000_000


def _micros(moment: Any) -> int:
    return int(moment.timestamp() * EPOCH_US)


def profiles(labelled: LabelledSet, keys: Iterable[str] | None = None) -> list[Profile]:
    """What the scorer would read from a store holding the labelled set (or only the given keys' entities)."""
    mentions = labelled.by_key()
    degree: Counter[str] = Counter()
    links: dict[str, list[tuple[str, str, bool, int, int | None, str]]] = defaultdict(list)
    kept = None if keys is None else set(keys)
    for f in labelled.facts:
        s, o = name_key(f.subject), name_key(f.object)
        if kept is not None and (s not in kept or o not in kept):
            continue
        degree[s] += 1
        degree[o] += 1
        end = None if f.invalid_at is None else _micros(f.invalid_at)
        links[s].append((f.predicate, o, True, _micros(f.valid_at), end, f.object))
        links[o].append((f.predicate, s, False, _micros(f.valid_at), end, f.subject))
    return [Profile(key=k, name=m.name, type=m.type,
                    links=tuple(Link(p, o, out, v, i, name, degree[o]) for p, o, out, v, i, name in links[k]))
            for k, m in mentions.items() if kept is None or k in kept]


@dataclass
class Scores:
    proposals: int
    true: int
    gold: int
    seconds: float
    missed_by_kind: Counter[str] = field(default_factory=Counter)
    gold_by_kind: Counter[str] = field(default_factory=Counter)
    false_by_kind: Counter[str] = field(default_factory=Counter)
    examples: list[str] = field(default_factory=list)

    @property
    def precision(self) -> float:
        return self.true / self.proposals if self.proposals else 1.0

    @property
    def recall(self) -> float:
        return self.true / self.gold if self.gold else 1.0


def judge(labelled: LabelledSet, proposals: list[Proposal], seconds: float) -> Scores:
    gold = labelled.gold()
    mentions = labelled.by_key()
    found = {p.pair for p in proposals}
    scores = Scores(proposals=len(found), true=len(found & gold), gold=len(gold), seconds=seconds)
    for a, b in gold:
        kind = next((m.kind for m in (mentions[a], mentions[b]) if m.kind != "original"), "original")
        scores.gold_by_kind[kind] += 1
        if (a, b) not in found:
            scores.missed_by_kind[kind] += 1
    for p in proposals:
        if p.pair not in gold:
            kinds = sorted({mentions[k].kind for k in p.pair})
            scores.false_by_kind["+".join(kinds)] += 1
            if len(scores.examples) < 25:
                scores.examples.append(f"{p.canonical_name!r} ~ {p.other_name!r} {p.score:.2f}: "
                                       + "; ".join(f"{e.kind} {e.weight:+.1f}" for e in p.evidence))
    return scores


def run_pure(labelled: LabelledSet, threshold: float = DEFAULT_THRESHOLD) -> tuple[Scores, list[Proposal]]:
    found = profiles(labelled)
    started = time.perf_counter()
    proposals = propose(found, single_valued=labelled.single_valued, threshold=threshold)
    return judge(labelled, proposals, time.perf_counter() - started), proposals
