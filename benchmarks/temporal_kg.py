"""Correctness and load speed of synapse-graph on real temporal knowledge graphs.

Loads WIKIDATA12k and YAGO11k (HyTE, EMNLP 2018; see ``SOURCE.txt`` next to the data)
through the public API, asks thousands of point-in-time questions with
``Memory.facts(subject, predicate, as_of=...)`` and compares every answer with an
independent oracle computed from the files alone.

Run: ``python -m benchmarks.temporal_kg --dataset all --backend all [--questions 3000]``.
The data folder is ``$SYNAPSE_TEMPORAL_KG_DATA`` or ``benchmarks/data/temporal-kg`` of the repository.

Line format: ``head_id<TAB>rel_id<TAB>tail_id<TAB>start<TAB>end``, dates ``YYYY-MM-DD``
with ``#`` for unknown digits. train/valid/test are cuts of one set: all three are loaded.

Interval rule (the loader and the oracle share it: :func:`fact_interval`)
---------------------------------------------------------------------------
1. A date denotes a *period* at its precision, half-open and in UTC: ``2005-##-##`` is
   [2005-01-01, 2006-01-01), ``2005-03-##`` is [2005-03-01, 2005-04-01) and
   ``2005-03-07`` is [2005-03-07, 2005-03-08). A year of fewer than four digits is a
   plain year (``97-##-##`` is AD 97).
2. A fact holds from the first instant of its start period to the end of its end
   period: ``[start.begin, end.end)``. End dates are inclusive ("played 2006-2007" holds
   all through 2007, as HyTE reads them: a fact is valid in every year from start to
   end). So an event-like fact (start == end) holds for exactly one period: one year,
   month or day.
3. Unknown start (year ``####``): the line is rejected (``unknown start``) - nothing
   says when the fact began, and a stored fact needs a ``valid_at``.
4. Unknown end (``####-##-##``): ``####`` means unknown, not "still true". Default
   policy ``open``: the fact is stored without ``invalid_at``, which is the memory's way
   to say "no end is known" (a fact holds until something ends it); the oracle answers
   every instant from the start on. Policy ``start-period`` (``--unknown-end``) is the
   conservative reading: the fact holds during its start period only.
5. Rejected with a reason (counted, never raised), first applicable reason only, in
   this order: ``malformed line`` (not five tab-separated fields), ``unknown id``
   (entity or relation id missing from the id files), then for start and end dates
   ``BCE year`` (``-405-##-##``), ``imprecise year`` (unknown digits inside the year:
   decade/century patterns ``19##``, ``195#``), ``malformed date`` (``307-13047-09``,
   ``1963-64-65``, a day without a month, an impossible calendar day, a partly known
   month or day), ``year out of range`` (0, or 9999 and later, whose period would end
   after the last storable instant), then ``unknown start``, ``end before start`` (the
   end period ends at or before the start period begins), then ``name too long``.
6. Facts with the same (subject, predicate, object) whose intervals overlap or touch
   are one fact over the union of the intervals (the library merges them; the oracle
   computes the same union). No predicate is single-valued: the memory is opened with
   ``single_valued=[]``, since every interval here is explicit and several values can
   hold at once (two teams in one year).

Names
-----
Entity names come from ``entity2id.txt`` (WIKIDATA12k has no labels: its names are
Q-ids). YAGO names lose their ``<>``, ``\\uXXXX`` escapes are decoded, ``_`` becomes a
space, then NFC and whitespace collapsed (the library's display form). Names are unique
per id: ids whose names share the library's entity key (case-folded NFC), or whose name
the library reads as the user (``me``, ``I``, ``user``, ``myself``), get ``" (#<id>)"``
appended, ``<id>`` being the numeric id of ``entity2id.txt``. Names over 120 characters
are not shortened: their facts are rejected (``name too long``).

Predicates come from the relation labels (WIKIDATA12k: ``relation2id_with_labels.txt``,
``P54 member of sports team`` -> ``MEMBER_OF_SPORTS_TEAM``) or the YAGO relation names
(``<playsFor>`` -> ``PLAYS_FOR``): ASCII-folded, camelCase split, every run of other
characters becomes ``_``, upper-cased; a leading digit gets ``REL_``; over 64 characters
they are cut at the last ``_`` that fits; the reserved ``SAME_AS`` becomes
``SAME_AS_RELATION``; two relations with one predicate get ``_<relation id>`` appended.
"""

