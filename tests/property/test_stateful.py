"""A real ``Memory`` against a small reference model, on every backend.

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
* ``purge(entity)``: the entity, its names and every fact touching it are gone.

After every step the store's currently believed intervals (with confirmations)
must equal the model's, and so must the facts valid at a set of instants.
"""

from __future__ import annotations

import logging
import math
import uuid
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, ClassVar

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule, run_state_machine_as_test

from synapse_graph import Fact, Memory, Triple

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

    def holds_at(self, t: int) -> bool:
        return self.start <= t < end_of(self.end)

    def meets(self, start: int, end: int | None) -> bool:
        """Overlaps or touches ``[start, end)``."""
        return self.start <= end_of(end) and start <= end_of(self.end)


Fact3 = tuple[str, str, str]
HistoryRow = tuple[str, str, str, int, int | None, int]


class ReferenceModel:
    """Facts as lists of intervals per (subject, predicate, object); entities by display name."""

    def __init__(self, single_valued: Iterable[str]) -> None:
        self.single_valued = set(single_valued)
        self.names: dict[str, str] = {}  # case-folded name -> entity (its display name)
        self.facts: dict[Fact3, list[Span]] = {}

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

    def write(self, subject: str, predicate: str, obj: str, start: int, end: int | None, replace: bool) -> bool:
        """Apply one write; True if it only confirmed an interval."""
        s = self.resolve(subject, create=True)
        o = self.resolve(obj, create=True)
        assert s is not None and o is not None
        return self._write(s, predicate, o, start, end, replace or predicate in self.single_valued, 1)

    def _write(self, s: str, predicate: str, o: str, start: int, end: int | None, single: bool, weight: int) -> bool:
        if single:
            others = [(f, span) for f, span in self._spans(s, predicate) if f[2] != o]
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
            if span.start <= start and end_of(end) <= end_of(span.end):
                span.confirmations += weight
                return True
        touching = [span for span in spans if span.meets(start, end)]
        top = max([end_of(end), *(end_of(t.end) for t in touching)])
        united = Span(
            start=min([start, *(t.start for t in touching)]),
            end=None if top == math.inf else int(top),
            confirmations=weight + sum(t.confirmations for t in touching),
        )
        spans[:] = [span for span in spans if all(span is not t for t in touching)] + [united]
        return False

    def retract(self, subject: str, predicate: str, obj: str | None, at: int) -> int:
        s = self.resolve(subject)
        o = None if obj is None else self.resolve(obj)
        if s is None or (obj is not None and o is None):
            return 0
        ended = 0
        for fact, span in self._spans(s, predicate):
            if (o is None or fact[2] == o) and span.holds_at(at):
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
        return sum(1 for f, span in self._spans(s, predicate) if (o is None or f[2] == o) and span.holds_at(at))

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
            self._write(s, p, o, span.start, span.end, p in self.single_valued, span.confirmations)
        self.facts = {f: spans for f, spans in self.facts.items() if spans}
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
        self.names = {k: e for k, e in self.names.items() if e != entity}
        return 1

    # views compared with the store

    def history(self, subject: str | None = None) -> list[HistoryRow]:
        rows = [
            (s, p, o, span.start, span.end, span.confirmations)
            for (s, p, o), spans in self.facts.items()
            if subject is None or s == subject
            for span in spans
        ]
        return sorted(rows, key=_row_key)

    def at(self, t: int) -> list[Fact3]:
        return sorted(f for f, spans in self.facts.items() for span in spans if span.holds_at(t))


def _row_key(row: HistoryRow) -> tuple[Any, ...]:
    s, p, o, start, end, confirmations = row
    return (s, p, o, start, end_of(end), confirmations)


