"""Which entities of a scope are probably one, with a score and the evidence for and against.

Pure: given each entity's names, type and facts (:class:`Profile`), :func:`propose` compares the
pairs that blocking finds (:mod:`~synapse_graph.rules.blocking`) and scores each as log-odds added up
from its evidence, turned into a probability-like score in [0, 1]:

- the names (:func:`~synapse_graph.rules.names.compare`): equal but for case, accents or punctuation;
  the same words; a dropped middle name; a handle spelling the name; a nickname; a typo; initials; one
  word only. The weaker kinds count more when the family name is rare in the scope and less when the
  shorter name fits several entities (``A. Alda`` is Alan or Arlene);
- their neighbourhood: the same employer, city, team or spouse, more so when few others share it and
  when the facts overlap in time;
- their types: the same type a little for, two different types strongly against;
- facts that cannot both hold of one entity: two different values of a single-valued predicate at the
  same time (two birthplaces, two employers on one day), or a fact between the two entities.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from itertools import chain
from typing import Any

from synapse_graph.rules.blocking import MAX_BLOCK, Blocks
from synapse_graph.rules.names import NO_MATCH, NameForm, NameMatch, compare, parse

PRIOR = -4.0
"""Log-odds that two entities sharing a blocking key are one before any evidence: most are not."""
DEFAULT_THRESHOLD = 0.8
"""Proposals at or above this score are listed by ``Memory.duplicates``."""
WARN_THRESHOLD = 0.95
"""A write that creates an entity matching an existing one at or above this score says so."""
MIN_NAME_STRENGTH = 2.0
"""Pairs whose names agree less than this (log-odds) are not scored further."""
WEAK_KINDS = frozenset({"initials", "handle initials", "partial name", "nickname", "similar name", "typo"})
"""Name agreements that fit many people: they depend on how rare the family name is and on how many
entities the shorter name fits."""
MAX_NEIGHBOURHOOD = 4.5
COMMON_WORD = 20
"""A word in more names of the scope than this is a common one (``national``, ``party``)."""
MAX_AGAINST = -9.0


@dataclass(frozen=True)
class Link:
    """One fact of an entity as the scorer sees it."""

    predicate: str
    other: str
    """The key of the entity at the other end."""
    outgoing: bool
    """True if the entity is the fact's subject."""
    valid_at: int
    invalid_at: int | None
    other_name: str = ""
    other_degree: int = 1
    """How many facts the other entity has (a city everyone lives in says little)."""


@dataclass(frozen=True)
class Profile:
    """What the scorer knows of an entity."""

    key: str
    name: str
    aliases: tuple[str, ...] = ()
    type: str | None = None
    links: tuple[Link, ...] = ()

    @property
    def names(self) -> tuple[str, ...]:
        return (self.name, *self.aliases)


@dataclass(frozen=True)
class Evidence:
    """One reason for (weight > 0) or against (weight < 0) two entities being one."""

    kind: str
    weight: float
    """Log-odds it adds."""
    text: str
    detail: Mapping[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "weight": round(self.weight, 3), "text": self.text, **dict(self.detail)}


@dataclass(frozen=True)
class Proposal:
    """Two entities that are probably one: merge ``other`` into ``canonical`` (``alias(canonical, other)``)."""

    canonical: str
    """Key of the entity to keep (the fuller name, the one with more facts)."""
    other: str
    canonical_name: str
    other_name: str
    score: float
    evidence: tuple[Evidence, ...]

    @property
    def pair(self) -> tuple[str, str]:
        return pair_key(self.canonical, self.other)


def pair_key(a: str, b: str) -> tuple[str, str]:
    """A pair of entity keys in one order, whatever the order asked."""
    return (a, b) if a <= b else (b, a)


def sigmoid(log_odds: float) -> float:
    return 1.0 / (1.0 + math.exp(-log_odds))


