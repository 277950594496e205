"""Blocking: which pairs of entities are worth comparing, without comparing all pairs.

Each name gives a few keys: the name run together, its words sorted, each word whole with half of the
other (two names one typo apart share one), the phonetic key of the family name, the canonical given name
with the family name, and one-sided keys that pair an initial, a handle or a one-word name with the names
it may stand for; two entities are compared only if they share a key whose block is small
(:data:`MAX_BLOCK`). A 100k-entity scope gives a few hundred thousand pairs instead of five billion,
and a write's new entities only with the entities of their own keys (``propose(..., only=...)``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field

from jellyfish import metaphone

from synapse_graph.rules.names import ORG_WORDS, NameForm, canonical_given_names, parse

MAX_BLOCK = 60
"""Entities sharing a key beyond this many are not compared through it (``john``, ``smith``); their rarer
keys (``j|smith``) still pair them."""
ONE_SIDED = frozenset("whi")
"""Kinds of keys that pair only a name asking through them with the rest of its block (see name_keys)."""
MIN_WORD = 3
"""Words shorter than this give no key of their own (initials, ``de``, ``le``)."""
STOP_WORDS = frozenset({"the", "and", "of", "for", "de", "la", "le", "van", "von", "der", "del", "da", "di"})


def name_keys(form: NameForm) -> dict[str, bool]:
    """The blocking keys of one written name, each saying whether this name *asks* through it. Keys of the
    kinds in :data:`ONE_SIDED` pair only an asking name with the others of its block: a one-word name with the
    names that have that word or spell it run together (``Dana``, ``dreyes``), a name with an initial with
    the names whose word it may stand for (``D. Reyes``, ``Dana R.``). The other keys pair their whole block."""
    tokens = form.tokens
    if not tokens:
        return {}
    keys = {"c:" + form.compact: True}
    if len(tokens) == 1:
        keys["w:" + tokens[0]] = True
        keys["h:" + tokens[0]] = True
        return keys
    for t in tokens:
        if len(t) >= MIN_WORD and t not in STOP_WORDS:
            keys["w:" + t] = False
    keys["o:" + " ".join(sorted(t for t in tokens if t not in ORG_WORDS))] = True  # other order, no Inc.
    first, last = tokens[0], tokens[-1]
    f0, l0 = first[0], last[0]
    keys["h:" + first + last] = False
    keys["h:" + f0 + last] = False
    keys[f"i:{f0}|{last}"] = len(first) == 1
    keys[f"i:{l0}|{first}"] = len(last) == 1
    # One typo in a word leaves its first half or the rest after the letter that follows it as they were: two
    # names one typo apart share one of these with the other word whole.
    for whole, word in ((last, first), (first, last)):
        if len(word) >= 4:
            half = len(word) // 2
            keys[f"t:{whole}|{word[:half]}<"] = True
            keys[f"t:{whole}|>{word[-max(2, len(word) - half - 1):]}"] = True
    if len(last) >= 4:
        keys[f"p:{first}|{metaphone(last)}"] = True  # the family name spelled as it sounds
    if len(first) >= 2:  # the given names a nickname stands for (each given name stands for itself)
        for c in canonical_given_names(first):
            keys[f"n:{c}|{last}"] = True
    return keys


def entity_keys(names: Iterable[str]) -> dict[str, bool]:
    """The keys of an entity, those of its name and of each alias (asking through a key if one name does)."""
    found: dict[str, bool] | None = None
    for name in names:
        keys = name_keys(parse(name))
        if found is None:
            found = keys
            continue
        for key, asks in keys.items():
            found[key] = found.get(key, False) or asks
    return found or {}


@dataclass
class Blocks:
    """Entities grouped by key (by position in the list they were given in), with those asking through it. Only
    the blocks that pair anything are kept: two to ``max_block`` members."""

    members: dict[str, list[int]] = field(default_factory=dict)
    askers: dict[str, list[int]] = field(default_factory=dict)
    max_block: int = MAX_BLOCK

    @classmethod
    def of(cls, names: Iterable[Iterable[str]], max_block: int = MAX_BLOCK) -> Blocks:
        """The blocks of the entities (each given by its names). A one-sided key counts only where some entity
        asks through it: most names have no initial and are more than one word, so most such keys pair nothing.

        Most keys belong to one entity: they are counted first (no list is made for them), and lists are made
        for the blocks that pair (a 100k-entity scope has some 700k keys, a few percent of them shared)."""
        blocks = cls(max_block=max_block)
        keyed = [entity_keys(entity_names) for entity_names in names]
        askers = blocks.askers
        for position, keys in enumerate(keyed):
            for key, asks in keys.items():
                if asks and key[0] in ONE_SIDED:
                    found = askers.get(key)
                    if found is None:
                        askers[key] = [position]
                    else:
                        found.append(position)
        sizes = Counter(key for keys in keyed for key in keys if key[0] not in ONE_SIDED or key in askers)
        kept = {key for key, size in sizes.items() if 1 < size <= max_block}
        members = blocks.members
        for position, keys in enumerate(keyed):
            for key in kept.intersection(keys):
                found = members.get(key)
                if found is None:
                    members[key] = [position]
                else:
                    found.append(position)
        return blocks

    def pairs(self) -> set[tuple[int, int]]:
        """Every pair worth comparing, ``(i, j)`` with ``i < j``: sharing a key whose block is small enough (for
        a one-sided key, one of the two asking through it)."""
        found: set[tuple[int, int]] = set()
        askers = self.askers
        for key, members in self.members.items():
            if 1 < len(members) <= self.max_block:
                if key[0] in ONE_SIDED:
                    found.update((a, b) if a < b else (b, a) for a in askers.get(key, ()) for b in members if a != b)
                else:
                    found.update((a, b) for n, a in enumerate(members) for b in members[n + 1:])
        return found