def store_rows(facts: list[Fact]) -> list[HistoryRow]:
    rows = [
        (
            f.subject,
            f.predicate,
            f.object,
            us(f.valid_at),
            None if f.invalid_at is None else us(f.invalid_at),
            f.confirmations,
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
time_styles = st.sampled_from(["datetime", "iso"])


def encode(micros: int, style: str) -> datetime | str:
    return dt(micros) if style == "datetime" else dt(micros).isoformat()


# -- the machine -----------------------------------------------------------------------------------


class MemoryMachine(RuleBasedStateMachine):
    """One fresh scope per example; ``location``/``options`` are set per backend."""

    location: ClassVar[str]
    options: ClassVar[dict[str, Any]]
    exhaustive: ClassVar[bool]  # check every point of CHECK_POINTS after every step (cheap backends)

    def __init__(self) -> None:
        super().__init__()
        self.memory = Memory(self.location, scope=f"sm-{uuid.uuid4().hex[:16]}", **self.options)
        self.memory.set_rules(single_valued=self.memory.rules.single_valued | {"HAS_MANAGER"})
        self.model = ReferenceModel(SINGLE_VALUED)
        self.nows: list[int] = []  # instants the store used for retract(at=now)
        self.focus: set[int] = set()  # instants the last step touched
        self.steps = 0

    def teardown(self) -> None:
        try:
            self.memory.purge(scope=self.memory.scope)
        finally:
            self.memory.close()

    # -- rules --

    def _write(
        self,
        batch: list[tuple[str, str, str, tuple[int, int | None]]],
        replace: bool,
        shared: bool,
        style: str,
        same_as: tuple[int, str, str] | None = None,
    ) -> None:
        kwargs: dict[str, Any] = {}
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
            )
            for s, p, o, (start, end) in batch
        ]
        merged = 0
        if same_as is not None:
            # An alias anywhere in the batch is recorded before the batch's facts are written.
            position, canonical, alias = same_as
            triples.insert(position % (len(triples) + 1), Triple(subject=canonical, predicate="SAME_AS", object=alias))
            merged = int(self.model.alias(canonical, alias))
        result = self.memory.upsert(triples if len(triples) > 1 else triples[0], replace=replace, **kwargs)
        self.model.introduce(name for s, _, o, _ in batch for name in (s, o))
        confirmed = sum(self.model.write(s, p, o, start, end, replace) for s, p, o, (start, end) in batch)
        assert (result.confirmed, result.created, result.aliases_merged) == (
            confirmed,
            len(batch) - confirmed,
            merged,
        ), result
        self.focus = {t for _, _, _, (start, end) in batch for t in (start, end) if t is not None}
        subject_name, _, object_name, (start, _) = batch[0]
        subject, obj = self.model.resolve(subject_name), self.model.resolve(object_name)
        assert store_rows(self.memory.history(subject_name)) == self.model.history(subject)
        by_object = self.memory.facts(object=object_name, as_of=dt(start))
        assert sorted((f.subject, f.predicate, f.object) for f in by_object) == [
            f for f in self.model.at(start) if f[2] == obj
        ]
        if same_as is not None:
            self._check_names()

    @rule(write=writes, replace=st.booleans(), shared=st.booleans(), style=time_styles)
    def upsert(
        self, write: tuple[str, str, str, tuple[int, int | None]], replace: bool, shared: bool, style: str
    ) -> None:
        self._write([write], replace, shared, style)

    @rule(
        batch=st.lists(writes, min_size=2, max_size=3),
        replace=st.booleans(),
        shared=st.booleans(),
        style=time_styles,
        same_as=st.none() | st.tuples(st.integers(0, 3), names, names),
    )
    def upsert_batch(
        self,
        batch: list[tuple[str, str, str, tuple[int, int | None]]],
        replace: bool,
        shared: bool,
        style: str,
        same_as: tuple[int, str, str] | None,
    ) -> None:
        self._write(batch, replace, shared, style, same_as)

    @rule(subject=names, predicate=predicates, obj=st.none() | names, at=st.none() | st.sampled_from(INSTANTS))
    def retract(self, subject: str, predicate: str, obj: str | None, at: int | None) -> None:
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
            for f in self.memory.facts(include_history=True)
            if f.invalid_at is not None and before <= us(f.invalid_at) <= after
        }
        assert len(ends) == 1, f"retract at now ended facts at {ends}, expected one instant in [{before}, {after}]"
        now = ends.pop()
        assert self.model.retract(subject, predicate, obj, now) == expected
        self.nows.append(now)
        self.focus = {now}

    @rule(canonical=names, alias=names, same_as=st.booleans())
    def alias(self, canonical: str, alias: str, same_as: bool) -> None:
        if same_as:
            merged = self.memory.upsert(Triple(subject=canonical, predicate="SAME_AS", object=alias)).aliases_merged
        else:
            merged = int(self.memory.alias(canonical, alias))
        assert merged == int(self.model.alias(canonical, alias))
        self.focus = set()
        self._check_names()

    @rule(name=names)
    def purge(self, name: str) -> None:
        result = self.memory.purge(name)
        assert result.entities == self.model.purge(name)
        self.focus = set()
        self._check_names()

    def _check_names(self) -> None:
        for name in NAMES:
            entity = self.memory.entity(name)
            assert (None if entity is None else entity.name) == self.model.resolve(name), name

    # -- invariants --

    @invariant()
    def intervals_agree(self) -> None:
        assert store_rows(self.memory.facts(include_history=True)) == self.model.history()

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


STATEFUL_SETTINGS = settings(
    max_examples=40,
    stateful_step_count=15,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)


@pytest.mark.parametrize("backend", ["falkordb", "neo4j"])
def test_memory_follows_the_reference_model(backend: str, request: pytest.FixtureRequest) -> None:
    if backend == "falkordb":
        location: str = request.getfixturevalue("falkordb_location")
        options: dict[str, Any] = {}
    else:
        neo4j = request.getfixturevalue("neo4j_settings")
        location, options = neo4j["location"], {"auth": neo4j["auth"]}
    machine = type(
        f"MemoryMachine_{backend}",
        (MemoryMachine,),
        {"location": location, "options": options, "exhaustive": backend == "falkordb"},
    )
    run_state_machine_as_test(machine, settings=STATEFUL_SETTINGS)


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