from __future__ import annotations

import argparse
import calendar
import itertools
import json
import logging
import os
import random
import re
import sys
import tempfile
import time
import unicodedata
import uuid
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from enum import StrEnum
from pathlib import Path
from typing import Any, Literal

from benchmarks.targets import neo4j_settings
from synapse_graph import Memory, SynapseError, Triple

DATA_ROOT = Path(os.environ.get("SYNAPSE_TEMPORAL_KG_DATA") or Path(__file__).resolve().parent / "data" / "temporal-kg")
"""The data sets, kept in the repository (2.8 MB; licences and origin in ``data/temporal-kg/SOURCE.txt``)."""
DATASETS = ("wikidata12k", "yago11k")
SPLITS = ("train.txt", "valid.txt", "test.txt")
REPO_ROOT = Path(__file__).resolve().parent.parent

MAX_NAME_LENGTH = 120
MAX_PREDICATE_LENGTH = 64
LAST_YEAR = 9998
USER_WORDS = frozenset({"me", "i", "user", "myself"})
RESERVED_PREDICATES = frozenset({"SAME_AS"})
MICROSECOND = timedelta(microseconds=1)
LAST_INSTANT = datetime(9999, 12, 31, 23, 59, 59, 999999, tzinfo=UTC)
DEFAULT_SEED = 20_240_601
MAX_MISMATCHES = 20

UnknownEnd = Literal["open", "start-period"]
Span = tuple[datetime, datetime | None]
"""A half-open validity interval ``[start, end)``; ``end=None`` is open."""


class Reject(StrEnum):
    """Why a line was not loaded."""

    MALFORMED_LINE = "malformed line"
    UNKNOWN_ID = "unknown id"
    BCE_YEAR = "BCE year"
    IMPRECISE_YEAR = "imprecise year"
    MALFORMED_DATE = "malformed date"
    YEAR_OUT_OF_RANGE = "year out of range"
    UNKNOWN_START = "unknown start"
    END_BEFORE_START = "end before start"
    NAME_TOO_LONG = "name too long"


class Rejected(ValueError):
    """A line, date or name the rules refuse, with the reason it is counted under."""

    def __init__(self, reason: Reject, detail: str) -> None:
        super().__init__(f"{reason}: {detail}")
        self.reason = reason


# -- dates and intervals -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Period:
    """The half-open period ``[begin, end)`` a dataset date stands for."""

    begin: datetime
    end: datetime


_DATE = re.compile(r"(?P<sign>-?)(?P<year>[0-9#]+)-(?P<month>[0-9#]{2})-(?P<day>[0-9#]{2})")


def parse_period(text: str) -> Period | None:
    """The period of a dataset date, or None if its year is unknown (``####``).

    Raises :class:`Rejected` for BCE years, imprecise years, malformed dates and years
    outside 1..9998.
    """
    match = _DATE.fullmatch(text.strip())
    if match is None:
        raise Rejected(Reject.MALFORMED_DATE, repr(text))
    year_text, month_text, day_text = match["year"], match["month"], match["day"]
    if set(year_text) == {"#"}:
        return None
    if match["sign"]:
        raise Rejected(Reject.BCE_YEAR, repr(text))
    if "#" in year_text:
        raise Rejected(Reject.IMPRECISE_YEAR, repr(text))
    year = int(year_text)
    if not 1 <= year <= LAST_YEAR:
        raise Rejected(Reject.YEAR_OUT_OF_RANGE, repr(text))
    if month_text == "##":
        if day_text != "##":
            raise Rejected(Reject.MALFORMED_DATE, f"{text!r} has a day but no month")
        return Period(_utc(year, 1, 1), _utc(year + 1, 1, 1))
    month = _number(month_text, 12, text)
    if day_text == "##":
        return Period(_utc(year, month, 1), _next_month(year, month))
    day = _number(day_text, calendar.monthrange(year, month)[1], text)
    begin = _utc(year, month, day)
    return Period(begin, begin + timedelta(days=1))