@dataclass
class ScopeStats:
    """What the scorer needs of the whole scope: how many entities use each word of a name."""

    words: Counter[str] = field(default_factory=Counter)
    known: bool = True
    """False when only some entities were seen (a write's candidates): rarity then adds nothing."""

    @classmethod
    def of(cls, profiles: Iterable[Profile]) -> ScopeStats:
        # One count over every entity's words (each once an entity), not an update an entity.
        return cls(Counter(chain.from_iterable(map(entity_words, profiles))))

    def rarity(self, word: str) -> float:
        """Log-odds a family name adds by its rarity: shared by few entities, more; by many, less."""
        if not self.known:
            return 0.0
        n = self.words.get(word, 1)
        return 1.0 if n <= 2 else 0.5 if n <= 5 else 0.0 if n <= 20 else -0.5 if n <= 100 else -1.0


def entity_words(p: Profile) -> set[str]:
    """The words of an entity's names, as :class:`ScopeStats` counts them (once an entity)."""
    return {t for n in p.names for t in parse(n).tokens} if p.aliases else set(parse(p.name).tokens)


def best_name_match(a: Profile, b: Profile) -> NameMatch:
    """The strongest agreement between any name or alias of one and any of the other (what speaks against
    them counted in)."""
    if not a.aliases and not b.aliases:  # most entities: one name each
        m = compare(parse(a.name), parse(b.name))
        return m if m.strength + sum(w for _, w, _ in m.against) > 0.0 else NO_MATCH
    best = NO_MATCH
    for x in a.names:
        for y in b.names:
            m = compare(parse(x), parse(y))
            if m.strength + sum(w for _, w, _ in m.against) > best.strength + sum(w for _, w, _ in best.against):
                best = m
    return best


def _overlap(a: Link, b: Link) -> bool:
    return a.valid_at < (b.invalid_at or 2**62) and b.valid_at < (a.invalid_at or 2**62)


def _weight_of_degree(degree: int) -> float:
    return 2.0 if degree <= 3 else 1.5 if degree <= 10 else 1.0 if degree <= 50 else 0.5 if degree <= 500 else 0.2


def _agreement(x: Link, y: Link) -> tuple[float, str]:
    """How much two links to one entity say (1 the same predicate at overlapping times, 0.8 at other times, 0.5
    different predicates), and the predicate to name."""
    if x.predicate == y.predicate and x.outgoing == y.outgoing:
        return (1.0, x.predicate) if _overlap(x, y) else (0.8, x.predicate)
    return 0.5, min(x.predicate, y.predicate)


def neighbourhood(a: Profile, b: Profile) -> list[Evidence]:
    """The entities both are linked to (the same employer, city, spouse), weighted by how few others are. Two
    entities linked to one through several facts weigh its strongest pair of facts (then the first predicate by
    name): the evidence depends on the facts, not on the order they were read in."""
    by_other: dict[str, list[Link]] = {}
    for link in a.links:
        by_other.setdefault(link.other, []).append(link)
    best: dict[str, tuple[float, str, Link]] = {}
    for link in b.links:
        if link.other in (a.key, b.key) or link.other not in by_other:
            continue
        for x in by_other[link.other]:
            how, predicate = _agreement(x, link)
            held = best.get(link.other)
            if held is None or (-how, predicate) < (-held[0], held[1]):
                best[link.other] = (how, predicate, link)
    found: list[Evidence] = []
    for other, (how, predicate, link) in sorted(best.items()):
        weight = _weight_of_degree(link.other_degree) * how
        said = "at overlapping times" if how == 1.0 else "at other times" if how == 0.8 else \
            "through different predicates"
        found.append(Evidence("shared neighbour", weight, f"both are linked to {link.other_name or other!r} "
                              f"({predicate}, {said})",
                              {"entity": other, "predicate": predicate, "overlapping": how == 1.0}))
    found.sort(key=lambda e: -e.weight)  # stable: equal weights stay in the entities' key order
    total = 0.0
    kept: list[Evidence] = []
    for e in found:
        if total >= MAX_NEIGHBOURHOOD:
            break
        weight = min(e.weight, MAX_NEIGHBOURHOOD - total)
        kept.append(Evidence(e.kind, weight, e.text, e.detail))
        total += weight
    return kept


