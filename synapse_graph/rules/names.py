"""How people and agents write one name: its parts read apart, and how well two names agree.

Pure rules, no I/O. A name is folded (ASCII transliteration, case-folded, punctuation to
spaces: ``"José O'Brien-Díaz"`` -> ``jose obrien diaz``), titles and suffixes are set apart
(``Dr.``, ``Jr.``), a trailing parenthesis is a qualifier (``James Welch (writer)``), an
e-mail or handle is read as the name it spells (``dana.reyes@acme.com`` -> ``dana reyes``),
and ``Reyes, Dana`` is put back in order. :func:`compare` says how two such forms agree
(equal, dropped middle name, initials, nickname, typo, a handle spelling the name) and what
speaks against it (two different qualifiers, ``Jr.`` against ``Sr.``, two different middle names).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

from anyascii import anyascii
from rapidfuzz.distance import DamerauLevenshtein
from rapidfuzz.fuzz import token_sort_ratio

TITLES = frozenset({
    "mr", "mrs", "ms", "miss", "mx", "dr", "doctor", "prof", "professor", "sir", "dame", "lord", "lady", "rev",
    "reverend", "fr", "hon", "capt", "captain", "col", "gen", "sgt", "lt", "mme", "mlle", "herr", "frau", "madam",
    "phd", "md", "esq", "mba",
})
"""Words before or after a name that say who the person is, not which one."""
SUFFIXES = frozenset({"jr", "sr", "jnr", "snr", "ii", "iii", "iv", "v"})
"""Generational suffixes: two different ones name two people (father and son)."""
THING_WORDS = frozenset({
    "film", "movie", "album", "novel", "book", "song", "single", "series", "tv", "band", "game", "play", "opera",
    "magazine", "newspaper", "company", "ship", "software", "framework", "language", "car", "poem", "franchise",
    "memoir", "painting", "musical", "brand", "station", "channel", "party", "club", "team", "award", "prize",
})
"""Words of a qualifier that say an entity is a work, a company or another thing, not a person."""
ORG_WORDS = frozenset({"inc", "corp", "corporation", "ltd", "llc", "plc", "gmbh", "co", "company", "sa", "ag", "the"})
"""Words of organisation names that two spellings of one organisation may leave out."""

_QUALIFIER = re.compile(r"\s*\(([^()]*)\)\s*$")
_EMAIL = re.compile(r"^\s*([^\s@]+)@([a-z0-9.-]+\.[a-z]{2,})\s*$", re.IGNORECASE)
_HANDLE = re.compile(r"^\s*@?([a-z0-9]+(?:[._-][a-z0-9]+)*)\s*$", re.IGNORECASE)
_APOSTROPHE = re.compile(r"['’`´]")
_NOT_WORD = re.compile(r"[^a-z0-9]+")
_TRAILING_DIGITS = re.compile(r"(?<=[a-z])\d+$")


def fold(text: str) -> str:
    """ASCII, case-folded, apostrophes dropped, any other run of punctuation or space one space."""
    ascii_text = (text if text.isascii() else anyascii(text)).casefold()
    return _NOT_WORD.sub(" ", _APOSTROPHE.sub("", ascii_text)).strip()


class NameForm:
    """One written name read apart (a plain class with slots: a scope's names are read apart by the hundred
    thousand)."""

    __slots__ = ("compact", "handle", "mark", "numbers", "qualifier", "suffix", "text", "titled", "tokens")

    def __init__(self, text: str, tokens: tuple[str, ...], qualifier: str = "", suffix: str = "",
                 handle: bool = False, titled: bool = False) -> None:
        self.text = text
        """As written."""
        self.tokens = tokens
        """The name's words, folded, titles and suffixes left out, in given-name-first order."""
        self.qualifier = qualifier
        """A trailing parenthesis, folded (``writer`` of ``James Welch (writer)``)."""
        self.suffix = suffix
        """A generational suffix (``jr``)."""
        self.handle = handle
        """Read from an e-mail address or a handle: its words may be run together (``dreyes``)."""
        self.titled = titled
        self.compact = "".join(tokens)
        """The words run together: two spellings that differ only in case, accents, punctuation or spaces agree."""
        self.numbers = _NO_NUMBERS if self.compact.isalpha() else frozenset(
            t for t in tokens if any(c.isdigit() for c in t))
        """Words with digits (``21`` of ``under-21``): two names with different ones name different things."""
        last = tokens[-1] if len(tokens) >= 3 else ""
        self.mark = last if len(last) == 1 or last in SUFFIXES else ""
        """A trailing letter or Roman numeral after a name of three words or more (``FC Barcelona C``)."""

    def __repr__(self) -> str:
        return f"NameForm({self.text!r}, tokens={self.tokens!r})"

    @property
    def initials(self) -> tuple[str, ...]:
        return tuple(t[0] for t in self.tokens)