def _number(digits: str, highest: int, text: str) -> int:
    if not digits.isdigit() or not 1 <= int(digits) <= highest:
        raise Rejected(Reject.MALFORMED_DATE, repr(text))
    return int(digits)


def _utc(year: int, month: int, day: int) -> datetime:
    return datetime(year, month, day, tzinfo=UTC)


def _next_month(year: int, month: int) -> datetime:
    return _utc(year + 1, 1, 1) if month == 12 else _utc(year, month + 1, 1)


def fact_interval(start: str, end: str, unknown_end: UnknownEnd = "open") -> Span:
    """The validity ``[valid_at, invalid_at)`` of a line's start and end dates (module rules 1-5)."""
    start_period = parse_period(start)
    end_period = parse_period(end)
    if start_period is None:
        raise Rejected(Reject.UNKNOWN_START, f"start {start!r}")
    if end_period is None:
        return (start_period.begin, None if unknown_end == "open" else start_period.end)
    if end_period.end <= start_period.begin:
        raise Rejected(Reject.END_BEFORE_START, f"{start!r} .. {end!r}")
    return (start_period.begin, end_period.end)


def holds(span: Span, instant: datetime) -> bool:
    """Half-open membership: ``start <= instant < end`` (an open end never comes)."""
    start, end = span
    return start <= instant and (end is None or instant < end)


def merge_spans(spans: Iterable[Span]) -> list[Span]:
    """The union of intervals as disjoint, non-touching intervals, oldest first."""
    merged: list[Span] = []
    for start, end in sorted(spans, key=lambda span: span[0]):
        if merged and _reaches(merged[-1][1], start):
            last_start, last_end = merged[-1]
            merged[-1] = (last_start, None if end is None or last_end is None else max(last_end, end))
        else:
            merged.append((start, end))
    return merged


def _reaches(end: datetime | None, start: datetime) -> bool:
    return end is None or start <= end


# -- names and predicates ------------------------------------------------------------------------------

_ESCAPE = re.compile(r"\\u([0-9a-fA-F]{4})")
_WHITESPACE = re.compile(r"\s+")
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_NOT_WORD = re.compile(r"[^A-Za-z0-9]+")


def entity_name(raw: str) -> str:
    """Display name of a dataset entity: ``<Don_\\u0022Red\\u0022_Barry>`` -> ``Don "Red" Barry``."""
    name = raw[1:-1] if len(raw) >= 2 and raw.startswith("<") and raw.endswith(">") else raw
    name = _ESCAPE.sub(lambda match: chr(int(match[1], 16)), name)
    name = name.encode("utf-16", "surrogatepass").decode("utf-16", "replace")  # joins escaped surrogate pairs
    name = unicodedata.normalize("NFC", name.replace("_", " "))
    return _WHITESPACE.sub(" ", name).strip()


def name_key(name: str) -> str:
    """The identity of a name in the memory (README: case-folded NFC), and the user's words."""
    key = unicodedata.normalize("NFC", name.casefold())
    return "\x00user" if key in USER_WORDS else key


def unique_names(names: Mapping[str, str]) -> dict[str, str]:
    """Id -> name with no two ids sharing a name key; colliding names get ``" (#<id>)"``."""
    result = dict(names)
    while True:
        groups: dict[str, list[str]] = {}
        for entity_id, name in result.items():
            groups.setdefault(name_key(name), []).append(entity_id)
        clashing = [entity_id for key, ids in groups.items() if len(ids) > 1 or key == "\x00user" for entity_id in ids]
        if not clashing:
            return result
        for entity_id in clashing:
            result[entity_id] = f"{result[entity_id]} (#{entity_id})"


