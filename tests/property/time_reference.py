"""The reference model's answers to time questions (not a test module): what a step changed, what held during
or throughout a period, what began or ended between two valid times, and what was believed at a past time.

Written from the documented rules alone (docs/facts.md, "Asking about time"), sharing no code with the library:

* a step's changes are the net difference of the model's intervals before and after it (an interval is
  ``(subject, predicate, object, start, end, candidate)``; a merge renames the merged entity first): an
  interval the step added is ``added``; with intervals of the same fact the step removed (``before``) it is
  ``approved`` (an approval believing a candidate), ``ended`` (one earlier interval, same start, ending later:
  ``superseded`` when the subject's interval of another object in the same timeline begins where it now ends,
  else ``retracted`` by a retraction) or ``corrected``; a removed interval of a fact the step added nothing to is
  ``rejected`` (with the reason) or ``removed`` (``superseded`` when the step added another object's interval
  beginning where it began, ``retracted`` by a retraction); a merge adds ``merged`` (the merged name, then the
  target's), feedback ``feedback`` (the verdict), a purge ``purged`` alone;
* during ``[a, b)``: start < b and end > a; throughout: start <= a and end >= b (an open end never ends);
* a diff of ``(a, b]``: believed intervals starting in it (began), ending in it (ended);
* at a past belief, every interval of every state as it was then (a merge renames, a purge erases), the
  intervals of one fact that overlap or touch read as one.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

Key = tuple[str, str, str, int, int | None, bool]
"""(subject, predicate, object, start, end, candidate): one interval of the model."""
Span5 = tuple[str, str, str, int, int | None]


def end_of(end: int | None) -> float:
    return math.inf if end is None else end


def keys_of(facts: Mapping[tuple[str, str, str], Iterable[Any]]) -> dict[Key, str]:
    """The model's intervals by key, with their trust state."""
    return {(*fact, span.start, span.end, span.candidate): span.status for fact, spans in facts.items()
            for span in spans}


def renamed(keys: Mapping[Key, str], old: str, new: str) -> dict[Key, str]:
    """Intervals with entity ``old`` renamed ``new`` (a merge). Two that become one keep the weakest state."""
    order = {"believed": 0, "candidate": 1, "disputed": 2}
    out: dict[Key, str] = {}
    for (s, p, o, start, end, cand), status in keys.items():
        key = (new if s == old else s, p, new if o == old else o, start, end, cand)
        out[key] = max(out.get(key, status), status, key=order.__getitem__)
    return out


@dataclass
class Step:
    """What one step of the machine did, for its expected changes."""

    action: str
    merged: tuple[str, str] | None = None
    """(merged entity's name, target's name)."""
    reason: str | None = None
    judged: Key | None = None
    """The interval feedback judged."""
    purged: bool = False
    extra: list[tuple[Any, ...]] = field(default_factory=list)


def expected_changes(before: Mapping[Key, str], after: Mapping[Key, str], step: Step) -> list[tuple[Any, ...]]:
    """The changes a step must show, described as :func:`describe` describes the store's."""
    if step.purged:
        return [("purged",)]
    if step.action.startswith("feedback:"):
        assert step.judged is not None
        return [("feedback", *step.judged, step.action.split(":")[1], None, ())]
    removed = {k: v for k, v in before.items() if k not in after}
    added = {k: v for k, v in after.items() if k not in before}
    out: list[tuple[Any, ...]] = [("merged", *step.merged)] if step.merged else []
    for key in added:
        prior = sorted((r for r in removed if r[:3] == key[:3]), key=lambda r: (r[3], end_of(r[4])))
        spans = tuple(sorted(((start, end) for start, end, _ in {(r[3], r[4], r[5]) for r in prior}),
                             key=lambda span: (span[0], end_of(span[1]))))  # one per interval, as the store says
        why, successor = None, None
        if not prior:
            kind = "added"
        elif step.action == "approve" and any(r[5] for r in prior) and not key[5]:
            kind = "approved"
        elif len(prior) == 1 and prior[0][3] == key[3] and end_of(prior[0][4]) > end_of(key[4]):
            kind = "ended"
            after_objects = sorted(a[2] for a in after if a[:2] == key[:2] and a[2] != key[2] and a[3] == key[4]
                                   and a[5] == key[5])
            if after_objects:
                why, successor = "superseded", after_objects[0]
            elif step.action == "retract":
                why = "retracted"
        else:
            kind = "corrected"
        out.append((kind, *key, why, successor, spans))
    for key in removed:
        if any(a[:3] == key[:3] for a in added):
            continue
        why, successor = None, None
        if step.action == "reject":
            out.append(("rejected", *key, step.reason, None, ()))
            continue
        starting = sorted(a[2] for a in added if a[:2] == key[:2] and a[2] != key[2] and a[3] == key[3]
                          and a[5] == key[5])
        if starting:
            why, successor = "superseded", starting[0]
        elif step.action == "retract":
            why = "retracted"
        out.append(("removed", *key, why, successor, ()))
    return out


