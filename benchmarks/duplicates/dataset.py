"""The labelled evaluation of duplicate proposals, built from the temporal KGs (seeded, deterministic).

Every entity of the data set is an entity of the store (an *original*). A seeded sample of its people
is written a second (and sometimes a third) time the ways people and agents write names
(:mod:`.variants`), each such *variant* holding facts as one person's would: some of the original's facts
again, recorded later over an overlapping interval, and sometimes a fact the original no longer holds
(moved to the variant). Hard negatives: the data set's own people with similar or equal names (relatives,
spouses and namesakes share family names), names the data set qualifies apart (``Jonathan Jackson
(actor)``), eponymous works of another type (``<name> (film)``, the data set's own pattern), and
*namesakes*: another real person's facts under a sampled person's name written with other accents or
case, so that only their facts (two birthplaces) tell them apart.

Gold: two entities are one if they stand for the same entity of the data set (``origin``).
WIKIDATA12k has no labels (its names are Q-ids): its people are given names of YAGO11k's people, drawn
without replacement (seeded), and its other entities keep their Q-ids.
"""

from __future__ import annotations

import random
import re
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from benchmarks.duplicates.variants import KINDS, strip_accents
from benchmarks.temporal_kg import DATA_ROOT, DatedFact, load_dataset, name_key

DEFAULT_SEED = 30
PERSON_SUBJECT = {
    "yago11k": {"WAS_BORN_IN", "DIED_IN", "IS_MARRIED_TO", "PLAYS_FOR", "GRADUATED_FROM", "WORKS_AT", "HAS_WON_PRIZE"},
    "wikidata12k": {"MEMBER_OF_SPORTS_TEAM", "POSITION_HELD", "EMPLOYER", "EDUCATED_AT", "SPOUSE",
                    "MEMBER_OF_POLITICAL_PARTY", "RECEIVE_AWARD", "NOMINATED_FOR", "ACADEMIC_DEGREE"},
}
"""Predicates whose subject is a person."""
OBJECT_TYPES = {
    "WAS_BORN_IN": "place", "DIED_IN": "place", "WORKS_AT": "organisation", "GRADUATED_FROM": "organisation",
    "PLAYS_FOR": "organisation", "IS_AFFILIATED_TO": "organisation", "HAS_WON_PRIZE": "award", "CREATED": "work",
    "OWNS": "organisation", "IS_MARRIED_TO": "person", "MEMBER_OF_SPORTS_TEAM": "organisation",
    "EMPLOYER": "organisation", "EDUCATED_AT": "organisation", "SPOUSE": "person", "RECEIVE_AWARD": "award",
    "MEMBER_OF_POLITICAL_PARTY": "organisation", "COUNTRY_OF_CITIZENSHIP": "place", "RESIDENCE": "place",
}
SINGLE_VALUED = {"yago11k": ("WAS_BORN_IN", "DIED_IN"), "wikidata12k": ("SPOUSE",)}
"""The scope rules of the evaluation: a person is born and dies in one place, has one spouse at a time.
The first is what namesakes are told apart by."""
FOR_GOOD = frozenset({"WAS_BORN_IN", "DIED_IN"})
WORK_KINDS = ("film", "album", "novel", "TV series", "song")
_QUALIFIER = re.compile(r"\s*\([^()]*\)\s*$")


@dataclass(frozen=True)
class Mention:
    """One entity of the evaluation's store."""

    name: str
    origin: str
    """The data set's entity it stands for (gold: same origin, same entity)."""
    type: str | None
    kind: str
    """``original``, a variant kind (:data:`.variants.KINDS`), ``eponym`` or ``namesake``."""

    @property
    def key(self) -> str:
        return name_key(self.name)


@dataclass
class LabelledSet:
    """Entities, facts and gold of one evaluation."""

    name: str
    mentions: list[Mention] = field(default_factory=list)
    facts: list[DatedFact] = field(default_factory=list)
    later: list[str] = field(default_factory=list)
    """Keys of the entities written one at a time after the rest (what write-time warnings are judged on)."""
    single_valued: tuple[str, ...] = ()

    def gold(self) -> set[tuple[str, str]]:
        """Every pair of entity keys (in order) standing for one entity of the data set."""
        by_origin: dict[str, list[str]] = defaultdict(list)
        for m in self.mentions:
            by_origin[m.origin].append(m.key)
        return {(a, b) if a < b else (b, a) for keys in by_origin.values()
                for i, a in enumerate(keys) for b in keys[i + 1:]}

    def by_key(self) -> dict[str, Mention]:
        return {m.key: m for m in self.mentions}


