"""A real ``Memory`` (and ``AsyncMemory``) against a small reference model, on every backend.

Hypothesis drives random sequences of upserts (single- and multi-valued
predicates, ``replace=True``, batches), retractions, aliases and purges against a
live store and against :class:`ReferenceModel`, written here from the documented
rules alone (it shares no code with :mod:`synapse_graph.rules.timeline`):

* validity is half-open ``[valid_at, invalid_at)``, ``None`` = still holds;
* a write whose interval lies inside an interval of the same fact confirms it;
  otherwise it is united with every interval of the same fact it overlaps or touches;
* single-valued (registered predicate or ``replace=True``): the other objects'
  intervals holding at the new ``valid_at`` end there (vanish if they started
  there), and the new interval ends no later than the next other object's start;
* ``retract(s, p, o | None, at)``: intervals holding at ``at`` end at ``at``;
* ``alias(A, B)``: if ``B`` names an entity other than ``A``'s, the store becomes what it
  would be had ``B``'s facts been written to ``A`` in the first place: each of ``B``'s
  intervals (renamed) is written to ``A`` with its confirmations, in order of start (ties in
  the order of subject, predicate, object, names case-folded), under the write rules above (intervals of one
  fact united, single-valued values resolved); ``B`` then resolves to ``A``; an unknown ``B``
  just becomes a name of ``A``;
* ``purge(entity)``: the entity, its names, every fact touching it and its rejections are gone.

Trust states (each interval is believed, disputed or a candidate):

* a write by a model (``model="x"``) below confidence 0.6 is a candidate, and so is any write of a
  fact rejected before (flagged); candidates form timelines of their own: they unite and confirm
  among themselves, and never close or are closed by a single-valued value;
* disputed intervals share the believed timeline; whatever an interval is united with or confirms
  keeps the weakest state of the two (disputed over believed), and so does a flag;
* ``feedback(fact, "wrong")`` disputes a believed interval; ``reject(candidate)`` removes it and
  leaves a tombstone on the fact; ``approve(candidate)`` removes it and writes it as a believed
  write of its interval, with its confirmations;
* ``alias`` replays each of ``B``'s intervals with its state, flag and confirmations (candidates
  into candidate timelines), and B's tombstones move to ``A``; ``retract`` ends believed and
  disputed intervals only.

After every step the store's current intervals (with confirmations, states and flags)
must equal the model's, and so must the believed facts valid at a set of instants.
"""

from __future__ import annotations

import copy
import logging
import math
import os
import uuid
from collections import Counter
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, ClassVar
from unittest import mock

import pytest
from hypothesis import HealthCheck, event, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule, run_state_machine_as_test

from synapse_graph import ConflictingValuesError, Fact, Memory, Triple
from synapse_graph.aio import AsyncMemory
from synapse_graph.engine import reads
from tests.adapters import Blocking, EventLoopThread
from tests.integration.helpers import wrong_record_keys
from tests.property import time_reference as timeref
from tests.property.time_reference import Beliefs, Step

pytestmark = pytest.mark.integration

logging.getLogger("neo4j").setLevel(logging.ERROR)

# -- vocabulary: few names, predicates and instants, so that writes collide ------------------------

NAMES = ("Ann", "Bob", "Cat", "Dan", "Eve")
PREDICATES = ("LIVES_IN", "HAS_MANAGER", "KNOWS")
SINGLE_VALUED = frozenset({"LIVES_IN", "HAS_MANAGER"})  # LIVES_IN by default, HAS_MANAGER registered
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def us(when: datetime) -> int:
    """Epoch microseconds of an aware datetime (computed here, not by the library)."""
    delta = when - EPOCH
    return (delta.days * 86_400 + delta.seconds) * 1_000_000 + delta.microseconds


def dt(micros: int) -> datetime:
    return EPOCH + timedelta(microseconds=micros)


INSTANTS: tuple[int, ...] = tuple(
    us(d)
    for d in (
        datetime(1, 1, 1, tzinfo=UTC),  # smallest storable instant
        datetime(2024, 1, 1, tzinfo=UTC),
        datetime(2024, 1, 1, 0, 0, 0, 1, tzinfo=UTC),  # one microsecond later
        datetime(2024, 1, 1, 9, 0, tzinfo=UTC),
        datetime(2024, 1, 1, 9, 1, tzinfo=UTC),  # one minute later, same day
        datetime(2024, 1, 2, tzinfo=UTC),
        datetime(2024, 6, 1, 12, 30, tzinfo=UTC),
        datetime(2100, 1, 1, tzinfo=UTC),  # after "now": a retraction now cuts intervals ending here
        datetime(9999, 12, 31, 23, 59, 59, 999_999, tzinfo=UTC),  # largest storable instant
    )
)
CHECK_POINTS: tuple[int, ...] = tuple(sorted({*INSTANTS, *(t - 1 for t in INSTANTS[1:])}))