def conflicts(a: Profile, b: Profile, single_valued: Collection[str]) -> list[Evidence]:
    """Facts that cannot both hold of one entity: two values of a single-valued predicate at one time,
    or a fact between the two. Where several facts say so, the first by content is named (not by the order
    they were read in)."""
    found: list[Evidence] = []
    between = sorted((link.predicate, not link.outgoing) for link in a.links if link.other == b.key)
    if between:
        predicate, incoming = between[0]
        found.append(Evidence("linked to each other", -4.0, f"a fact links them: {b.name!r} {predicate} {a.name!r}"
                              if incoming else f"{a.name!r} {predicate} {b.name!r}", {"predicate": predicate}))
    theirs: dict[str, list[Link]] = {}
    for y in b.links:
        if y.outgoing and y.predicate in single_valued:
            theirs.setdefault(y.predicate, []).append(y)
    clashes: dict[str, tuple[tuple[str, str, int, int], Link, Link]] = {}
    for x in a.links:
        if not x.outgoing or x.predicate not in theirs:
            continue
        for y in theirs[x.predicate]:
            if y.other != x.other and _overlap(x, y):
                order = (min(x.other, y.other), max(x.other, y.other), x.valid_at, y.valid_at)
                held = clashes.get(x.predicate)
                if held is None or order < held[0]:
                    clashes[x.predicate] = (order, x, y)
    for predicate, (_, x, y) in sorted(clashes.items()):
        found.append(Evidence("conflicting values", -3.5, f"{predicate} is single-valued and they hold "
                              f"two values at one time: {x.other_name or x.other!r} and {y.other_name or y.other!r}",
                              {"predicate": predicate, "values": [x.other, y.other]}))
    return found


def types(a: Profile, b: Profile) -> list[Evidence]:
    if a.type is None or b.type is None:
        return []
    if a.type.casefold() == b.type.casefold():
        return [Evidence("same type", 0.5, f"both are of type {a.type!r}", {"type": a.type})]
    return [Evidence("different types", -8.0, f"{a.name!r} is a {a.type!r}, {b.name!r} a {b.type!r}",
                     {"types": [a.type, b.type]})]


def canonical_of(a: Profile, b: Profile) -> tuple[Profile, Profile]:
    """(kept, merged into it): the one whose fullest name (aliases included) says more (not a handle, more
    written-out words), then the one with more facts, then the longer name, then the key order."""
    def rank(p: Profile) -> tuple[int, int, int, int]:
        forms = [parse(n) for n in p.names]
        best = max(sum(len(t) > 1 for t in f.tokens) for f in forms)
        return (int(not parse(p.name).handle), best, len(p.links), len(parse(p.name).compact))
    return (a, b) if (rank(a), b.key) >= (rank(b), a.key) else (b, a)


def name_evidence(match: NameMatch, stats: ScopeStats, fits: int = 1) -> list[Evidence]:
    """What the names of two entities say, for and against: how they agree, what in them tells the two apart,
    and for the weaker agreements, how rare the family name is and how many entities the shorter name fits."""
    evidence = [Evidence("name", match.strength, match.text, {"how": match.kind})]
    common = [w for w in match.dropped if stats.words.get(w, 1) > COMMON_WORD]
    if common:
        evidence.append(Evidence("common words left out", -3.0, f"the words left out ({', '.join(common)}) are in "
                                 "many names of the scope: they tell things apart rather than name a person",
                                 {"words": common}))
    evidence += [Evidence(kind, weight, text) for kind, weight, text in match.against]
    if match.kind in WEAK_KINDS and match.surname:
        rarity = stats.rarity(match.surname)
        if rarity:
            shared = stats.words.get(match.surname, 1)
            evidence.append(Evidence("rare name" if rarity > 0 else "common name", rarity,
                                     f"{match.surname!r} is in the names of {shared} entit"
                                     f"{'y' if shared == 1 else 'ies'} of the scope", {"word": match.surname}))
        if fits > 1:
            evidence.append(Evidence("ambiguous name", max(-1.5 * (fits - 1), -4.5),
                                     f"the shorter name fits {fits} entities of the scope", {"fits": fits}))
        else:
            evidence.append(Evidence("only match", 1.0, "the shorter name fits no other entity of the scope"))
    return evidence