def base_name(name: str) -> str:
    """A name without the data set's qualifier: ``James Welch (writer)`` -> ``James Welch``."""
    return _QUALIFIER.sub("", name).strip() or name


def _types(facts: Iterable[DatedFact], people_predicates: set[str]) -> dict[str, str]:
    found: dict[str, str] = {}
    for f in facts:
        if f.predicate in people_predicates:
            found[f.subject] = "person"
        kind = OBJECT_TYPES.get(f.predicate)
        if kind is not None:
            found.setdefault(f.object, kind)
    for f in facts:
        found.setdefault(f.subject, "organisation" if f.predicate in ("OWNS", "IS_AFFILIATED_TO") else "thing")
        found.setdefault(f.object, "thing")
    return found


def _later(at: datetime, end: datetime | None, rng: random.Random) -> datetime:
    """An instant inside [at, end) (the same fact recorded again later), at most ten years on."""
    span = ((end or at + timedelta(days=3650)) - at).days
    return at + timedelta(days=rng.randrange(0, max(1, min(span, 3650))))


def _named_wikidata(facts: list[DatedFact], rng: random.Random, people: set[str]) -> list[DatedFact]:
    """WIKIDATA12k's people named after YAGO11k's people (seeded; Q-ids otherwise)."""
    yago = load_dataset("yago11k", DATA_ROOT)
    yago_people = sorted({f.subject for f in yago.facts if f.predicate in PERSON_SUBJECT["yago11k"]})
    names = [base_name(n) for n in yago_people if len(base_name(n).split()) >= 2]
    names = sorted({name_key(n): n for n in names}.values())
    rng.shuffle(names)
    chosen = dict(zip(sorted(people), names, strict=False))
    return [DatedFact(chosen.get(f.subject, f.subject), f.predicate, chosen.get(f.object, f.object), f.valid_at,
                      f.invalid_at, f.origin) for f in facts]


def build(dataset: str = "yago11k", seed: int = DEFAULT_SEED, *, variants_share: float = 0.15,
          eponyms: int = 150, namesakes: int = 150, later_originals: int = 400) -> LabelledSet:
    """The labelled set of one data set: see the module's docstring."""
    rng = random.Random(f"{dataset}:{seed}")
    facts = load_dataset(dataset, DATA_ROOT).facts
    people_predicates = PERSON_SUBJECT[dataset]
    people = {f.subject for f in facts if f.predicate in people_predicates}
    if dataset == "wikidata12k":
        facts = _named_wikidata(facts, rng, people)
        people = {f.subject for f in facts if f.predicate in people_predicates}
    types = _types(facts, people_predicates)
    out = LabelledSet(name=dataset, single_valued=SINGLE_VALUED[dataset])
    # Where one was born or died holds for good, as an agent writes it (the data set dates the event).
    facts = [DatedFact(f.subject, f.predicate, f.object, f.valid_at, None, f.origin)
             if f.predicate in FOR_GOOD else f for f in facts]
    keys = {name_key(e) for e in types}
    out.mentions = [Mention(e, e, types[e], "original") for e in sorted(types)]
    out.facts = list(facts)
    by_subject: dict[str, list[DatedFact]] = defaultdict(list)
    for f in facts:
        by_subject[f.subject].append(f)
    candidates = sorted(p for p in people if len(base_name(p).split()) >= 2)
    sample = rng.sample(candidates, int(len(candidates) * variants_share))
    kinds = sorted(KINDS)
    for n, person in enumerate(sample):
        count = 2 if rng.random() < 0.2 else 1
        for v in range(count):
            kind = kinds[(n + v * 3) % len(kinds)]
            written = _variant(person, kind, rng, keys)
            if written is None:
                continue
            keys.add(name_key(written[0]))
            out.mentions.append(Mention(written[0], person, "person" if rng.random() < 0.5 else None, written[1]))
            out.facts += _variant_facts(person, written[0], by_subject, out.facts, rng)
            out.later.append(name_key(written[0]))
    out.mentions += _eponyms(rng, sorted(set(candidates) - set(sample)), eponyms, keys, out)
    renamed = _namesakes(rng, candidates, sample, namesakes, keys, by_subject, out)  # replaces out.mentions
    out.mentions += renamed
    originals = [name_key(p) for p in rng.sample(sorted(set(candidates) - set(sample)), later_originals)]
    out.later += [k for k in originals if k not in set(out.later)]
    _drop_types(out, rng)
    return out


