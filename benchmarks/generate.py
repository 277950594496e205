"""Seeded, realistic write streams and point-in-time questions with their true answers.

The stream imitates what an agent's memory receives over years:

- entities with power-law (Zipf-like) degrees: a few hubs (the user, their employer, a
  home town) and a long tail; subjects and objects are drawn from two differently
  shuffled Zipf rankings, so the biggest subject hub is not the biggest object hub;
- a few hundred predicates with Zipf frequencies, 40 of them registered single-valued
  (``LIVES_IN``, ``WORKS_AT``, ... and generated ``HAS_*_STATUS`` style ones);
- valid times spread over 2012-2025 with same-day collisions minutes apart;
- ~70% new facts, ~20% supersessions (a single-valued predicate changing value for a
  subject, sometimes back to an earlier value) and ~10% repeats (the same fact again,
  later: a confirmation).

Within one (subject, predicate) timeline valid times only move forward, so the oracle
here (:class:`Timelines`) follows the library's documented rules exactly: a supersession
closes the current value at the new ``valid_at`` (half-open intervals), a repeat of a
currently valid fact confirms it, a return to an old value opens a new interval.
Late arrivals (a value older than the known present) are not generated.

Every write carries its effect on the oracle's records (``record`` created or confirmed,
``closes`` the record it ends), which the raw baseline replays without planning.
"""

from __future__ import annotations

import bisect
import itertools
import random
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Literal

from synapse_graph.rules.predicates import DEFAULT_SINGLE_VALUED

Kind = Literal["new", "supersede", "repeat"]
SIZES: dict[str, int] = {"smoke": 3_000, "10k": 10_000, "100k": 100_000, "1m": 1_000_000}
CHECKPOINTS = (1_000, 10_000, 100_000, 1_000_000)
START = datetime(2012, 1, 1, tzinfo=UTC)
END = datetime(2025, 1, 1, tzinfo=UTC)
DEFAULT_SEED = 20_260_101

_FIRST = (
    "Dana Ada Ravi Mei Omar Lena Tariq Ines Kofi Yuki Sven Nadia Pablo Zoe Amir Hana Ivan Lucia Femi Noor "
    "Marta Jonas Aiko Bruno Chen Dmitri Elif Farid Greta Hugo"
).split()
_LAST = (
    "Reyes Okafor Lindqvist Tanaka Haddad Novak Silva Moreau Kowalski Osei Fischer Ibrahim Rossi Park "
    "Almeida Varga Nakamura Petrov Costa Dubois"
).split()
_PLACES = (
    "Paris London Berlin Lagos Osaka Lima Austin Porto Krakow Nairobi Oslo Quito Seoul Tunis Cork Leeds "
    "Bergen Turin Dakar Perth"
).split()
_ORGS = "Acme Globex Initech Umbrella Hooli Vandelay Stark Wayne Tyrell Cyberdyne Soylent Wonka Aperture".split()
_THINGS = (
    "Python Rust Kafka Postgres Redis React Terraform Kubernetes Django Spark Jazz Chess Hiking Sourdough "
    "Cycling Vinyl Sushi Climbing Tango Origami"
).split()
_VERBS = (
    "LIKES USES KNOWS OWNS VISITED MENTIONED PREFERS AVOIDS REVIEWED BUILT FOLLOWS RECOMMENDS STUDIED "
    "FUNDED HOSTED ATTENDED SUPPORTS BLOCKED REQUESTED DEPLOYED"
).split()
_NOUNS = (
    "TOOL LIBRARY SERVICE TOPIC PLACE BOOK TEAM PROJECT FOOD HOBBY EVENT PRODUCT REPO DATASET MODEL"
).split()
# Questions around a change: at the instant (half-open: the new value), just before, after, a month before.
_OFFSETS = (timedelta(0), -timedelta(microseconds=1), timedelta(hours=1), -timedelta(days=30))
_EXTRA_SINGLE = [f"HAS_{n}_STATUS" for n in _NOUNS] + [f"CURRENT_{n}" for n in _NOUNS[:12]]


@dataclass(frozen=True)
class Write:
    """One fact to write, and what it does to the oracle's records."""

    subject: str
    predicate: str
    object: str
    valid_at: datetime
    kind: Kind
    record: str
    """Id of the record this write creates (new, supersede) or confirms (repeat)."""
    closes: str | None = None
    """Id of the record a supersession ends at ``valid_at``."""


@dataclass(frozen=True)
class Question:
    """What held for (subject, predicate) at ``as_of``; ``expected`` are object names."""

    subject: str
    predicate: str
    as_of: datetime
    expected: frozenset[str]
    kind: str


@dataclass
class Checkpoint:
    """Questions asked once the first ``size`` writes are loaded."""

    size: int
    questions: list[Question]
    neighbourhood: list[str]
    records: int
    """Intervals stored after ``size`` writes (history included)."""
    entities: int