def describe(change: Any, us: Any) -> tuple[Any, ...]:
    """A store's change as :func:`expected_changes` describes one (``us``: a datetime as epoch microseconds)."""
    if change.kind == "purged":
        return ("purged",)
    if change.kind == "merged":
        return ("merged", *change.entities)
    f = change.fact
    spans = tuple(sorted(((us(b.valid_at), None if b.invalid_at is None else us(b.invalid_at)) for b in change.before),
                         key=lambda span: (span[0], end_of(span[1]))))
    return (change.kind, f.subject, f.predicate, f.object, us(f.valid_at),
            None if f.invalid_at is None else us(f.invalid_at), f.status == "candidate", change.why,
            None if change.superseded_by is None else change.superseded_by.object, spans)


def ordered(items: Iterable[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
    return sorted(items, key=lambda item: tuple("" if v is None else str(v) for v in item))


# -- periods and diffs ---------------------------------------------------------------------------------------


def during(start: int, end: int | None, a: int, b: int | None) -> bool:
    return start < end_of(b) and end_of(end) > a


def throughout(start: int, end: int | None, a: int, b: int | None) -> bool:
    return start <= a and end_of(end) >= end_of(b)


def believed(keys: Mapping[Key, str]) -> list[Span5]:
    return sorted(k[:5] for k, status in keys.items() if status == "believed")


def diff(keys: Mapping[Key, str], a: int, b: int) -> tuple[list[Span5], list[Span5]]:
    spans = believed(keys)
    began = [k for k in spans if a < k[3] <= b]
    ended = [k for k in spans if k[4] is not None and a < k[4] <= b]
    return sorted(began), sorted(ended)


def unite(spans: Iterable[Span5]) -> list[Span5]:
    """Intervals of one fact that overlap or touch, as one."""
    by_fact: dict[tuple[str, str, str], list[tuple[int, float]]] = {}
    for s, p, o, start, end in spans:
        by_fact.setdefault((s, p, o), []).append((start, end_of(end)))
    out: list[Span5] = []
    for fact, found in by_fact.items():
        found.sort()
        merged = [list(found[0])]
        for start, end in found[1:]:
            if start <= merged[-1][1]:
                merged[-1][1] = max(merged[-1][1], end)
            else:
                merged.append([start, end])
        out += [(*fact, int(start), None if end == math.inf else int(end)) for start, end in merged]
    return sorted(out, key=lambda k: (k[:4], end_of(k[4])))


# -- past beliefs ----------------------------------------------------------------------------------------------


class Beliefs:
    """What the model believed after each step (every interval, every state), as a past read must show it."""

    def __init__(self) -> None:
        self.snapshots: list[tuple[int, set[Span5]]] = []

    def add(self, known_at: int, keys: Iterable[Key]) -> None:
        self.snapshots.append((known_at, {k[:5] for k in keys}))

    def rename(self, old: str, new: str) -> None:
        self.snapshots = [(t, {(new if s == old else s, p, new if o == old else o, a, b) for s, p, o, a, b in spans})
                          for t, spans in self.snapshots]

    def erase(self, entity: str) -> None:
        self.snapshots = [(t, {k for k in spans if entity not in (k[0], k[2])}) for t, spans in self.snapshots]