def predicate_name(label: str) -> str:
    """UPPER_SNAKE_CASE of a relation label: ``member of sports team`` -> ``MEMBER_OF_SPORTS_TEAM``."""
    text = label[1:-1] if len(label) >= 2 and label.startswith("<") and label.endswith(">") else label
    text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    words = _NOT_WORD.sub("_", _CAMEL.sub("_", text)).strip("_").upper()
    if not words:
        words = "RELATION"
    if words[0].isdigit():
        words = f"REL_{words}"
    if len(words) > MAX_PREDICATE_LENGTH:
        cut = words.rfind("_", 0, MAX_PREDICATE_LENGTH + 1)
        words = words[: cut if cut > 0 else MAX_PREDICATE_LENGTH].rstrip("_")
    return f"{words}_RELATION" if words in RESERVED_PREDICATES else words


def unique_predicates(labels: Mapping[str, str]) -> dict[str, str]:
    """Relation id -> predicate; relations sharing a predicate get ``_<relation id>`` appended."""
    names = {rel_id: predicate_name(label) for rel_id, label in labels.items()}
    counts = Counter(names.values())
    result: dict[str, str] = {}
    for rel_id, name in names.items():
        if counts[name] > 1:
            suffix = "_" + predicate_name(rel_id)
            name = name[: MAX_PREDICATE_LENGTH - len(suffix)].rstrip("_") + suffix
        result[rel_id] = name
    return result


# -- loading the files ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class DatedFact:
    """One loadable line: names, predicate and validity ``[valid_at, invalid_at)``."""

    subject: str
    predicate: str
    object: str
    valid_at: datetime
    invalid_at: datetime | None
    origin: str
    """``file:line`` it came from."""


@dataclass
class Dataset:
    """The facts of a data set that the rules accept, and what they refused."""

    name: str
    facts: list[DatedFact]
    lines: int
    rejected: Counter[str] = field(default_factory=Counter)
    rejected_examples: dict[str, list[str]] = field(default_factory=dict)
    unknown_end: UnknownEnd = "open"

    def reject(self, reason: Reject, origin: str, detail: str) -> None:
        self.rejected[reason.value] += 1
        examples = self.rejected_examples.setdefault(reason.value, [])
        if len(examples) < 3:
            examples.append(f"{origin}: {detail}")


def read_entities(folder: Path) -> dict[str, str]:
    """Numeric entity id -> unique display name, from ``entity2id.txt`` (extra columns ignored)."""
    raw: dict[str, str] = {}
    for line in _lines(folder / "entity2id.txt"):
        fields = line.split("\t")
        if len(fields) >= 2:
            raw[fields[1].strip()] = entity_name(fields[0])
    return unique_names(raw)


def read_predicates(folder: Path) -> dict[str, str]:
    """Numeric relation id -> predicate, from labels if the data set has them."""
    labelled = folder / "relation2id_with_labels.txt"
    labels: dict[str, str] = {}
    for line in _lines(labelled if labelled.exists() else folder / "relation2id.txt"):
        fields = line.split("\t")
        if len(fields) >= 2:
            labels[fields[1].strip()] = fields[2].strip() if len(fields) >= 3 else fields[0].strip()
    return unique_predicates(labels)


def _lines(path: Path) -> Iterator[str]:
    with path.open(encoding="utf-8") as handle:
        for line in handle:
            line = line.rstrip("\r\n")
            if line.strip():
                yield line


def load_dataset(name: str, root: Path = DATA_ROOT, *, unknown_end: UnknownEnd = "open") -> Dataset:
    """Every line of train, valid and test, turned into facts by the module's rules."""
    folder = root / name
    entities = read_entities(folder)
    predicates = read_predicates(folder)
    dataset = Dataset(name=name, facts=[], lines=0, unknown_end=unknown_end)
    for split in SPLITS:
        for number, line in enumerate(_lines(folder / split), start=1):
            dataset.lines += 1
            origin = f"{split}:{number}"
            try:
                dataset.facts.append(parse_line(line, entities, predicates, origin, unknown_end))
            except Rejected as rejected:
                dataset.reject(rejected.reason, origin, str(rejected))
    return dataset