@dataclass
class Dataset:
    seed: int
    writes: list[Write]
    single_valued: frozenset[str]
    predicates: list[str]
    checkpoints: list[Checkpoint]
    entities: int

    def counts(self, upto: int | None = None) -> dict[str, int]:
        counts = {"new": 0, "supersede": 0, "repeat": 0}
        for write in self.writes[:upto]:
            counts[write.kind] += 1
        return counts


@dataclass
class _Record:
    id: str
    object: str
    start: datetime
    end: datetime | None = None
    last: datetime = field(default=START)


@dataclass
class _Slot:
    subject: str
    predicate: str
    single: bool
    records: list[_Record] = field(default_factory=list)
    objects: set[str] = field(default_factory=set)
    last: datetime = START

    def open_records(self) -> list[_Record]:
        return [r for r in self.records if r.end is None]

    def at(self, when: datetime) -> frozenset[str]:
        return frozenset(r.object for r in self.records if r.start <= when and (r.end is None or when < r.end))


class Timelines:
    """The oracle: every (subject, predicate) timeline of the stream."""

    def __init__(self) -> None:
        self.slots: dict[tuple[str, str], _Slot] = {}
        self.records = 0
        self.entities: set[str] = set()
        self._ids = itertools.count()

    def new_id(self) -> str:
        return f"r{next(self._ids):08d}"


def _zipf_cum(n: int, exponent: float) -> list[float]:
    return list(itertools.accumulate(1.0 / (rank**exponent) for rank in range(1, n + 1)))


class _Zipf:
    def __init__(self, items: list[str], exponent: float, rng: random.Random) -> None:
        self.items = items
        self._cum = _zipf_cum(len(items), exponent)
        self._rng = rng

    def draw(self) -> str:
        point = self._rng.random() * self._cum[-1]
        return self.items[min(bisect.bisect_left(self._cum, point), len(self.items) - 1)]


def entity_names(count: int, rng: random.Random) -> list[str]:
    """``count`` distinct names: people, places, organisations and things, numbered when reused."""
    pools = (
        [f"{f} {last}" for f in _FIRST for last in _LAST],
        _PLACES,
        [f"{o} {k}" for o in _ORGS for k in ("Corp", "Labs", "Group", "Studio")],
        _THINGS,
    )
    names: list[str] = []
    seen: set[str] = set()
    for index in range(count):
        pool = pools[rng.choices(range(4), weights=(6, 2, 1, 1))[0]]
        base = pool[rng.randrange(len(pool))]
        name = base if base not in seen else f"{base} {index}"
        seen.add(name)
        names.append(name)
    return names


def predicate_names(rng: random.Random) -> tuple[list[str], list[str]]:
    """(multi-valued, single-valued) predicates, each list in Zipf rank order."""
    single = sorted(DEFAULT_SINGLE_VALUED) + _EXTRA_SINGLE
    multi = [f"{v}_{n}" for v in _VERBS for n in _NOUNS]
    rng.shuffle(single)
    rng.shuffle(multi)
    return multi, single