def _variant(person: str, kind: str, rng: random.Random, keys: set[str]) -> tuple[str, str] | None:
    """A variant of the person's name of this kind, else of another kind that applies (not a name the
    store holds already)."""
    order = [kind, *rng.sample(sorted(KINDS), len(KINDS))]
    for chosen in order:
        written = KINDS[chosen](base_name(person), rng)
        if written is not None and name_key(written) not in keys:
            return written, chosen
    return None


def _variant_facts(person: str, variant: str, by_subject: dict[str, list[DatedFact]], facts: list[DatedFact],
                   rng: random.Random) -> list[DatedFact]:
    """Facts of a variant: some of the person's again, recorded later over an overlapping interval, and
    sometimes one the original no longer holds."""
    own = by_subject[person]
    added: list[DatedFact] = []
    copied = rng.sample(own, min(len(own), rng.choice([1, 1, 2]))) if rng.random() < 0.7 else []
    for f in copied:
        added.append(DatedFact(variant, f.predicate, f.object, _later(f.valid_at, f.invalid_at, rng), f.invalid_at,
                               f"variant of {f.origin}"))
    if (not copied or rng.random() < 0.4) and len(own) >= 2:
        moved = rng.choice([f for f in own if f not in copied] or own)
        facts.remove(moved)
        own.remove(moved)
        added.append(DatedFact(variant, moved.predicate, moved.object, moved.valid_at, moved.invalid_at,
                               f"moved {moved.origin}"))
    elif not copied:
        f = own[0]
        added.append(DatedFact(variant, f.predicate, f.object, _later(f.valid_at, f.invalid_at, rng), f.invalid_at,
                               f"variant of {f.origin}"))
    return added


def _eponyms(rng: random.Random, people: list[str], count: int, keys: set[str], out: LabelledSet) -> list[Mention]:
    """Works named after people (``<name> (film)``): the same name, another type."""
    made: list[Mention] = []
    creators = [m.name for m in out.mentions if m.type == "person"]
    for person in rng.sample(people, min(count, len(people))):
        name = f"{base_name(person)} ({rng.choice(WORK_KINDS)})"
        if name_key(name) in keys:
            continue
        keys.add(name_key(name))
        made.append(Mention(name, name, "work", "eponym"))
        when = datetime(rng.randrange(1950, 2015), 1, 1, tzinfo=UTC)
        out.facts.append(DatedFact(rng.choice(creators), "CREATED", name, when, None, "eponym"))
        out.later.append(name_key(name))
    return made


def _namesakes(rng: random.Random, people: list[str], sample: list[str], count: int, keys: set[str],
               by_subject: dict[str, list[DatedFact]], out: LabelledSet) -> list[Mention]:
    """People of the data set renamed after another person written once, that name written otherwise (accents
    lost, or family name first): two people of one name, told apart only by their facts (where they were born,
    what they did)."""
    born = {p: {f.object for f in by_subject[p] if f.predicate == out.single_valued[0]} for p in people}
    free = sorted(p for p in people if p not in set(sample) and born[p])
    rng.shuffle(free)
    renamed: dict[str, str] = {}
    while len(free) >= 2 and len(renamed) < count:
        person, other = free.pop(), free.pop()
        if not _contradict(by_subject[person], by_subject[other], out.single_valued[0]):
            continue
        name = strip_accents(base_name(person))
        if name_key(name) in keys:  # no accent to lose: written family name first
            words = name.split()
            name = f"{words[-1]}, {' '.join(words[:-1])}"
        if name_key(name) in keys:
            continue
        keys.add(name_key(name))
        renamed[other] = name
    out.facts = [DatedFact(renamed.get(f.subject, f.subject), f.predicate, renamed.get(f.object, f.object),
                           f.valid_at, f.invalid_at, f.origin) for f in out.facts]
    out.mentions = [m for m in out.mentions if m.name not in renamed]
    out.later += [name_key(n) for n in renamed.values()]
    return [Mention(name, other, "person", "namesake") for other, name in sorted(renamed.items())]


def _contradict(a: list[DatedFact], b: list[DatedFact], predicate: str) -> bool:
    """Two people hold different values of a single-valued predicate at one time (two birthplaces, two spouses)."""
    far = datetime.max.replace(tzinfo=UTC)
    return any(x.object != y.object and x.valid_at < (y.invalid_at or far) and y.valid_at < (x.invalid_at or far)
               for x in a if x.predicate == predicate for y in b if y.predicate == predicate)


def _drop_types(out: LabelledSet, rng: random.Random) -> None:
    """Agents often give no type: three in ten originals and eponyms have none."""
    out.mentions = [m if m.kind not in ("original", "eponym") or rng.random() >= 0.3
                    else Mention(m.name, m.origin, None, m.kind) for m in out.mentions]