def parse_line(
    line: str, entities: Mapping[str, str], predicates: Mapping[str, str], origin: str, unknown_end: UnknownEnd
) -> DatedFact:
    """One data line as a fact, or :class:`Rejected`."""
    fields = line.split("\t")
    if len(fields) != 5:
        raise Rejected(Reject.MALFORMED_LINE, f"{len(fields)} fields in {line[:80]!r}")
    head, relation, tail, start, end = (value.strip() for value in fields)
    if head not in entities or tail not in entities or relation not in predicates:
        raise Rejected(Reject.UNKNOWN_ID, f"{head} {relation} {tail}")
    valid_at, invalid_at = fact_interval(start, end, unknown_end)
    subject, obj = entities[head], entities[tail]
    for name in (subject, obj):
        if len(name) > MAX_NAME_LENGTH:
            raise Rejected(Reject.NAME_TOO_LONG, f"{len(name)} characters: {name[:40]!r}...")
    return DatedFact(subject, predicates[relation], obj, valid_at, invalid_at, origin)


def subset(dataset: Dataset, every: int) -> Dataset:
    """A deterministic share of a data set: all facts of every ``every``-th subject (sorted by name).

    Whole subjects are kept so that their timelines (and the merges in them) stay complete.
    Rejection counts are those of the whole data set.
    """
    subjects = sorted({fact.subject for fact in dataset.facts})
    kept = set(subjects[::every])
    return replace(
        dataset, name=f"{dataset.name}/{every}", facts=[fact for fact in dataset.facts if fact.subject in kept]
    )


# -- the oracle ---------------------------------------------------------------------------------------------


class Oracle:
    """Answers from the files alone: per (subject, predicate), each object's merged intervals."""

    def __init__(self, facts: Iterable[DatedFact]) -> None:
        raw: dict[tuple[str, str], dict[str, list[Span]]] = {}
        for fact in facts:
            raw.setdefault((fact.subject, fact.predicate), {}).setdefault(fact.object, []).append(
                (fact.valid_at, fact.invalid_at)
            )
        self.timelines: dict[tuple[str, str], dict[str, list[Span]]] = {
            pair: {obj: merge_spans(spans) for obj, spans in objects.items()} for pair, objects in raw.items()
        }

    def answer(self, subject: str, predicate: str, instant: datetime) -> set[str]:
        """The objects of (subject, predicate) that hold at ``instant``."""
        objects = self.timelines.get((subject, predicate), {})
        return {obj for obj, spans in objects.items() if any(holds(span, instant) for span in spans)}

    def history(self, subject: str, predicate: str) -> list[tuple[str, datetime, datetime | None]]:
        """Every merged interval of (subject, predicate), sorted."""
        objects = self.timelines.get((subject, predicate), {})
        return sorted(((obj, start, end) for obj, spans in objects.items() for start, end in spans), key=_span_order)

    def record_count(self) -> int:
        return sum(len(spans) for objects in self.timelines.values() for spans in objects.values())


def _span_order(item: tuple[str, datetime, datetime | None]) -> tuple[str, datetime, datetime]:
    obj, start, end = item
    return (obj, start, LAST_INSTANT if end is None else end)


# -- questions --------------------------------------------------------------------------------------------

KINDS = ("inside", "at_start", "at_end", "before_start", "gap")
"""``at_end`` asks at a merged interval's end (half-open: it must be excluded unless another
object holds then); ``before_start`` one microsecond before a start; ``gap`` inside a stretch
where the object (or nothing of the pair) holds."""


@dataclass(frozen=True)
class Question:
    subject: str
    predicate: str
    as_of: datetime
    kind: str


@dataclass(frozen=True)
class _Slot:
    """A stretch of one pair's timeline to ask about: ``[start, end)``, open if ``end`` is None."""

    subject: str
    predicate: str
    start: datetime
    end: datetime | None