def end_of(end: int | None) -> float:
    return math.inf if end is None else end


# -- the reference model ---------------------------------------------------------------------------


@dataclass(eq=False)
class Span:
    """One validity interval of one fact, ``[start, end)``."""

    start: int
    end: int | None
    confirmations: int = 1
    status: str = "believed"
    flagged: bool = False

    @property
    def candidate(self) -> bool:
        return self.status == "candidate"

    def holds_at(self, t: int) -> bool:
        return self.start <= t < end_of(self.end)

    def meets(self, start: int, end: int | None) -> bool:
        """Overlaps or touches ``[start, end)``."""
        return self.start <= end_of(end) and start <= end_of(self.end)


Fact3 = tuple[str, str, str]
HistoryRow = tuple[str, str, str, int, int | None, int, str, bool]
_WEAKNESS = {"believed": 0, "candidate": 1, "disputed": 2}


def weakest(*states: str) -> str:
    return max(states, key=_WEAKNESS.__getitem__)


class ReferenceModel:
    """Facts as lists of intervals per (subject, predicate, object); entities by display name."""

    def __init__(self, single_valued: Iterable[str]) -> None:
        self.single_valued = set(single_valued)
        self.names: dict[str, str] = {}  # case-folded name -> entity (its display name)
        self.facts: dict[Fact3, list[Span]] = {}
        self.tombstones: set[Fact3] = set()  # facts rejected before (by entity)

    def resolve(self, name: str, *, create: bool = False) -> str | None:
        key = name.casefold()
        if key not in self.names and create:
            self.names[key] = name
        return self.names.get(key)

    def introduce(self, names: Iterable[str]) -> None:
        """Create the entities one upsert names for the first time.

        The rules leave open how an entity is spelled when one call names it in several
        ways ("Ann" ... "ann"); the library takes the last spelling, and so does the model.
        """
        self.names.update({n.casefold(): n for n in names if n.casefold() not in self.names})

    def _spans(self, subject: str, predicate: str) -> list[tuple[Fact3, Span]]:
        return [(f, s) for f, spans in self.facts.items() if f[:2] == (subject, predicate) for s in spans]

    def write(self, subject: str, predicate: str, obj: str, start: int, end: int | None, replace: bool,
              extracted: bool = False) -> bool:
        """Apply one write (``extracted``: by a model, below the confidence bar); True if it only confirmed."""
        s = self.resolve(subject, create=True)
        o = self.resolve(obj, create=True)
        assert s is not None and o is not None
        flagged = (s, predicate, o) in self.tombstones
        candidate = extracted or flagged
        single = (replace or predicate in self.single_valued) and not candidate
        return self._write(s, predicate, o, start, end, single, 1, "candidate" if candidate else "believed", flagged)

    def _write(self, s: str, predicate: str, o: str, start: int, end: int | None, single: bool, weight: int,
               status: str = "believed", flagged: bool = False) -> bool:
        candidate = status == "candidate"

        def same_line(span: Span) -> bool:  # candidates and the rest are separate timelines
            return span.candidate == candidate

        if single:
            others = [(f, span) for f, span in self._spans(s, predicate) if f[2] != o and same_line(span)]
            later = [span.start for _, span in others if span.start > start]
            if later and min(later) < end_of(end):
                end = min(later)
            for fact, span in others:
                if span.holds_at(start):
                    if span.start == start:
                        self.facts[fact].remove(span)
                    else:
                        span.end = start
        spans = self.facts.setdefault((s, predicate, o), [])
        for span in spans:
            if same_line(span) and span.start <= start and end_of(end) <= end_of(span.end):
                span.confirmations += weight
                span.status = weakest(span.status, status)
                span.flagged = span.flagged or flagged
                return True
        touching = [span for span in spans if same_line(span) and span.meets(start, end)]
        top = max([end_of(end), *(end_of(t.end) for t in touching)])
        united = Span(
            start=min([start, *(t.start for t in touching)]),
            end=None if top == math.inf else int(top),
            confirmations=weight + sum(t.confirmations for t in touching),
            status=weakest(status, *(t.status for t in touching)),
            flagged=flagged or any(t.flagged for t in touching),
        )
        spans[:] = [span for span in spans if all(span is not t for t in touching)] + [united]
        return False

    def find(self, fact: Fact3, start: int, end: int | None, *, candidate: bool) -> Span:
        [span] = [x for x in self.facts.get(fact, []) if (x.start, x.end, x.candidate) == (start, end, candidate)]
        return span

    def dispute(self, fact: Fact3, start: int, end: int | None) -> None:
        span = self.find(fact, start, end, candidate=False)
        span.status = "disputed"

    def reject(self, fact: Fact3, start: int, end: int | None) -> None:
        self.facts[fact].remove(self.find(fact, start, end, candidate=True))
        self.facts = {f: spans for f, spans in self.facts.items() if spans}
        self.tombstones.add(fact)

    def approve(self, fact: Fact3, start: int, end: int | None) -> None:
        span = self.find(fact, start, end, candidate=True)
        self.facts[fact].remove(span)
        s, p, o = fact
        self._write(s, p, o, start, end, p in self.single_valued, span.confirmations)
        self.facts = {f: spans for f, spans in self.facts.items() if spans}

    def retract(self, subject: str, predicate: str, obj: str | None, at: int) -> int:
        s = self.resolve(subject)
        o = None if obj is None else self.resolve(obj)
        if s is None or (obj is not None and o is None):
            return 0
        ended = 0
        for fact, span in self._spans(s, predicate):
            if (o is None or fact[2] == o) and not span.candidate and span.holds_at(at):
                ended += 1
                if span.start == at:
                    self.facts[fact].remove(span)
                else:
                    span.end = at
        return ended

    def holding_at(self, subject: str, predicate: str, obj: str | None, at: int) -> int:
        """How many intervals a retraction at ``at`` would end (without ending them)."""
        s = self.resolve(subject)
        o = None if obj is None else self.resolve(obj)
        if s is None or (obj is not None and o is None):
            return 0
        return sum(1 for f, span in self._spans(s, predicate)
                   if (o is None or f[2] == o) and not span.candidate and span.holds_at(at))

    def merge_kinds(self, canonical: str, alias: str) -> set[str]:
        """What a merge of ``alias`` into ``canonical`` would move (for the test's statistics)."""
        target, other = self.resolve(canonical), self.resolve(alias)
        if other is None or other == target:
            return set()
        moved = [(f, span) for f, spans in self.facts.items() if other in (f[0], f[2]) for span in spans]
        kinds = {f"merge moves a {span.status} interval" for _, span in moved}
        kinds |= {"merge moves a flagged candidate" for _, span in moved if span.flagged}
        kinds |= {"merge moves a tombstone" for f in self.tombstones if other in (f[0], f[2])}
        held = {f[1] for f, spans in self.facts.items() if f[0] == target and f[1] in self.single_valued
                for span in spans if not span.candidate}
        kinds |= {"merge meets two values of a single-valued predicate" for f, span in moved
                  if f[0] == other and f[1] in held and not span.candidate}
        return kinds

    def alias(self, canonical: str, alias: str) -> bool:
        """Record ``alias`` as a name of ``canonical``; True if an entity was merged."""
        if canonical.casefold() == alias.casefold():
            return False
        target = self.resolve(canonical, create=True)
        other = self.resolve(alias)
        if other == target:
            return False
        if other is None:
            self.names[alias.casefold()] = target  # type: ignore[assignment]
            return False
        assert target is not None
        moved: list[tuple[Fact3, Span]] = []
        for fact in [f for f in self.facts if other in (f[0], f[2])]:
            s, p, o = fact
            renamed = (target if s == other else s, p, target if o == other else o)
            moved += [(renamed, span) for span in self.facts.pop(fact)]
        for (s, p, o), span in sorted(moved, key=lambda m: (m[1].start, m[0][0].casefold(), m[0][1],
                                                              m[0][2].casefold())):
            self._write(s, p, o, span.start, span.end, p in self.single_valued and not span.candidate,
                        span.confirmations, span.status, span.flagged)
        self.facts = {f: spans for f, spans in self.facts.items() if spans}
        self.tombstones = {(target if s == other else s, p, target if o == other else o)
                           for s, p, o in self.tombstones}
        for key, entity in self.names.items():
            if entity == other:
                self.names[key] = target
        self.names[alias.casefold()] = target
        return True

    def purge(self, name: str) -> int:
        entity = self.resolve(name)
        if entity is None:
            return 0
        self.facts = {f: spans for f, spans in self.facts.items() if entity not in (f[0], f[2])}
        self.tombstones = {f for f in self.tombstones if entity not in (f[0], f[2])}
        self.names = {k: e for k, e in self.names.items() if e != entity}
        return 1

    # views compared with the store

    def history(self, subject: str | None = None, statuses: Iterable[str] = ("believed", "disputed", "candidate")
                ) -> list[HistoryRow]:
        wanted = set(statuses)
        rows = [
            (s, p, o, span.start, span.end, span.confirmations, span.status, span.flagged)
            for (s, p, o), spans in self.facts.items()
            if subject is None or s == subject
            for span in spans
            if span.status in wanted
        ]
        return sorted(rows, key=_row_key)

    def at(self, t: int) -> list[Fact3]:
        """Believed facts valid at ``t``."""
        return sorted(f for f, spans in self.facts.items() for span in spans
                      if span.status == "believed" and span.holds_at(t))


