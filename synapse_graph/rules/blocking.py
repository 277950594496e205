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
from itertools import chain

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
    return {**dict.fromkeys(pairing_keys(form), True), **one_sided_keys(form)}


def pairing_keys(form: NameForm) -> dict[str, None]:
    """The keys of a name that pair their whole block: the name run together, its words sorted, each word whole
    with half of the other, the family name as it sounds, the canonical given names with the family name."""
    tokens = form.tokens
    if not tokens:
        return {}
    keys: dict[str, None] = {"c:" + form.compact: None}
    if len(tokens) == 1:
        return keys
    keys["o:" + " ".join(sorted(t for t in tokens if t not in ORG_WORDS))] = None  # other order, no Inc.
    first, last = tokens[0], tokens[-1]
    # One typo in a word leaves its first half or the rest after the letter that follows it as they were: two
    # names one typo apart share one of these with the other word whole.
    for whole, word in ((last, first), (first, last)):
        if len(word) >= 4:
            half = len(word) // 2
            keys[f"t:{whole}|{word[:half]}<"] = None
            keys[f"t:{whole}|>{word[-max(2, len(word) - half - 1):]}"] = None
    if len(last) >= 4:
        keys[f"p:{first}|{metaphone(last)}"] = None  # the family name spelled as it sounds
    if len(first) >= 2:  # the given names a nickname stands for (each given name stands for itself)
        for c in canonical_given_names(first):
            keys[f"n:{c}|{last}"] = None
    return keys


def one_sided_keys(form: NameForm) -> dict[str, bool]:
    """The one-sided keys of a name (:data:`ONE_SIDED`), each saying whether this name asks through it: a word
    (a one-word name asks), the name run together as a handle may spell it (a one-word name asks), an initial
    with the other word (a name with that initial asks)."""
    tokens = form.tokens
    if not tokens:
        return {}
    if len(tokens) == 1:
        return {"w:" + tokens[0]: True, "h:" + tokens[0]: True}
    keys = {"w:" + t: False for t in tokens if len(t) >= MIN_WORD and t not in STOP_WORDS}
    first, last = tokens[0], tokens[-1]
    f0, l0 = first[0], last[0]
    keys["h:" + first + last] = False
    keys["h:" + f0 + last] = False
    keys[f"i:{f0}|{last}"] = len(first) == 1
    keys[f"i:{l0}|{first}"] = len(last) == 1
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


def asking_keys(names: Iterable[str]) -> dict[str, None]:
    """The one-sided keys an entity asks through (most entities: none), those :func:`entity_keys` marks."""
    return {key: None for name in names for key in _asking(parse(name))}


def _asking(form: NameForm) -> list[str]:
    """The one-sided keys a name asks through (most names: none), as :func:`one_sided_keys` says, without
    making the others."""
    tokens = form.tokens
    if not tokens:
        return []
    if len(tokens) == 1:
        return ["w:" + tokens[0], "h:" + tokens[0]]
    first, last = tokens[0], tokens[-1]
    return [key for key, asks in ((f"i:{first[0]}|{last}", len(first) == 1), (f"i:{last[0]}|{first}",
                                                                               len(last) == 1)) if asks]


class _Asked:
    """The one-sided keys some entity asks through, by kind, to find another name's such keys without making
    every one (most multi-word names have a dozen keys, and most of their one-sided ones pair nothing)."""

    def __init__(self, keys: Iterable[str]) -> None:
        self.words = {k[2:] for k in keys if k[0] == "w"}
        self.runs = {k[2:] for k in keys if k[0] == "h"}
        self.initials = {k[2:] for k in keys if k[0] == "i"}
        self.initial_words = {k.rsplit("|", 1)[1] for k in keys if k[0] == "i"}

    def of(self, form: NameForm) -> list[str]:
        """The one-sided keys of a name (:func:`one_sided_keys`) that some entity asks through."""
        tokens = form.tokens
        if len(tokens) <= 1:
            return list(one_sided_keys(form))
        found = ["w:" + t for t in tokens if t in self.words and len(t) >= MIN_WORD and t not in STOP_WORDS]
        first, last = tokens[0], tokens[-1]
        for run in (first + last, first[0] + last):
            if run in self.runs:
                found.append("h:" + run)
        for initial, word in ((first[0], last), (last[0], first)):
            if word in self.initial_words and f"{initial}|{word}" in self.initials:
                found.append(f"i:{initial}|{word}")
        return list(dict.fromkeys(found)) if len(found) > 1 else found  # a word twice, an initial for a first name


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
        asks through it: most names have no initial and are more than one word, so most such keys pair nothing;
        they are found from the asking keys (not made for every name and counted).

        Most keys belong to one entity: they are counted first (no list is made for them), and lists are made
        for the blocks that pair (a 100k-entity scope has some 700k keys, a few percent of them shared)."""
        blocks = cls(max_block=max_block)
        forms = [[parse(name) for name in entity_names] for entity_names in names]
        askers = blocks.askers
        for position, entity in enumerate(forms):
            for form in entity:
                for key in _asking(form):
                    asking = askers.setdefault(key, [])
                    if not asking or asking[-1] != position:
                        asking.append(position)
        asked = _Asked(askers)
        keyed = [pairing_keys(entity[0]) if len(entity) == 1 else
                 {key: None for form in entity for key in pairing_keys(form)} for entity in forms]
        sizes = Counter(chain.from_iterable(keyed))
        kept = {key for key, size in sizes.items() if 1 < size <= max_block}
        members = blocks.members
        for position, keys in enumerate(keyed):
            for key in kept.intersection(keys):
                found = members.get(key)
                if found is None:
                    members[key] = [position]
                else:
                    found.append(position)
            entity = forms[position]
            for key in dict.fromkeys(k for form in entity for k in asked.of(form)) if len(entity) > 1 else \
                    asked.of(entity[0]):
                members.setdefault(key, []).append(position)
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