def total_log_odds(evidence: Iterable[Evidence]) -> float:
    """The prior and the evidence added up; evidence against counts down to MAX_AGAINST at most (beyond that
    the pair is out whatever else agrees)."""
    weights = [e.weight for e in evidence]
    return PRIOR + sum(w for w in weights if w > 0) + max(sum(w for w in weights if w < 0), MAX_AGAINST)


BEST_FACTS = MAX_NEIGHBOURHOOD + 0.5
"""The most the facts and types of two entities can add (a full neighbourhood and the same type)."""


def score_pair(a: Profile, b: Profile, stats: ScopeStats, single_valued: Collection[str], *,
               fits: int = 1, name: NameMatch | None = None) -> Proposal | None:
    """The proposal that ``a`` and ``b`` are one, with its score and evidence, or None if their names do
    not agree enough to say so. ``fits``: how many entities the weaker of the names fits in the scope."""
    match = name if name is not None else best_name_match(a, b)
    if match.strength < MIN_NAME_STRENGTH:
        return None
    evidence = name_evidence(match, stats, fits)
    evidence += neighbourhood(a, b) + types(a, b) + conflicts(a, b, single_valued)
    total = total_log_odds(evidence)
    kept, other = canonical_of(a, b)
    return Proposal(canonical=kept.key, other=other.key, canonical_name=kept.name, other_name=other.name,
                    score=round(sigmoid(total), 4), evidence=tuple(evidence))


@dataclass
class Candidates:
    """Pairs whose names agree enough to be scored, before their facts are read: ``matches`` by position in
    ``profiles`` (the first of the two the first by key), ``fits`` how many different entities each weaker name
    fits (by position). ``profiles`` are in key order as blocked; entities added later are at the end."""

    profiles: Sequence[Profile]
    matches: dict[tuple[int, int], NameMatch]
    fits: dict[int, int]
    stats: ScopeStats
    _hopeful: dict[float, list[tuple[int, int]]] = field(default_factory=dict, repr=False)

    def keys(self, threshold: float = 0.0) -> set[str]:
        """The entities whose facts the scores at or above ``threshold`` may need (pairs whose names cannot
        reach it even with the best facts are left out)."""
        return {self.profiles[k].key for pair in self.hopeful(threshold) for k in pair}

    def fits_of(self, i: int, j: int, match: NameMatch) -> int:
        return self.fits.get(weaker_of(i, j, self.profiles), 1) if match.kind in WEAK_KINDS else 1

    def hopeful(self, threshold: float) -> list[tuple[int, int]]:
        """The pairs whose names, with the best facts two entities can have, reach ``threshold`` (worked out once
        a threshold: proposals choose the facts to read by them, then score them)."""
        found = self._hopeful.get(threshold)
        if found is None:
            found = self._hopeful[threshold] = self.hopeful_of(self.matches, threshold)
        return found

    def hopeful_of(self, pairs: Iterable[tuple[int, int]], threshold: float) -> list[tuple[int, int]]:
        """Those of ``pairs`` (candidates) that are hopeful at ``threshold``."""
        matches = self.matches
        return [(i, j) for i, j in pairs
                if sigmoid(total_log_odds(name_evidence(matches[(i, j)], self.stats,
                                                        self.fits_of(i, j, matches[(i, j)]))) + BEST_FACTS)
                >= threshold]

    def keep_hopeful(self, threshold: float, pairs: list[tuple[int, int]]) -> None:
        """Record the hopeful pairs at ``threshold`` worked out elsewhere (:mod:`~.added_names`)."""
        self._hopeful[threshold] = pairs