def _row_key(row: HistoryRow) -> tuple[Any, ...]:
    s, p, o, start, end, confirmations, status, flagged = row
    return (s, p, o, start, end_of(end), confirmations, status, flagged)


def store_rows(facts: list[Fact]) -> list[HistoryRow]:
    rows = [
        (
            f.subject,
            f.predicate,
            f.object,
            us(f.valid_at),
            None if f.invalid_at is None else us(f.invalid_at),
            f.confirmations,
            f.status,
            f.flag is not None,
        )
        for f in facts
    ]
    return sorted(rows, key=_row_key)


def wall_micros() -> int:
    return us(datetime.now(UTC))


# -- strategies ------------------------------------------------------------------------------------

# Names are given in any case: "ann" and "ANN" are the entity first written as "Ann" (or as "ann").
names = st.sampled_from(NAMES).flatmap(lambda n: st.sampled_from([n, n.lower(), n.upper()]))
predicates = st.sampled_from(PREDICATES)


@st.composite
def intervals(draw: st.DrawFn) -> tuple[int, int | None]:
    start = draw(st.sampled_from(INSTANTS))
    later = [t for t in INSTANTS if t > start]
    end = draw(st.none() | st.sampled_from(later)) if later else None
    return start, end


writes = st.tuples(names, predicates, names, intervals())
MERGES_SEEN: Counter[str] = Counter()  # what the merges of a run moved, printed with the result
CANDIDATE_BELOW = 0.6  # the default rule: a model's fact below this confidence is a candidate
confidences = st.none() | st.sampled_from([0.3, 0.59, 0.6, 0.9])  # None: a direct write
time_styles = st.sampled_from(["datetime", "iso"])


