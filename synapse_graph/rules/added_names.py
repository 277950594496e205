"""Candidate pairs brought up to date when entities are added to a scope, without blocking the scope again.

:func:`~synapse_graph.rules.duplicates.name_candidates` blocks every entity of a scope. Adding entities changes
only the blocks of their keys: a block of one becomes a pair, a block that grows past ``max_block`` pairs nothing
any more (two of its entities stay a pair if they share another block that still pairs), a one-sided key a new
entity asks through pairs it with the key's holders. What the names' evidence depends on beyond the pair changes
too, and only through the new entities: how many entities use each of their words (a family name's rarity, common
words left out) and how many entities a weaker name fits (its pairs changed). :class:`KeyIndex` keeps every
entity's blocking keys by key, with the candidates' words and fits by entity, so :func:`add` gives the candidates
blocking the whole scope would give now, and which pairs' name evidence changed.

Only entities added (and retyped: a type is no part of the names) are brought up to date here; a name changed,
an alias, a merge or an entity removed walks the scope again.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import chain, repeat

from synapse_graph.rules.blocking import MAX_BLOCK, ONE_SIDED, asking_keys, entity_keys
from synapse_graph.rules.duplicates import (
    MIN_NAME_STRENGTH,
    WEAK_KINDS,
    Candidates,
    Profile,
    best_name_match,
    entity_words,
    fits_of_weaker,
    pair_key,
    weaker_of,
)
from synapse_graph.rules.names import NameMatch

Pair = tuple[str, str]
"""Two entity keys in :func:`~synapse_graph.rules.duplicates.pair_key` order."""


def _counted_words(match: NameMatch) -> set[str]:
    """The words whose counts in the scope a pair's name evidence reads (:func:`~.duplicates.name_evidence`)."""
    return {*match.dropped, *((match.surname,) if match.kind in WEAK_KINDS and match.surname else ())}


@dataclass
class KeyIndex:
    """Every entity's blocking keys by key (pairing and one-sided, asked or not), who asks through each one-sided
    key, and of the candidate pairs: which words their evidence counts, and each weaker name's weak partners."""

    owner: dict[str, str] = field(default_factory=dict)
    """A key -> an entity holding it (the only one, for most keys)."""
    shared: dict[str, list[str]] = field(default_factory=dict)
    """A key two entities or more hold -> all of them."""
    askers: dict[str, list[str]] = field(default_factory=dict)
    by_word: dict[str, set[Pair]] = field(default_factory=dict)
    partners: dict[str, set[str]] = field(default_factory=dict)
    """A weaker name's entity -> the entities of its weak matches (what its ``fits`` count)."""
    weakers: dict[str, set[str]] = field(default_factory=dict)
    """An entity -> the weaker entities it is a weak partner of."""
    position: dict[str, int] = field(default_factory=dict)
    """An entity's position in the candidates' profiles."""
    max_block: int = MAX_BLOCK

    @classmethod
    def of(cls, candidates: Candidates, max_block: int = MAX_BLOCK) -> KeyIndex:
        profiles = candidates.profiles
        keyed = [entity_keys(p.names) for p in profiles]
        # Some 15 keys an entity, most held by one: counted and owned in bulk, lists made for the shared ones.
        sizes = Counter(chain.from_iterable(keyed))
        owners = chain.from_iterable(repeat(p.key, len(k)) for p, k in zip(profiles, keyed, strict=True))
        index = cls(owner=dict(zip(chain.from_iterable(keyed), owners, strict=True)),
                    position={p.key: n for n, p in enumerate(profiles)}, max_block=max_block)
        shared = {key for key, size in sizes.items() if size > 1}
        for profile, keys in zip(profiles, keyed, strict=True):
            for key in shared.intersection(keys):
                index.shared.setdefault(key, []).append(profile.key)
            for key in asking_keys(profile.names):
                index.askers.setdefault(key, []).append(profile.key)
        for (i, j), match in candidates.matches.items():
            index._note(i, j, match, profiles)
        return index

    def holders(self, key: str) -> list[str]:
        found = self.shared.get(key)
        if found is not None:
            return found
        owner = self.owner.get(key)
        return [] if owner is None else [owner]

    def _hold(self, entity: str, keys: Mapping[str, bool]) -> None:
        for key, asks in keys.items():
            owner = self.owner.setdefault(key, entity)
            if owner != entity:
                self.shared.setdefault(key, [owner]).append(entity)
            if asks and key[0] in ONE_SIDED:
                self.askers.setdefault(key, []).append(entity)

    def _note(self, i: int, j: int, match: NameMatch, profiles: Sequence[Profile]) -> None:
        pair = pair_key(profiles[i].key, profiles[j].key)
        for word in _counted_words(match):
            self.by_word.setdefault(word, set()).add(pair)
        if match.kind in WEAK_KINDS:
            weaker = weaker_of(i, j, profiles)
            other = profiles[j if weaker == i else i].key
            self.partners.setdefault(profiles[weaker].key, set()).add(other)
            self.weakers.setdefault(other, set()).add(profiles[weaker].key)

    def _forget(self, pair: Pair, match: NameMatch) -> None:
        for word in _counted_words(match):
            self.by_word.get(word, set()).discard(pair)
        for weaker, other in (pair, pair[::-1]):
            if other in self.partners.get(weaker, ()):
                self.partners[weaker].discard(other)
                self.weakers[other].discard(weaker)

    def _pairs(self, key: str) -> set[Pair]:
        """The pairs one block makes now (:meth:`~synapse_graph.rules.blocking.Blocks.pairs`)."""
        members = self.holders(key)
        if not 1 < len(members) <= self.max_block:
            return set()
        if key[0] in ONE_SIDED:
            return {pair_key(a, b) for a in self.askers.get(key, ()) for b in members if a != b}
        return {pair_key(a, b) for n, a in enumerate(members) for b in members[n + 1:]}

    def _paired(self, a: Profile, b: Profile) -> bool:
        """Whether two entities share a block that pairs them now."""
        theirs = entity_keys(b.names)
        for key, asks in entity_keys(a.names).items():
            if key in theirs and 1 < len(self.holders(key)) <= self.max_block and (
                    key[0] not in ONE_SIDED or asks or theirs[key]):  # a one-sided key pairs those asking through it
                return True
        return False


