"""Blocking: which pairs of entities are worth comparing, without comparing all pairs.

Each name gives a few keys (a rare word, the first initial with the family name, its phonetic key,
the family name one typo away, the canonical given name with the family name, the ways a handle runs
the words together); two entities are compared only if they share a key whose block is small
(:data:`MAX_BLOCK`). A 100k-entity scope gives a few hundred thousand pairs instead of five billion,
and one new entity is compared only with the entities of its own keys (:meth:`Blocks.candidates_of`).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from jellyfish import metaphone

from synapse_graph.rules.names import NameForm, canonical_given_names, handle_spellings, parse

MAX_BLOCK = 60
"""Entities sharing a key beyond this many are not compared through it (``john``, ``smith``); their rarer
keys (``j|smith``) still pair them."""
MIN_WORD = 3
"""Words shorter than this give no key of their own (initials, ``de``, ``le``)."""
STOP_WORDS = frozenset({"the", "and", "of", "for", "de", "la", "le", "van", "von", "der", "del", "da", "di"})


def deletions(word: str) -> Iterator[str]:
    """The word with one letter left out, each way: two words one typo apart share one of them."""
    for i in range(len(word)):
        yield word[:i] + word[i + 1:]


def name_keys(form: NameForm) -> set[str]:
    """The blocking keys of one written name."""
    tokens = form.tokens
    if not tokens:
        return set()
    keys = {"c:" + form.compact}
    keys.update("w:" + t for t in tokens if len(t) >= MIN_WORD and t not in STOP_WORDS)
    if len(tokens) == 1:
        word = tokens[0]
        keys.add("h:" + word)  # a handle that runs a name's words together: found by the name's spellings
        if len(word) >= 5:
            keys.update("d:" + d for d in deletions(word))
        return keys
    first, last = tokens[0], tokens[-1]
    keys.update("h:" + spelling for spelling in handle_spellings(form))
    if len(last) >= 2:
        keys.add(f"i:{first[0]}|{last}")
        keys.add(f"i:{last[0]}|{first}")  # the same name written family name first
        keys.add(f"p:{first[0]}|{metaphone(last)}")
        if len(last) >= 4:
            keys.update(f"d:{first[0]}|{d}" for d in deletions(last))
        if len(first) >= 2:
            keys.update(f"n:{canonical}|{last}" for canonical in canonical_given_names(first))
    return keys


def entity_keys(names: Iterable[str]) -> set[str]:
    """The keys of an entity: those of its name and of each alias."""
    found: set[str] = set()
    for name in names:
        found |= name_keys(parse(name))
    return found


@dataclass
class Blocks:
    """Entities grouped by key (by position in the list they were given in)."""

    members: dict[str, list[int]] = field(default_factory=dict)
    max_block: int = MAX_BLOCK

    @classmethod
    def of(cls, names: Iterable[Iterable[str]], max_block: int = MAX_BLOCK) -> Blocks:
        blocks = cls(max_block=max_block)
        for position, entity_names in enumerate(names):
            for key in entity_keys(entity_names):
                blocks.members.setdefault(key, []).append(position)
        return blocks

    def pairs(self) -> set[tuple[int, int]]:
        """Every pair of entities sharing a key whose block is small enough, ``(i, j)`` with ``i < j``."""
        found: set[tuple[int, int]] = set()
        for members in self.members.values():
            if 1 < len(members) <= self.max_block:
                ordered = sorted(set(members))
                found.update((a, b) for n, a in enumerate(ordered) for b in ordered[n + 1:])
        return found

    def candidates_of(self, names: Iterable[str]) -> set[int]:
        """The entities a new entity with these names would be compared with."""
        found: set[int] = set()
        for key in entity_keys(names):
            members = self.members.get(key, ())
            if len(members) < self.max_block:
                found.update(members)
        return found