_SPECIAL = re.compile(r"[(@,._]")
_NO_NUMBERS: frozenset[str] = frozenset()


@cache
def parse(text: str) -> NameForm:
    """Read a written name apart (cached: names come back often)."""
    if " " in text and not _SPECIAL.search(text):  # the common case: plain words
        words = fold(text).split()
        if not TITLES.intersection(words) and not SUFFIXES.intersection(words):
            return NameForm(text, tuple(words))
    qualifier = ""
    body = text
    match = _QUALIFIER.search(body)
    if match and match.start() > 0:
        qualifier, body = fold(match.group(1)), body[: match.start()]
    email = _EMAIL.match(body)
    plain = body.strip()
    handle = email is not None or (" " not in plain and bool(_HANDLE.match(anyascii(plain)))
                                   and (plain.startswith("@") or bool(re.search(r"[a-z][._][a-z]", plain, re.I))))
    if email is not None:
        body = email.group(1)
    if handle:
        words = [_TRAILING_DIGITS.sub("", w) or w for w in fold(body).split()]
        return NameForm(text=text, tokens=tuple(words), qualifier=qualifier, handle=True)
    if body.count(",") == 1:
        last, first = body.split(",")
        if first.strip() and last.strip() and len(fold(first).split()) <= 3 and len(fold(last).split()) <= 2 \
                and fold(first) not in SUFFIXES:
            body = f"{first} {last}"
    words = fold(body).split()
    suffix = next((w for w in reversed(words) if w in SUFFIXES), "") if len(words) > 2 else ""
    kept = [w for w in words if w not in TITLES and (not suffix or w != suffix)]
    titled = len(kept) < len(words) - (1 if suffix else 0)
    return NameForm(text=text, tokens=tuple(kept or words), qualifier=qualifier, suffix=suffix, titled=titled)


# -- nicknames ---------------------------------------------------------------------------------------------


@cache
def _nickname_table() -> dict[str, frozenset[str]]:
    """Given name -> the canonical names it may stand for, itself included (the ``nicknames`` data set,
    Apache-2.0: hand-curated English given names and their nicknames)."""
    from nicknames import name_triplets

    table: dict[str, set[str]] = {}
    for triplet in name_triplets():
        if triplet.relationship == "has_nickname":
            table.setdefault(triplet.name2, {triplet.name2}).add(triplet.name1)
            table.setdefault(triplet.name1, {triplet.name1})
    return {name: frozenset(canon) for name, canon in table.items()}


def canonical_given_names(token: str) -> frozenset[str]:
    """The given names a (folded) first name may be short for, itself included."""
    return _nickname_table().get(token, frozenset({token}))


def nicknames_agree(a: str, b: str) -> bool:
    """Two different given names one person may go by (``bob`` and ``robert``)."""
    return a != b and bool(canonical_given_names(a) & canonical_given_names(b))


def _given_names(a: str, b: str) -> bool:
    """Both words are given names of their own (neither a nickname of the other)."""
    table = _nickname_table()
    return a in table and b in table and not nicknames_agree(a, b)


# -- comparing two names ------------------------------------------------------------------------------------


EQUAL, NICKNAME, TYPO, INITIAL = "equal", "nickname", "typo", "initial"


def token_agreement(a: str, b: str, *, first: bool = False) -> str | None:
    """How two words of names agree: equal, an initial of the other, a nickname (first names only),
    or one typo apart (words of 4 letters or more; a transposition is one typo); None if they do not."""
    if a == b:
        return EQUAL
    if (len(a) == 1 and b.startswith(a)) or (len(b) == 1 and a.startswith(b)):
        return INITIAL
    if min(len(a), len(b)) >= 4 and a[0] == b[0] and DamerauLevenshtein.distance(a, b, score_cutoff=1) <= 1:
        return TYPO
    if first and min(len(a), len(b)) >= 2 and nicknames_agree(a, b):
        return NICKNAME
    return None


@dataclass(frozen=True)
class NameMatch:
    """How two written names agree, as evidence for one entity."""

    kind: str
    """``same name``, ``same words``, ``dropped middle name``, ``initials``, ``nickname``, ``typo``,
    ``handle``, ``partial name``, ``similar name`` or ``different`` (no agreement worth counting)."""
    strength: float
    """Log-odds this agreement adds (0 for ``different``)."""
    text: str
    """For people: what agrees, e.g. ``'D. Reyes' is 'Dana Reyes' with the given name as an initial``."""
    against: tuple[tuple[str, float, str], ...] = ()
    """What in the names speaks against one entity: (kind, log-odds, text)."""
    surname: str = ""
    """The word the agreement rests on (the family name), for its rarity in the scope."""
    dropped: tuple[str, ...] = ()
    """Words of the longer name the shorter leaves out (a middle name, or words telling two things apart)."""