def make_questions(oracle: Oracle, count: int, seed: int = DEFAULT_SEED) -> list[Question]:
    """``count`` point-in-time questions, the kinds of :data:`KINDS` in turn (seeded, deterministic)."""
    rng = random.Random(seed)
    spans = [
        _Slot(subject, predicate, start, end)
        for (subject, predicate), objects in oracle.timelines.items()
        for obj_spans in objects.values()
        for start, end in obj_spans
    ]
    pools: dict[str, list[_Slot]] = {
        "inside": spans,
        "at_start": spans,
        "at_end": [slot for slot in spans if slot.end is not None],
        "before_start": [slot for slot in spans if slot.start > datetime.min.replace(tzinfo=UTC)],
        "gap": _gaps(oracle),
    }
    questions: list[Question] = []
    for index in range(count):
        kind = KINDS[index % len(KINDS)]
        if not pools[kind]:
            kind = "inside"
        slot = rng.choice(pools[kind])
        questions.append(Question(slot.subject, slot.predicate, _instant(kind, slot, rng), kind))
    return questions


def _instant(kind: str, slot: _Slot, rng: random.Random) -> datetime:
    if kind == "at_start":
        return slot.start
    if kind == "at_end" and slot.end is not None:
        return slot.end
    if kind == "before_start":
        return slot.start - MICROSECOND
    return _random_instant(slot.start, slot.end, rng)


def _random_instant(start: datetime, end: datetime | None, rng: random.Random) -> datetime:
    """Uniform in ``[start, end)``; an open stretch is sampled over its next 100 years."""
    stop = min(LAST_INSTANT, start + timedelta(days=36_525)) if end is None else end
    micros = (stop - start) // MICROSECOND
    return start + timedelta(microseconds=rng.randrange(max(1, micros)))


def _gaps(oracle: Oracle) -> list[_Slot]:
    """Stretches between an object's merged intervals, and between a pair's busy stretches."""
    gaps: list[_Slot] = []
    for (subject, predicate), objects in oracle.timelines.items():
        busy = merge_spans(span for spans in objects.values() for span in spans)
        for timeline in [*objects.values(), busy]:
            for (_, end), (next_start, _) in itertools.pairwise(timeline):
                if end is not None:
                    gaps.append(_Slot(subject, predicate, end, next_start))
    return gaps


# -- running against a memory -------------------------------------------------------------------------------


@dataclass
class Outcome:
    """Answers compared with the oracle."""

    asked: int = 0
    exact: int = 0
    seconds: float = 0.0
    by_kind: dict[str, list[int]] = field(default_factory=dict)
    mismatches: list[dict[str, Any]] = field(default_factory=list)

    def count(self, kind: str, exact: bool) -> None:
        self.asked += 1
        self.exact += exact
        tally = self.by_kind.setdefault(kind, [0, 0])
        tally[0] += 1
        tally[1] += exact


def to_triple(fact: DatedFact) -> Triple:
    return Triple(
        subject=fact.subject,
        predicate=fact.predicate,
        object=fact.object,
        valid_at=fact.valid_at,
        invalid_at=fact.invalid_at,
    )


def load_facts(memory: Memory, facts: Sequence[DatedFact], batch_size: int) -> tuple[float, list[str]]:
    """Upsert every fact in batches; returns the seconds taken and the errors of failed batches."""
    errors: list[str] = []
    began = time.perf_counter()
    for first in range(0, len(facts), batch_size):
        batch = facts[first : first + batch_size]
        try:
            memory.upsert([to_triple(fact) for fact in batch], source="temporal-kg benchmark")
        except SynapseError as error:
            errors.append(f"batch {batch[0].origin}..{batch[-1].origin}: {type(error).__name__}: {error}")
    return time.perf_counter() - began, errors