@dataclass(frozen=True)
class Added:
    """The candidates after :func:`add`, and what changed for the pairs that reach ``threshold`` by their names."""

    candidates: Candidates
    again: set[Pair]
    """Pairs (new, or whose name evidence changed) that may reach the threshold: to score."""
    gone: set[Pair]
    """Pairs that could reach it before and cannot now (no longer a candidate, or weaker evidence)."""


def add(candidates: Candidates, index: KeyIndex, added: Iterable[Profile], retyped: Iterable[Profile], *,
        threshold: float, distinct: set[Pair]) -> Added:
    """The candidates of the scope with ``added`` entities (and ``retyped`` ones of a new type), as
    :func:`~synapse_graph.rules.duplicates.name_candidates` would find them (the added entities' profiles at the
    end); updates ``index`` and the candidates' matches, fits and word counts in place (the candidates given are
    not to be used again)."""
    profiles = list(candidates.profiles)  # the new ones at the end: the others keep their positions
    hopeful = {pair_key(profiles[i].key, profiles[j].key) for i, j in candidates.hopeful(threshold)}
    at = index.position
    for profile in retyped:
        profiles[at[profile.key]] = profile
    new = sorted(added, key=lambda p: p.key)
    for profile in new:
        at[profile.key] = len(profiles)
        profiles.append(profile)
    matches = candidates.matches

    keys = {p.key: entity_keys(p.names) for p in new}
    blocks = set().union(*keys.values())
    before = set().union(*(index._pairs(k) for k in blocks))
    for entity, its in keys.items():
        index._hold(entity, its)
    after = set().union(*(index._pairs(k) for k in blocks))
    lost = {pair for pair in before - after
            if not index._paired(profiles[at[pair[0]]], profiles[at[pair[1]]])}
    changed: set[Pair] = set()
    for a, b in lost:
        match = matches.pop((at[a], at[b]), None)
        if match is not None:
            index._forget((a, b), match)
            changed.add((a, b))
    for a, b in sorted(p for p in after if (p[0] in keys or p[1] in keys) and p not in distinct):
        match = best_name_match(profiles[at[a]], profiles[at[b]])
        if match.strength >= MIN_NAME_STRENGTH:
            matches[(at[a], at[b])] = match
            index._note(at[a], at[b], match, profiles)
            changed.add((a, b))

    words = candidates.stats.words
    counted: set[str] = set()
    for profile in new:
        for word in entity_words(profile):
            words[word] += 1
            counted.add(word)
    refit = {w for pair in changed for e in pair for w in (*index.weakers.get(e, ()), *pair)}
    fits = candidates.fits
    for weaker in refit:
        others = [at[o] for o in index.partners.get(weaker, ())]
        found = fits_of_weaker(others, matches)
        if found:
            fits[at[weaker]] = found
        else:
            fits.pop(at[weaker], None)
    affected = {*changed, *(pair for w in counted for pair in index.by_word.get(w, ())),
                *(pair_key(w, o) for w in refit for o in index.partners.get(w, ()))}
    grown = Candidates(profiles, matches, fits, candidates.stats)
    still = {(at[a], at[b]) for a, b in affected if (at[a], at[b]) in matches}
    reaching = {pair_key(profiles[i].key, profiles[j].key) for i, j in grown.hopeful_of(still, threshold)}
    now = (hopeful - affected) | reaching
    grown.keep_hopeful(threshold, sorted((at[a], at[b]) for a, b in now))
    return Added(grown, reaching, hopeful - now)