NO_MATCH = NameMatch("different", 0.0, "the names do not agree")

# Log-odds each kind of agreement adds; the weights and why are in docs/duplicates.md.
STRENGTH = {
    "same name": 8.0, "same words": 6.5, "dropped middle name": 5.5, "handle": 6.0, "nickname": 5.0,
    "typo": 5.0, "initials": 4.5, "handle initials": 4.5, "partial name": 2.0, "similar name": 3.5,
}


def compare(a: NameForm, b: NameForm) -> NameMatch:
    """How two names agree, and what in them speaks against one entity."""
    against: list[tuple[str, float, str]] = []  # filled by _match, only for names that agree
    if not a.tokens or not b.tokens:
        return NO_MATCH
    if a.compact == b.compact:
        return _match("same name", a, b, against, a.tokens[-1], "differ only in case, accents, punctuation or "
                      "spacing" + (" and a title" if a.titled or b.titled else ""))
    for one, other in ((a, b), (b, a)):
        if len(one.tokens) == 1 and len(other.tokens) >= 2 and len(one.tokens[0]) >= 4:
            how = handle_spellings(other).get(one.tokens[0])
            if how is not None:
                return _match(how, one, other, against, other.tokens[-1], "is a handle spelling the name"
                              + (" with initials" if how == "handle initials" else ""))
    # The shorter first; of two as long, the first in word order, so the answer never depends on the order asked.
    short, long = (a, b) if (len(a.tokens), a.tokens) <= (len(b.tokens), b.tokens) else (b, a)
    kinds = _align(short.tokens, long.tokens)
    if kinds is None and len(short.tokens) == len(long.tokens) == 2:  # the same two words, family name first
        turned = _align(tuple(reversed(short.tokens)), long.tokens)
        handle = short.handle or long.handle  # reyes_d: a handle may put the initial last
        kinds = turned if turned is not None and (handle or all(how == EQUAL for _, _, how in turned)) else None
    if kinds is not None:
        return _aligned(short, long, kinds, against)
    ratio = token_sort_ratio(" ".join(t for t in a.tokens if t not in ORG_WORDS),
                             " ".join(t for t in b.tokens if t not in ORG_WORDS))
    if ratio >= 90 and min(len(a.tokens), len(b.tokens)) >= 2:
        return _match("similar name", a, b, against, "", f"have nearly the same words (token-sort ratio {ratio:.0f})")
    return NO_MATCH


def _match(kind: str, a: NameForm, b: NameForm, against: list[tuple[str, float, str]], surname: str, how: str
           ) -> NameMatch:
    return NameMatch(kind, STRENGTH[kind], f"{a.text!r} and {b.text!r} {how}", (*_against(a, b), *against), surname)


def _against(a: NameForm, b: NameForm) -> list[tuple[str, float, str]]:
    found: list[tuple[str, float, str]] = []
    if a.qualifier and b.qualifier and a.qualifier != b.qualifier:
        found.append(("different qualifiers", -8.0, f"{a.text!r} and {b.text!r} are told apart by their "
                                                    f"qualifiers ({a.qualifier} / {b.qualifier})"))
    if a.suffix and b.suffix and a.suffix != b.suffix:
        found.append(("different suffixes", -6.0, f"{a.text!r} and {b.text!r} have different generational "
                                                  f"suffixes ({a.suffix} / {b.suffix})"))
    elif bool(a.qualifier) != bool(b.qualifier):
        qualified = a if a.qualifier else b
        if set(qualified.qualifier.split()) & THING_WORDS:
            found.append(("qualified as a thing", -5.0, f"{qualified.text!r} is qualified as a kind of thing "
                                                        f"({qualified.qualifier}) the other name does not say"))
        else:
            found.append(("qualified name", -2.0, f"{qualified.text!r} is qualified ({qualified.qualifier}) to tell "
                                                  "it from another entity of that name"))
    if bool(a.suffix) != bool(b.suffix):
        suffixed = a if a.suffix else b
        found.append(("suffixed name", -2.5, f"{suffixed.text!r} has a generational suffix ({suffixed.suffix}) "
                                             "the other name lacks"))
    if a.numbers != b.numbers:
        found.append(("different numbers", -5.0, f"{a.text!r} and {b.text!r} differ in their numbers"))
    elif a.mark != b.mark and len(a.tokens) > 1 and len(b.tokens) > 1:
        found.append(("different marks", -5.0, f"{a.text!r} and {b.text!r} end with different letters that tell "
                                               "them apart"))
    return found