def encode(micros: int, style: str) -> datetime | str:
    return dt(micros) if style == "datetime" else dt(micros).isoformat()


# -- the machine -----------------------------------------------------------------------------------


class MemoryMachine(RuleBasedStateMachine):
    """One fresh scope per example; ``location``/``options`` are set per backend."""

    location: ClassVar[str]
    options: ClassVar[dict[str, Any]]
    exhaustive: ClassVar[bool]  # check every point of CHECK_POINTS after every step (cheap backends)
    runner: ClassVar[EventLoopThread | None]  # drives an AsyncMemory instead of a Memory

    def __init__(self) -> None:
        super().__init__()
        scope = f"sm-{uuid.uuid4().hex[:16]}"
        if self.runner is None:
            self.memory = Memory(self.location, scope=scope, **self.options)
        else:
            opened = self.runner.run(AsyncMemory(self.location, scope=scope, **self.options).open())
            self.memory = Blocking(opened, self.runner)  # type: ignore[assignment]
        self.memory.set_rules(single_valued=self.memory.rules().single_valued | {"HAS_MANAGER"})
        self.model = ReferenceModel(SINGLE_VALUED)
        self.nows: list[int] = []  # instants the store used for retract(at=now)
        self.focus: set[int] = set()  # instants the last step touched
        self.steps = 0
        self.started = wall_micros()  # the recorded time before the first step (changes since then)
        self.beliefs = Beliefs()  # what the model believed after each step, for reads of a past belief
        self.before: dict[timeref.Key, str] = {}
        self.since = self.started

    def teardown(self) -> None:
        try:
            self.memory.purge(scope=self.memory.scope)
        finally:
            self.memory.close()

    # -- steps: what each changed, as Memory.changes must tell it --

    @contextmanager
    def _step(self, action: str) -> Iterator[Step]:
        """Run a step; then its changes must be the model's (:func:`time_reference.expected_changes`), and the
        model's belief after it is kept for reads of past beliefs."""
        self.before, self.since = timeref.keys_of(self.model.facts), wall_micros()
        step = Step(action)
        yield step
        before = self.before if step.merged is None else timeref.renamed(self.before, *step.merged)
        after = timeref.keys_of(self.model.facts)
        expected = timeref.expected_changes(before, after, step)
        page = self.memory.changes(dt(self.since), limit=1_000)
        got = [timeref.describe(change, us) for change in page.changes]
        assert timeref.ordered(got) == timeref.ordered(expected), f"{step}: changes {got} != {expected}"
        paged, cursor = [], None  # pages of two, wherever their cuts fall, give the same changes in the same order
        while True:
            part = self.memory.changes(dt(self.since), limit=2, after=cursor)
            paged += part.changes
            if (cursor := part.next) is None:
                break
        assert paged == page.changes, f"{step}: pages of two {paged} != one page {page.changes}"
        if step.merged is not None:
            self.beliefs.rename(*step.merged)
        self.beliefs.add(wall_micros(), after)

    def _merging(self, step: Step, canonical: str, alias: str) -> bool:
        """Merge ``alias`` into ``canonical`` in the model; the step records who merged into whom."""
        other = self.model.resolve(alias)
        merged = self.model.alias(canonical, alias)
        target = self.model.resolve(canonical)
        if merged:
            assert other is not None and target is not None
            step.merged = (other, target)
        return merged

    # -- rules --

    def _write(
        self,
        batch: list[tuple[str, str, str, tuple[int, int | None]]],
        replace: bool,
        shared: bool,
        style: str,
        same_as: tuple[int, str, str] | None = None,
        confidence: float | None = None,
    ) -> None:
        with self._step("upsert") as step:
            self._upsert(step, batch, replace, shared, style, same_as, confidence)

    def _upsert(
        self,
        step: Step,
        batch: list[tuple[str, str, str, tuple[int, int | None]]],
        replace: bool,
        shared: bool,
        style: str,
        same_as: tuple[int, str, str] | None,
        confidence: float | None,
    ) -> None:
        """Upsert a batch (by a model, ``model="x"``, when a confidence is given) and check what it returned."""
        kwargs: dict[str, Any] = {} if confidence is None else {"model": "x"}
        if shared:
            # Every triple takes valid_at from the call; drop ends that would come before it.
            start = batch[0][3][0]
            batch = [(s, p, o, (start, e if e is not None and e > start else None)) for s, p, o, (_, e) in batch]
            kwargs["valid_at"] = encode(start, style)
        triples = [
            Triple(
                subject=s,
                predicate=p,
                object=o,
                valid_at=None if shared else encode(start, style),
                invalid_at=None if end is None else encode(end, style),
                confidence=1.0 if confidence is None else confidence,
            )
            for s, p, o, (start, end) in batch
        ]
        if same_as is not None:
            # An alias anywhere in the batch is recorded before the batch's facts are written.
            position, canonical, alias = same_as
            triples.insert(position % (len(triples) + 1), Triple(subject=canonical, predicate="SAME_AS", object=alias))
        if self._refused(batch, replace, same_as, confidence):
            # Refused whole, its SAME_AS included: no fact, record or name changes (and no change is listed).
            every: dict[str, Any] = {"include_history": True, "include_candidates": True, "include_disputed": True,
                                     "limit": 10_000}
            before = self.memory.facts(**every)
            with pytest.raises(ConflictingValuesError):
                self.memory.upsert(triples if len(triples) > 1 else triples[0], replace=replace, **kwargs)
            assert self.memory.facts(**every) == before
            self._check_names()
            return
        merged = 0 if same_as is None else int(self._merging(step, same_as[1], same_as[2]))
        result = self.memory.upsert(triples if len(triples) > 1 else triples[0], replace=replace, **kwargs)
        self.model.introduce(name for s, _, o, _ in batch for name in (s, o))
        extracted = confidence is not None and confidence < CANDIDATE_BELOW
        confirmed = sum(self.model.write(s, p, o, start, end, replace, extracted) for s, p, o, (start, end) in batch)
        assert (result.confirmed, result.created, result.aliases_merged) == (
            confirmed,
            len(batch) - confirmed,
            merged,
        ), result
        self.focus = {t for _, _, _, (start, end) in batch for t in (start, end) if t is not None}
        subject_name, _, object_name, (start, _) = batch[0]
        subject, obj = self.model.resolve(subject_name), self.model.resolve(object_name)
        assert store_rows(self.memory.history(subject_name)) == self.model.history(subject, ["believed"])
        by_object = self.memory.facts(object=object_name, as_of=dt(start))
        assert sorted((f.subject, f.predicate, f.object) for f in by_object) == [
            f for f in self.model.at(start) if f[2] == obj
        ]
        if same_as is not None:
            self._check_names()

    def _refused(self, batch: list[tuple[str, str, str, tuple[int, int | None]]], replace: bool,
                 same_as: tuple[int, str, str] | None, confidence: float | None) -> bool:
        """True if the batch gives an entity two believed values of a single-valued predicate from one instant
        (refused whole: written together one would hold for no time)."""
        probe = copy.deepcopy(self.model)
        if same_as is not None:
            probe.alias(same_as[1], same_as[2])
        extracted = confidence is not None and confidence < CANDIDATE_BELOW
        values: dict[tuple[str | None, str, int], str | None] = {}
        for s, p, o, (start, _) in batch:
            subject, obj = probe.resolve(s, create=True), probe.resolve(o, create=True)
            believed = not extracted and (subject, p, obj) not in probe.tombstones
            single = (replace or p in probe.single_valued) and believed
            if single and values.setdefault((subject, p, start), obj) != obj:
                return True
        return False

    @rule(write=writes, replace=st.booleans(), shared=st.booleans(), style=time_styles, confidence=confidences)
    def upsert(
        self, write: tuple[str, str, str, tuple[int, int | None]], replace: bool, shared: bool, style: str,
        confidence: float | None,
    ) -> None:
        self._write([write], replace, shared, style, confidence=confidence)

    @rule(
        batch=st.lists(writes, min_size=2, max_size=3),
        replace=st.booleans(),
        shared=st.booleans(),
        style=time_styles,
        same_as=st.none() | st.tuples(st.integers(0, 3), names, names),
        confidence=confidences,
    )
    def upsert_batch(
        self,
        batch: list[tuple[str, str, str, tuple[int, int | None]]],
        replace: bool,
        shared: bool,
        style: str,
        same_as: tuple[int, str, str] | None,
        confidence: float | None,
    ) -> None:
        self._write(batch, replace, shared, style, same_as, confidence)

    @rule(subject=names, predicate=predicates, obj=st.none() | names, at=st.none() | st.sampled_from(INSTANTS))
    def retract(self, subject: str, predicate: str, obj: str | None, at: int | None) -> None:
        with self._step("retract"):
            self._retract(subject, predicate, obj, at)

    def _retract(self, subject: str, predicate: str, obj: str | None, at: int | None) -> None:
        if at is not None:
            ended = self.memory.retract(subject, predicate, obj, at=dt(at))
            assert ended == self.model.retract(subject, predicate, obj, at)
            self.focus = {at}
            return
        # "now" is the store's transaction time: learn it from the records it ended. Every model
        # boundary is either far from today or an earlier "now", so the model's answer is the
        # same at every instant of [before, after].
        before = wall_micros()
        expected = self.model.holding_at(subject, predicate, obj, before)
        ended = self.memory.retract(subject, predicate, obj)
        after = wall_micros()
        assert ended == expected
        self.focus = set()
        if not ended:
            return
        ends = {
            us(f.invalid_at)
            for f in self.memory.facts(include_history=True, include_disputed=True)
            if f.invalid_at is not None and before <= us(f.invalid_at) <= after
        }
        assert len(ends) == 1, f"retract at now ended facts at {ends}, expected one instant in [{before}, {after}]"
        now = ends.pop()
        assert self.model.retract(subject, predicate, obj, now) == expected
        self.nows.append(now)
        self.focus = {now}

    @precondition(lambda self: len(set(self.model.names.values())) >= 2)
    @rule(data=st.data(), same_as=st.booleans())
    def merge(self, data: st.DataObject, same_as: bool) -> None:
        """Merge two entities that exist (what they hold is what merges must get right), by any of their names."""
        entities = sorted(set(self.model.names.values()))
        canonical, other = data.draw(st.permutations(entities).map(lambda e: e[:2]))
        spellings = sorted(k for k, e in self.model.names.items() if e == other and k in {n.casefold() for n in NAMES})
        self.alias(canonical, data.draw(st.sampled_from(spellings or [other.casefold()])), same_as)

    @rule(canonical=names, alias=names, same_as=st.booleans())
    def alias(self, canonical: str, alias: str, same_as: bool) -> None:
        for kind in sorted(self.model.merge_kinds(canonical, alias)):
            event(kind)
            MERGES_SEEN[kind] += 1
        with self._step("upsert" if same_as else "alias") as step:
            if same_as:
                merged = self.memory.upsert(Triple(subject=canonical, predicate="SAME_AS", object=alias)).aliases_merged
            else:
                merged = int(self.memory.alias(canonical, alias).merged)
            assert merged == int(self._merging(step, canonical, alias))
        self.focus = set()
        self._check_names()

    @rule(index=st.integers(0, 30))
    def dispute(self, index: int) -> None:
        """``feedback(fact, "wrong")`` on one of the current believed or disputed intervals."""
        current = sorted(self.memory.facts(include_history=True, include_disputed=True), key=lambda f: store_rows([f]))
        if not current:
            return
        fact = current[index % len(current)]
        with self._step("feedback:wrong") as step:
            judged = self.memory.feedback(fact, "wrong")
            assert (judged.id, judged.status) == (fact.id, "disputed")
            self.model.dispute(*self._span_of(fact))
            (s, p, o), start, end = self._span_of(fact)
            step.judged = (s, p, o, start, end, False)
        self.focus = {t for t in self._span_of(fact)[1:] if t is not None}

    @rule(index=st.integers(0, 30), approve=st.booleans())
    def review(self, index: int, approve: bool) -> None:
        """Approve or reject one of the candidates waiting for review."""
        pending = sorted(self.memory.pending(), key=lambda f: store_rows([f]))
        if not pending:
            return
        fact = pending[index % len(pending)]
        with self._step("approve" if approve else "reject") as step:
            if approve:
                self.memory.approve(fact)
                self.model.approve(*self._span_of(fact))
            else:
                self.memory.reject(fact, "not so")
                self.model.reject(*self._span_of(fact))
                step.reason = "not so"
        self.focus = {t for t in self._span_of(fact)[1:] if t is not None}

    @staticmethod
    def _span_of(fact: Fact) -> tuple[Fact3, int, int | None]:
        return (fact.subject, fact.predicate, fact.object), us(fact.valid_at), (
            None if fact.invalid_at is None else us(fact.invalid_at))

    @rule(name=names)
    def purge(self, name: str) -> None:
        entity = self.model.resolve(name)
        spellings = {key for key, e in self.model.names.items() if e == entity} | {(entity or "").casefold()}
        logged = self._logged()
        with self._step("purge") as step:
            result = self.memory.purge(name)
            assert result.entities == self.model.purge(name)
            step.purged = bool(result.entities)
        if entity is not None:
            self.beliefs.erase(entity)
            # The purged entity appears in no change any more; what the same writes did to others stays.
            left = self._logged()
            assert not any(n.casefold() in spellings for _, _, named in left for n in named)
            kept = [what for what, about, _ in logged if not {n.casefold() for n in about} & spellings]
            assert [what for what, _, _ in left[:-1]] == kept and left[-1][0][1] == "purged", (left, kept)
        self.focus = set()
        self._check_names()

    def _logged(self) -> list[tuple[tuple[Any, ...], set[str], set[str]]]:
        """Every change since the machine began: (its time, kind, fact or merged names), the names it is about
        (its fact's or merge's), and every name it mentions."""
        described: list[tuple[tuple[Any, ...], set[str], set[str]]] = []
        for change in self.memory.changes(dt(self.started), limit=1_000).changes:
            f = change.fact
            about = set(change.entities) | (set() if f is None else {f.subject, f.object})
            named = set(about)
            for other in (change.superseded_by, *change.before):
                if other is not None:
                    named |= {other.subject, other.object}
            what = () if f is None else (f.subject, f.predicate, f.object, f.valid_at, f.invalid_at)
            described.append(((change.at, change.kind, *what, *change.entities), about, named))
        return described

    def _check_names(self) -> None:
        for name in NAMES:
            entity = self.memory.entity(name)
            assert (None if entity is None else entity.name) == self.model.resolve(name), name

    # -- invariants --

    @invariant()
    def intervals_agree(self) -> None:
        every = self.memory.facts(include_history=True, include_candidates=True, include_disputed=True)
        assert store_rows(every) == self.model.history()

    @invariant()
    def record_keys_and_links_agree(self) -> None:
        """Every record's end keys (store format 13: its slot and instants as text) are what its slot and times say,
        expired records too; and each fact's links (what it replaced, what replaced it), which are sought by those
        keys, are the records of its timeline that meet it (the walk of its slot)."""
        if self.runner is None:  # the raw statement runs on a Memory's own backend
            assert wrong_record_keys(self.memory) == []
        every = self.memory.facts(include_history=True, include_candidates=True, include_disputed=True)
        for f in every:
            line = [p for p in every if (p.subject, p.predicate) == (f.subject, f.predicate) and p.object != f.object
                    and (p.status == "candidate") == (f.status == "candidate")]
            links = {"replaces": sorted(p.id for p in line if p.invalid_at == f.valid_at),
                     "replaced_by": sorted(p.id for p in line if p.valid_at == f.invalid_at)}
            assert {"replaces": sorted(x.id for x in f.replaces),
                    "replaced_by": sorted(x.id for x in f.replaced_by)} == links, f

    @invariant()
    def facts_at_instants_agree(self) -> None:
        self.steps += 1
        if self.exhaustive:
            points = {*CHECK_POINTS, *self.nows, *(n - 1 for n in self.nows)}
        else:
            # Where the last step acted (each instant and the microsecond before), two grid points in turn.
            turn = [CHECK_POINTS[(2 * self.steps + i) % len(CHECK_POINTS)] for i in range(2)]
            points = {*turn, *(t - d for t in self.focus for d in (0, 1) if t - d >= INSTANTS[0])}
        for t in sorted(points):
            got = sorted((f.subject, f.predicate, f.object) for f in self.memory.facts(as_of=dt(t)))
            assert got == self.model.at(t), f"as_of={dt(t).isoformat()}"
        now = wall_micros()
        got = sorted((f.subject, f.predicate, f.object) for f in self.memory.facts())
        assert got == self.model.at(now), "as_of=now"


    @invariant()
    def growth_counters_agree(self) -> None:
        """The growth read from the counters the writes keep equals the one that walks every record (what scopes
        of a format before the counters are read with), over the whole span and at and around the latest write."""
        whole = self.memory.growth(steps=9)
        if not whole.points:
            return
        [latest] = self.memory.audit(limit=1)
        tick = timedelta(microseconds=1)
        for span in ({"since": whole.since, "until": whole.until, "steps": 9},
                     {"since": latest.at - tick, "until": latest.at + tick, "steps": 3}):
            counted = self.memory.growth(**span)
            with mock.patch.object(reads, "GROWTH_FORMAT", 10**9):  # read as an older scope: walked
                walked = self.memory.growth(**span)
            assert counted == walked, span

    @invariant()
    def time_questions_agree(self) -> None:
        """Periods (during, throughout) by predicate, object or subject, a diff of two valid times, and a past
        belief (with a period at it) after every step; the period, the names and the belief rotate."""
        turn = len(self.beliefs.snapshots)
        keys = timeref.keys_of(self.model.facts)
        a = CHECK_POINTS[(5 * turn) % len(CHECK_POINTS)]
        later = [t for t in INSTANTS if t > a]
        b = later[turn % len(later)] if later and turn % 4 else None
        period = (dt(a), None if b is None else dt(b))
        asked: dict[str, Any] = [{"predicate": PREDICATES[turn % 3]}, {"object": NAMES[turn % 5]},
                                 {"subject": NAMES[(turn + 2) % 5]}][turn % 3]
        field, name = next(iter(asked.items()))
        position = {"subject": 0, "predicate": 1, "object": 2}[field]
        wanted = self.model.resolve(name) if field != "predicate" else name
        spans = [k for k in timeref.believed(keys) if k[position] == wanted]
        for question, holds in (("during", timeref.during), ("throughout", timeref.throughout)):
            got = sorted(store_spans(self.memory.facts(**asked, **{question: period})), key=span_order)
            assert got == sorted((k for k in spans if holds(k[3], k[4], a, b)), key=span_order), (question, asked)
        top = INSTANTS[-1] if b is None else b
        diff = self.memory.diff(dt(a), dt(top))
        began, ended = timeref.diff(keys, a, top)
        assert (sorted(store_spans(diff.began), key=span_order), sorted(store_spans(diff.ended), key=span_order)) == (
            sorted(began, key=span_order), sorted(ended, key=span_order)), ("diff", a, top)
        if not self.beliefs.snapshots:
            return
        known, then = self.beliefs.snapshots[(7 * turn) % len(self.beliefs.snapshots)]
        every = {"include_candidates": True, "include_disputed": True, "known_at": dt(known)}
        got = sorted(store_spans(self.memory.facts(include_history=True, **every)), key=span_order)
        assert got == timeref.unite(then), ("known_at", known)
        held = timeref.unite(k for k in then if timeref.during(k[3], k[4], a, b))
        got = sorted(store_spans(self.memory.facts(during=period, **every)), key=span_order)
        assert got == held, ("during, known_at", known, period)
        got = sorted(store_spans(self.memory.facts(throughout=period, **every)), key=span_order)
        assert got == [k for k in held if timeref.throughout(k[3], k[4], a, b)], ("throughout, known_at", known, period)