def name_candidates(profiles: Sequence[Profile], *, distinct: Collection[tuple[str, str]] = (),
                    only: Callable[[Profile], bool] | None = None, max_block: int = MAX_BLOCK,
                    stats: ScopeStats | None = None) -> Candidates:
    """The pairs blocking finds whose names agree, leaving out pairs recorded as ``distinct``
    (:func:`pair_key` order); ``only``: just pairs where at least one profile passes (a write's new entities)."""
    blocks = Blocks.of((p.names for p in profiles), max_block=max_block)
    rejected = set(distinct)
    matches: dict[tuple[int, int], NameMatch] = {}
    fitted: dict[int, list[int]] = {}
    for i, j in blocks.pairs():
        a, b = profiles[i], profiles[j]
        if only is not None and not (only(a) or only(b)):
            continue
        if pair_key(a.key, b.key) in rejected:
            continue
        match = best_name_match(a, b)
        if match.strength >= MIN_NAME_STRENGTH:
            matches[(i, j)] = match
            if match.kind in WEAK_KINDS:
                weaker = weaker_of(i, j, profiles)
                fitted.setdefault(weaker, []).append(j if weaker == i else i)
    fits = {w: fits_of_weaker(others, matches) for w, others in fitted.items()}
    return Candidates(profiles, matches, fits, stats if stats is not None else ScopeStats.of(profiles))


def scored(candidates: Candidates, linked: Mapping[str, Profile] | None = None, *,
           single_valued: Collection[str] = (), threshold: float = DEFAULT_THRESHOLD) -> list[Proposal]:
    """The candidates scored (``linked``: profiles with their facts, by key, else those given), best first
    (score, then keys), those at or above ``threshold``."""
    proposals = []
    profiles = candidates.profiles
    for i, j in candidates.hopeful(threshold):
        a, b = profiles[i], profiles[j]
        if linked is not None:
            a, b = linked.get(a.key, a), linked.get(b.key, b)
        match = candidates.matches[(i, j)]
        found = score_pair(a, b, candidates.stats, single_valued, name=match, fits=candidates.fits_of(i, j, match))
        if found is not None and found.score >= threshold:
            proposals.append(found)
    proposals.sort(key=lambda p: (-p.score, p.pair))
    return proposals


def propose(profiles: Sequence[Profile], *, single_valued: Collection[str] = (), threshold: float = DEFAULT_THRESHOLD,
            distinct: Collection[tuple[str, str]] = (), limit: int | None = None, max_block: int = MAX_BLOCK,
            only: Callable[[Profile], bool] | None = None) -> list[Proposal]:
    """Pairs of the profiles that are probably one entity, best first, at or above ``threshold``
    (:func:`name_candidates`, then :func:`scored` with the profiles' own facts)."""
    found = scored(name_candidates(profiles, distinct=distinct, only=only, max_block=max_block),
                   single_valued=single_valued, threshold=threshold)
    return found[:limit] if limit is not None else found


def fits_of_weaker(entities: list[int], matches: Mapping[tuple[int, int], NameMatch]) -> int:
    """How many different entities a set of entities stands for, by their own names: those whose names agree
    strongly (equal, the same words, a handle spelling the name) count once."""
    parent = {e: e for e in entities}

    def root(e: int) -> int:
        while parent[e] != e:
            e = parent[e]
        return e
    for n, a in enumerate(entities):
        for b in entities[n + 1:]:
            m = matches.get((a, b)) or matches.get((b, a))  # in key order, not always by position
            if m is not None and m.kind not in WEAK_KINDS and not m.against:
                parent[root(a)] = root(b)
    return len({root(e) for e in entities})


def weaker_of(i: int, j: int, profiles: Sequence[Profile]) -> int:
    """Which of two entities has the less informative name (fewer written-out words; then the first by key)."""
    a, b = profiles[i], profiles[j]
    return i if (_informative(a.name), a.key) <= (_informative(b.name), b.key) else j


@cache
def _informative(name: str) -> int:
    """How many written-out words (not initials) a name has."""
    form: NameForm = parse(name)
    return sum(len(t) > 1 for t in form.tokens)