def _align(short: tuple[str, ...], long: tuple[str, ...]) -> list[tuple[int, int, str]] | None:
    """Each word of the shorter name matched, in order, to a word of the longer (its first and last words
    to the longer's first and last, when both have two or more): (index in short, index in long, how)."""
    if len(short) == 1:
        for j, word in enumerate(long):
            how = token_agreement(short[0], word, first=j == 0)
            if how in (EQUAL, TYPO):
                return [(0, j, how)]
        return None
    first = token_agreement(short[0], long[0], first=True)
    last = token_agreement(short[-1], long[-1])
    if first is None or last is None:
        return None
    if last == INITIAL and ((len(short) > 2 and len(short[-1]) == 1) or (len(long) > 2 and len(long[-1]) == 1)):
        return None  # a trailing letter after a longer name tells it apart (Real Betis B), it is no initial
    pairs = [(0, 0, first)]
    j = 1
    for i in range(1, len(short) - 1):  # middle words: matched in order, or the names disagree
        while j < len(long) - 1 and token_agreement(short[i], long[j]) is None:
            j += 1
        if j >= len(long) - 1:
            return None
        pairs.append((i, j, token_agreement(short[i], long[j]) or EQUAL))
        j += 1
    pairs.append((len(short) - 1, len(long) - 1, last))
    return pairs


def _aligned(short: NameForm, long: NameForm, pairs: list[tuple[int, int, str]],
             against: list[tuple[str, float, str]]) -> NameMatch:
    hows = [how for _, _, how in pairs]
    surname = long.tokens[pairs[-1][1]] if len(pairs) > 1 else short.tokens[0]
    if len(short.tokens) == 1:
        kind = "typo" if hows == [TYPO] and len(long.tokens) == 1 else "partial name"
        return _match(kind, short, long, against, surname,
                      "share one word" if kind == "partial name" else "are one typo apart")
    if hows[-1] == INITIAL and len(long.tokens[-1]) > 1 and len(short.tokens[-1]) == 1:
        return _match("partial name", short, long, against, short.tokens[0], "agree on the given name, the family "
                      "name given as an initial")
    if any(len(long.tokens[j]) == 1 < len(short.tokens[i]) for i, j, _ in pairs) and any(
            len(short.tokens[i]) == 1 < len(long.tokens[j]) for i, j, _ in pairs):
        return _match("partial name", short, long, against, surname, "agree only as initials of each other")
    if INITIAL in hows:
        if TYPO in hows:
            return NO_MATCH  # an initial and a typo: too little left to say one name
        return _match("initials", short, long, against, surname, "agree, with initials for some words")
    if TYPO in hows:
        if hows.count(TYPO) > 1 or (hows[-1] == TYPO and hows[0] != EQUAL):
            return NO_MATCH
        if hows[0] == TYPO and _given_names(short.tokens[0], long.tokens[0]):
            return NO_MATCH  # Michel and Michael: two given names, not one mistyped
        found = _match("typo", short, long, against, surname, "are one typo apart")
        return NameMatch(found.kind, found.strength + 0.5 * (hows.count(EQUAL) - 1), found.text, found.against,
                         found.surname)
    if NICKNAME in hows:
        return _match("nickname", short, long, against, surname, f"agree, {short.tokens[0]!r} / "
                      f"{long.tokens[0]!r} being one given name and its nickname")
    if len(short.tokens) == len(long.tokens):
        return _match("same words", short, long, against, surname, "have the same words")
    if len(short.tokens) != 2 or len(long.tokens) > 4:
        return NO_MATCH  # words left out of a longer name tell things apart more often than they are middle names
    kept = {j for _, j, _ in pairs}
    found = _match("dropped middle name", short, long, against, surname, "agree, one leaving out a middle name")
    return NameMatch(found.kind, found.strength, found.text, found.against, found.surname,
                     tuple(t for j, t in enumerate(long.tokens) if j not in kept))


def handle_spellings(form: NameForm) -> dict[str, str]:
    """The ways a handle may run a name's words together, each with how: ``danareyes``, ``dreyes``, ``danar``,
    ``reyesdana``, ``reyesd``, and ``dana`` alone (a person's handle is often the given name)."""
    t = form.tokens
    if len(t) < 2:
        return {t[0]: "handle"} if t else {}
    first, last = t[0], t[-1]
    spellings = {
        first + last: "handle", "".join(t): "handle", last + first: "handle",
        first[0] + last: "handle initials", first + last[0]: "handle initials", last + first[0]: "handle initials",
        first[0] + "".join(t[1:]): "handle initials",
        "".join(w[0] for w in t[:-1]) + last: "handle initials",
    }
    return {k: v for k, v in spellings.items() if len(k) >= 4}