class _Generator:
    def __init__(self, size: int, seed: int) -> None:
        self.rng = random.Random(seed)
        self.size = size
        entity_count = max(200, size // 4)
        names = entity_names(entity_count, self.rng)
        objects = names[:]
        self.rng.shuffle(objects)
        self.subjects = _Zipf(names, 0.9, self.rng)
        self.objects = _Zipf(objects, 0.9, self.rng)
        self.multi, self.single = predicate_names(self.rng)
        self.multi_z = _Zipf(self.multi, 1.0, self.rng)
        self.single_z = _Zipf(self.single, 0.8, self.rng)
        self.oracle = Timelines()
        self.single_slots: list[_Slot] = []
        self.open_pool: list[tuple[_Slot, _Record]] = []
        self.previous = START

    def gap(self) -> timedelta:
        if self.rng.random() < 0.35:  # same day, minutes apart
            return timedelta(minutes=self.rng.randint(1, 240))
        return timedelta(days=1 + self.rng.expovariate(1 / 90), minutes=self.rng.randint(0, 1439))

    def fresh_time(self) -> datetime:
        if self.rng.random() < 0.2:  # a burst: right after the previous write
            return self.previous + timedelta(minutes=self.rng.randint(1, 90))
        span = (END - START).total_seconds()
        return START + timedelta(minutes=int(self.rng.random() * span / 60))

    def slot(self, subject: str, predicate: str, single: bool) -> _Slot:
        key = (subject, predicate)
        found = self.oracle.slots.get(key)
        if found is None:
            found = _Slot(subject, predicate, single)
        return found

    def create(self, slot: _Slot, obj: str, when: datetime, kind: Kind, closes: str | None) -> Write:
        record = _Record(self.oracle.new_id(), obj, when, last=when)
        if not slot.records:
            self.oracle.slots[(slot.subject, slot.predicate)] = slot
            if slot.single:
                self.single_slots.append(slot)
        slot.records.append(record)
        slot.objects.add(obj)
        slot.last = max(slot.last, when)
        self.oracle.records += 1
        self.oracle.entities.update((slot.subject, obj))
        self.open_pool.append((slot, record))
        return Write(slot.subject, slot.predicate, obj, when, kind, record.id, closes)

    def new_fact(self) -> Write:
        for _ in range(20):
            subject = self.subjects.draw()
            if self.rng.random() < 0.25:
                predicate = self.single_z.draw()
                slot = self.slot(subject, predicate, True)
                if slot.records:
                    continue
            else:
                predicate = self.multi_z.draw()
                slot = self.slot(subject, predicate, False)
            obj = self.objects.draw()
            if obj == subject or obj in slot.objects:
                continue
            when = self.fresh_time()
            return self.create(slot, obj, when, "new", None)
        return self.supersede()

    def supersede(self) -> Write:
        slot = self.single_slots[self.rng.randrange(len(self.single_slots))]
        current = slot.open_records()[0]
        earlier = [r.object for r in slot.records if r.object != current.object]
        obj = current.object
        while obj in (current.object, slot.subject):
            obj = self.rng.choice(earlier) if earlier and self.rng.random() < 0.15 else self.objects.draw()
        when = slot.last + self.gap()
        current.end = when
        return self.create(slot, obj, when, "supersede", current.id)

    def repeat(self) -> Write:
        while True:
            slot, record = self.open_pool[self.rng.randrange(len(self.open_pool))]
            if record.end is None:
                break
        when = (max(record.last, slot.last) if slot.single else record.last) + self.gap()
        record.last = when
        slot.last = max(slot.last, when)
        return Write(slot.subject, slot.predicate, record.object, when, "repeat", record.id)

    def write(self) -> Write:
        draw = self.rng.random()
        if draw < 0.2 and self.single_slots:
            chosen = self.supersede()
        elif draw < 0.3 and self.open_pool:
            chosen = self.repeat()
        else:
            chosen = self.new_fact()
        self.previous = chosen.valid_at
        return chosen

    def checkpoint(self, size: int, questions: int, neighbourhoods: int) -> Checkpoint:
        slots = list(self.oracle.slots.values())
        with_history = [s for s in slots if s.single and len(s.records) > 1]
        asked: list[Question] = []
        for _ in range(questions):
            draw = self.rng.random()
            if draw < 0.5 and with_history:
                slot = self.rng.choice(with_history)
                change = self.rng.choice(slot.records[1:]).start
                offset = self.rng.choice(_OFFSETS)
                when, kind = change + offset, "around a change"
            elif draw < 0.9:
                slot = self.rng.choice(slots)
                first = min(r.start for r in slot.records)
                last = slot.last + timedelta(days=365)
                when = first + timedelta(seconds=int(self.rng.random() * (last - first).total_seconds()))
                kind = "within history"
            else:
                slot = self.rng.choice(slots)
                when = min(r.start for r in slot.records) - timedelta(days=self.rng.randint(1, 900))
                kind = "before any value"
            asked.append(Question(slot.subject, slot.predicate, when, slot.at(when), kind))
        known = sorted(self.oracle.entities)
        around = [self.rng.choice(known) for _ in range(neighbourhoods)]
        return Checkpoint(size, asked, around, self.oracle.records, len(self.oracle.entities))


def generate(
    size: int, *, seed: int = DEFAULT_SEED, questions: int = 300, neighbourhoods: int = 60,
    checkpoints: tuple[int, ...] | None = None,
) -> Dataset:
    """A stream of ``size`` writes with questions at each checkpoint (default: 10k, 100k, 1M up to ``size``)."""
    marks = sorted({c for c in (checkpoints or CHECKPOINTS) if c <= size} | {size})
    if checkpoints is None:
        marks = [m for m in marks if m >= 10_000 or m == size]
    generator = _Generator(size, seed)
    writes: list[Write] = []
    done: list[Checkpoint] = []
    for mark in marks:
        while len(writes) < mark:
            writes.append(generator.write())
        done.append(generator.checkpoint(mark, questions, neighbourhoods))
    return Dataset(
        seed=seed,
        writes=writes,
        single_valued=frozenset(generator.single),
        predicates=generator.multi + generator.single,
        checkpoints=done,
        entities=len(generator.oracle.entities),
    )


def entity_key(name: str) -> str:
    """The identity key the raw baseline uses (the generated names are plain ASCII)."""
    return name.casefold()