def ask(memory: Memory, oracle: Oracle, questions: Iterable[Question]) -> Outcome:
    """Ask each question through ``Memory.facts`` and compare with the oracle."""
    outcome = Outcome()
    began = time.perf_counter()
    for question in questions:
        got = [fact.object for fact in memory.facts(question.subject, question.predicate, as_of=question.as_of)]
        expected = oracle.answer(question.subject, question.predicate, question.as_of)
        exact = len(got) == len(set(got)) and set(got) == expected
        outcome.count(question.kind, exact)
        if not exact and len(outcome.mismatches) < MAX_MISMATCHES:
            outcome.mismatches.append(
                {
                    "subject": question.subject,
                    "predicate": question.predicate,
                    "as_of": question.as_of.isoformat(),
                    "kind": question.kind,
                    "expected": sorted(expected),
                    "got": sorted(got),
                }
            )
    outcome.seconds = time.perf_counter() - began
    return outcome


def check_histories(memory: Memory, oracle: Oracle, pairs: int, seed: int = DEFAULT_SEED) -> Outcome:
    """Compare ``Memory.history`` with the oracle's merged intervals for a sample of pairs."""
    rng = random.Random(seed + 1)
    keys = list(oracle.timelines)
    outcome = Outcome()
    for subject, predicate in rng.sample(keys, min(pairs, len(keys))):
        stored = memory.history(subject, predicate)
        got = sorted(((f.object, f.valid_at, f.invalid_at) for f in stored), key=_span_order)
        expected = oracle.history(subject, predicate)
        outcome.count("history", got == expected)
        if got != expected and len(outcome.mismatches) < MAX_MISMATCHES:
            outcome.mismatches.append(
                {"subject": subject, "predicate": predicate, "expected": _show(expected), "got": _show(got)}
            )
    return outcome


def _show(spans: Iterable[tuple[str, datetime, datetime | None]]) -> list[str]:
    return [f"{obj} [{start.isoformat()}, {'open' if end is None else end.isoformat()})" for obj, start, end in spans]


def evaluate(
    memory: Memory,
    dataset: Dataset,
    *,
    questions: int = 3000,
    batch_size: int = 1000,
    history_pairs: int = 200,
    seed: int = DEFAULT_SEED,
) -> dict[str, Any]:
    """Load a data set into an (empty, ``single_valued=[]``) memory, ask, and compare with the oracle."""
    oracle = Oracle(dataset.facts)
    asked = make_questions(oracle, questions, seed)
    load_seconds, load_errors = load_facts(memory, dataset.facts, batch_size)
    answers = ask(memory, oracle, asked)
    histories = check_histories(memory, oracle, history_pairs, seed)
    stats = memory.stats()
    return {
        "dataset": dataset.name,
        "backend": memory.backend.dialect,
        "unknown_end": dataset.unknown_end,
        "lines": dataset.lines,
        "loaded": len(dataset.facts),
        "rejected": dict(sorted(dataset.rejected.items())),
        "rejected_examples": dataset.rejected_examples,
        "load_errors": load_errors,
        "load_seconds": round(load_seconds, 3),
        "facts_per_second": round(len(dataset.facts) / load_seconds, 1) if load_seconds else None,
        "records_expected": oracle.record_count(),
        "records_stored": stats.facts,
        "entities_stored": stats.entities,
        "questions": answers.asked,
        "exact": answers.exact,
        "share_exact": answers.exact / answers.asked if answers.asked else 1.0,
        "questions_per_second": round(answers.asked / answers.seconds, 1) if answers.seconds else None,
        "by_kind": {kind: {"asked": n, "exact": ok} for kind, (n, ok) in sorted(answers.by_kind.items())},
        "mismatches": answers.mismatches,
        "histories": histories.asked,
        "histories_exact": histories.exact,
        "history_mismatches": histories.mismatches,
    }


def memory_options(dataset: Dataset) -> dict[str, Any]:
    """Options for a Memory that can hold the whole data set: no single-valued predicates, raised quotas."""
    names = {fact.subject for fact in dataset.facts} | {fact.object for fact in dataset.facts}
    return {"single_valued": [], "max_facts": len(dataset.facts) + 100, "max_entities": len(names) + 100}


