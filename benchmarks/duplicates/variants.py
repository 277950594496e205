"""How people and agents write a name they already wrote otherwise: the variants of the evaluation.

Each function takes a person's display name (qualifier left out) and a seeded ``random.Random``, and
returns a variant or None when it does not apply (no middle name to drop, no nickname known, no accent
or punctuation to lose). Nicknames come from the ``nicknames`` package (Apache-2.0, hand-curated English
given names and their nicknames), read at run time.
"""

from __future__ import annotations

import random
import re
import unicodedata
from collections.abc import Callable
from functools import cache

SUFFIX_WORDS = frozenset({"jr.", "sr.", "jr", "sr", "ii", "iii", "iv"})
_KEYBOARD = {
    "a": "qwsz", "b": "vghn", "c": "xdfv", "d": "serfcx", "e": "wsdr", "f": "drtgvc", "g": "ftyhbv", "h": "gyujnb",
    "i": "ujko", "j": "huikmn", "k": "jiolm", "l": "kop", "m": "njk", "n": "bhjm", "o": "iklp", "p": "ol",
    "q": "wa", "r": "edft", "s": "awedxz", "t": "rfgy", "u": "yhji", "v": "cfgb", "w": "qase", "x": "zsdc",
    "y": "tghu", "z": "asx",
}


def words(name: str) -> list[str]:
    """The words of a name, a generational suffix left out (it stays with the family name)."""
    found = name.split()
    return found[:-1] if len(found) > 2 and found[-1].casefold() in SUFFIX_WORDS else found


def strip_accents(text: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))


def _ascii_word(word: str) -> str:
    return re.sub(r"[^a-z0-9]", "", strip_accents(word).casefold())


@cache
def _nicknames() -> dict[str, list[str]]:
    """Given name -> its nicknames, and nickname -> its given names (both ways, sorted for determinism)."""
    from nicknames import name_triplets

    table: dict[str, set[str]] = {}
    for t in name_triplets():
        if t.relationship == "has_nickname":
            table.setdefault(t.name1, set()).add(t.name2)
            table.setdefault(t.name2, set()).add(t.name1)
    return {k: sorted(v) for k, v in table.items()}


def initials(name: str, rng: random.Random) -> str | None:
    """``D. Reyes``, or ``Dana M. Reyes`` for a name with a middle name."""
    w = words(name)
    if len(w) < 2 or len(w[0]) < 2:
        return None
    if len(w) >= 3 and rng.random() < 0.5:
        return " ".join([w[0], *(m[0] + "." for m in w[1:-1]), w[-1]])
    return f"{w[0][0]}. {w[-1]}"


def dropped_middle(name: str, rng: random.Random) -> str | None:
    w = words(name)
    return f"{w[0]} {w[-1]}" if len(w) >= 3 else None


def nickname(name: str, rng: random.Random) -> str | None:
    """The given name replaced by a nickname (``Robert`` -> ``Bob``) or a nickname by its given name."""
    w = words(name)
    options = _nicknames().get(w[0].casefold()) if len(w) >= 2 else None
    if not options:
        return None
    return " ".join([rng.choice(options).capitalize(), *w[1:]])


def case_and_accents(name: str, rng: random.Random) -> str | None:
    """Accents, punctuation or case lost (``José García`` -> ``jose garcia``); None if only the case would
    change (the memory already reads those as one name)."""
    plain = strip_accents(name)
    plain = re.sub(r"[.,'’]", "", plain) if rng.random() < 0.7 else plain
    changed = rng.choice([plain.lower(), plain.upper(), plain])
    return changed if changed.casefold() != name.casefold() else None


def typo(name: str, rng: random.Random) -> str | None:
    """One slip of the keyboard in a word of four letters or more, not its first letter."""
    w = words(name)
    candidates = [i for i, word in enumerate(w) if len(word) >= 4 and word.isalpha()]
    if not candidates:
        return None
    i = rng.choice(candidates)
    word = w[i]
    k = rng.randrange(1, len(word) - 1)
    kind = rng.choice(["swap", "substitute", "drop", "double"])
    if kind == "swap":
        new = word[:k] + word[k + 1] + word[k] + word[k + 2:]
    elif kind == "substitute":
        near = _KEYBOARD.get(word[k].lower())
        if not near:
            return None
        new = word[:k] + rng.choice(near) + word[k + 1:]
    elif kind == "drop":
        new = word[:k] + word[k + 1:]
    else:
        new = word[:k] + word[k] + word[k:]
    if new == word:
        return None
    return " ".join([*w[:i], new, *w[i + 1:]])


def email(name: str, rng: random.Random) -> str | None:
    """The local part of an e-mail address: ``dana.reyes``, ``dreyes``, ``dana_reyes42`` (the memory refuses
    an address itself as a name: its secret policy counts e-mail addresses as personal data)."""
    w = [_ascii_word(x) for x in words(name)]
    w = [x for x in w if x]
    if len(w) < 2:
        return None
    first, last = w[0], w[-1]
    local = rng.choice([f"{first}.{last}", f"{first[0]}{last}", f"{first}_{last}", f"{first}{last}",
                        f"{first}.{last}{rng.randrange(1, 99)}"])
    return local


def handle(name: str, rng: random.Random) -> str | None:
    """``@danareyes``, ``dreyes``, ``dana_reyes``."""
    w = [_ascii_word(x) for x in words(name)]
    w = [x for x in w if x]
    if len(w) < 2:
        return None
    first, last = w[0], w[-1]
    return rng.choice([f"@{first}{last}", f"{first[0]}{last}", f"{first}_{last}", f"@{first}.{last}"])


def title(name: str, rng: random.Random) -> str | None:
    """``Dr. Dana Reyes``, ``Prof. D. Reyes``."""
    w = words(name)
    if len(w) < 2:
        return None
    honorific = rng.choice(["Dr.", "Prof.", "Dr", "Mr.", "Ms."])
    body = " ".join([w[0][0] + ".", w[-1]]) if rng.random() < 0.3 else " ".join(w)
    return f"{honorific} {body}"


def reordered(name: str, rng: random.Random) -> str | None:
    """``Reyes, Dana``."""
    w = words(name)
    return f"{w[-1]}, {' '.join(w[:-1])}" if len(w) >= 2 else None


KINDS: dict[str, Callable[[str, random.Random], str | None]] = {
    "initials": initials, "dropped middle name": dropped_middle, "nickname": nickname,
    "case and accents": case_and_accents, "typo": typo, "e-mail": email, "handle": handle, "title": title,
    "family name first": reordered,
}
"""Each way a variant is written, by name."""