def store_spans(facts: Iterable[Fact]) -> list[timeref.Span5]:
    return [(f.subject, f.predicate, f.object, us(f.valid_at), None if f.invalid_at is None else us(f.invalid_at))
            for f in facts]


def span_order(span: timeref.Span5) -> tuple[Any, ...]:
    return (*span[:4], end_of(span[4]))


STATEFUL_SETTINGS = settings(
    max_examples=int(os.environ.get("SYNAPSE_STATEFUL_EXAMPLES", "40")),  # more for a longer hunt
    stateful_step_count=15,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)


@pytest.mark.parametrize("api", ["sync", "async"])
@pytest.mark.parametrize("backend", ["falkordb", "neo4j"])
def test_memory_follows_the_reference_model(backend: str, api: str, request: pytest.FixtureRequest) -> None:
    if backend == "falkordb":
        location: str = request.getfixturevalue("falkordb_location")
        options: dict[str, Any] = {}
    else:
        neo4j = request.getfixturevalue("neo4j_settings")
        location, options = neo4j["location"], {"auth": neo4j["auth"]}
    runner = None if api == "sync" else request.getfixturevalue("event_loop_thread")
    machine = type(
        f"MemoryMachine_{backend}_{api}",
        (MemoryMachine,),
        {"location": location, "options": options, "exhaustive": backend == "falkordb", "runner": runner},
    )
    MERGES_SEEN.clear()
    run_state_machine_as_test(machine, settings=STATEFUL_SETTINGS)
    seen = ", ".join(f"{kind}: {n}" for kind, n in sorted(MERGES_SEEN.items()))
    print(f"\n[stateful] {backend} {api}, what merges moved (steps, shrinking included): {seen}")


def test_valid_at_defaults_to_now(make_memory: Any) -> None:
    """The one rule the machine cannot model exactly: a write without valid_at starts at the write's time."""
    memory: Memory = make_memory()
    before = wall_micros()
    memory.upsert(Triple(subject="Ann", predicate="LIVES_IN", object="Paris"))
    after = wall_micros()
    (paris,) = memory.history("Ann")
    assert before <= us(paris.valid_at) <= after and paris.invalid_at is None
    memory.upsert(Triple(subject="Ann", predicate="LIVES_IN", object="Rome"))
    history = {f.object: f for f in memory.history("Ann")}
    assert history["Paris"].invalid_at == history["Rome"].valid_at
    assert us(history["Rome"].valid_at) > us(paris.valid_at)
    assert [f.object for f in memory.facts("Ann", "LIVES_IN")] == ["Rome"]