def run(
    dataset: str | Dataset,
    location: str,
    *,
    auth: tuple[str, str] | None = None,
    questions: int = 3000,
    batch_size: int = 1000,
    unknown_end: UnknownEnd = "open",
    history_pairs: int = 200,
    seed: int = DEFAULT_SEED,
    scope: str | None = None,
    keep: bool = False,
) -> dict[str, Any]:
    """Load a data set (all three splits) into a fresh scope at ``location``, ask, compare, report.

    The scope is unique unless given, and purged afterwards unless ``keep``.
    """
    data = dataset if isinstance(dataset, Dataset) else load_dataset(dataset, unknown_end=unknown_end)
    scope = scope or f"bench.temporal-kg/{data.name.replace('/', '-')}/{uuid.uuid4().hex[:12]}"
    with Memory(location, scope=scope, auth=auth, **memory_options(data)) as memory:
        try:
            return evaluate(
                memory, data, questions=questions, batch_size=batch_size, history_pairs=history_pairs, seed=seed
            )
        finally:
            if not keep:
                memory.purge(scope=scope)


# -- command line ------------------------------------------------------------------------------------------


def _run_on(backend: str, runner: Callable[[str, tuple[str, str] | None], dict[str, Any]]) -> dict[str, Any]:
    if backend == "neo4j":
        url, auth = neo4j_settings()
        return runner(url, auth)
    with tempfile.TemporaryDirectory(prefix="synapse-temporal-kg-") as folder:
        return runner(str(Path(folder) / "bench.db"), None)


def format_table(results: Sequence[Mapping[str, Any]]) -> str:
    """A small text table of the results, then rejections and mismatches."""
    header = ("dataset", "backend", "lines", "loaded", "rejected", "load s", "facts/s", "questions", "exact", "share")
    rows = [
        (
            r["dataset"],
            r["backend"],
            str(r["lines"]),
            str(r["loaded"]),
            str(sum(r["rejected"].values())),
            f"{r['load_seconds']:.1f}",
            f"{r['facts_per_second']:.0f}",
            str(r["questions"]),
            str(r["exact"]),
            f"{100 * r['share_exact']:.2f}%",
        )
        for r in results
    ]
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
    lines = ["  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)) for row in [header, *rows]]
    for r in results:
        lines.append(f"\n{r['dataset']} on {r['backend']}: rejected {json.dumps(r['rejected'])}")
        lines.append(
            f"  histories exact: {r['histories_exact']}/{r['histories']}; records {r['records_stored']} "
            f"stored, {r['records_expected']} expected"
        )
        lines.extend(f"  load error: {error}" for error in r["load_errors"])
        lines.extend(f"  mismatch: {json.dumps(m)}" for m in r["mismatches"] + r["history_mismatches"])
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.temporal_kg", description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", choices=[*DATASETS, "all"], default="all")
    parser.add_argument("--backend", choices=["falkordb", "neo4j", "all"], default="all")
    parser.add_argument("--questions", type=int, default=3000)
    parser.add_argument("--batch-size", type=int, default=1000)
    parser.add_argument("--unknown-end", choices=["open", "start-period"], default="open")
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED)
    parser.add_argument("--json", action="store_true", help="print the full results as JSON")
    args = parser.parse_args(argv)
    logging.getLogger("neo4j").setLevel(logging.ERROR)  # the driver logs every server notification
    datasets = DATASETS if args.dataset == "all" else (args.dataset,)
    backends = ("falkordb", "neo4j") if args.backend == "all" else (args.backend,)
    results = []
    for name in datasets:
        data = load_dataset(name, unknown_end=args.unknown_end)
        for backend in backends:

            def runner(location: str, auth: tuple[str, str] | None, data: Dataset = data) -> dict[str, Any]:
                return run(
                    data, location, auth=auth, questions=args.questions, batch_size=args.batch_size, seed=args.seed
                )

            results.append(_run_on(backend, runner))
            print(f"done: {name} on {backend}", file=sys.stderr, flush=True)
    print(json.dumps(results, indent=2, default=str) if args.json else format_table(results))
    return 0 if all(r["share_exact"] == 1.0 and r["histories_exact"] == r["histories"] for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
