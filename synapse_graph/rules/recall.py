"""Pure rules of recall: the gate, identifier-aware tokens, BM25 ranking and RRF fusion."""

from __future__ import annotations

import hashlib
import math
import re
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache

from synapse_graph.rules.text import MAX_NAME_LENGTH

RRF_K = 60
MAX_ENTRY_ENTITIES = 8
MIN_PREFIX = 3
MAX_TERMS = 16
MAX_TERM_LENGTH = MAX_NAME_LENGTH
"""A longer word cannot be a word of any name, alias or type (nor a prefix of one): it is dropped,
which also keeps an absurd word out of the fulltext query (Lucene refuses huge prefix automata)."""
_WORD = re.compile(r"[^\W_]+")
_POSSESSIVE = re.compile(r"([^\W_])['’]s\b")  # "Okafor's team": the "s" is no word of the question

SMALL_TALK = frozenset(
    (
        "afternoon alright awesome bye cheers cool evening fine good goodbye great hello hey hi hmm lol "
        "morning nice night no nope ok okay please sorry sure thank thanks thx welcome yep yes"
    ).split()
)
STOPWORDS = frozenset(
    (
        "a about above after again against ago all am an and any anymore are as at be because been before "
        "being below between both but by can could current currently did do does doing down "
        "during each few for from further had has have having he her here hers herself him himself his how i "
        "if in into is it its itself just know last me more most my myself nor not now of off on once only or "
        "other our ours ourselves out over own remember same she should so some still such tell than that the "
        "their theirs them themselves then there these they this those through to too under until up very was "
        "we were what when where which while who whom why will with would you your yours yourself yourselves"
    ).split()
)


def words(text: str) -> list[str]:
    """Lower-case words of a text, splitting identifiers as developers write them.

    ``billingService``, ``billing_service``, ``billing-service`` and ``billing.service``
    all give ``["billing", "service"]``.
    """
    normalised = unicodedata.normalize("NFKC", text)
    found: list[str] = []
    for chunk in _WORD.findall(normalised):
        found.extend(part.casefold() for part in _split_case(chunk))
    return found


def _split_case(chunk: str) -> list[str]:
    """camelCase, PascalCase, acronyms and digits: ``parseHTTPResponse2`` -> parse, HTTP, Response, 2."""
    if len(chunk) < 2 or chunk.isdigit() or (chunk.isalpha() and chunk[1:].islower()):
        return [chunk]  # most words of names ("Project", "alpha", "12"): nothing to split (recall tokenises many)
    parts: list[str] = []
    current = ""
    for index, char in enumerate(chunk):
        if current:
            previous = current[-1]
            following = chunk[index + 1] if index + 1 < len(chunk) else ""
            if (
                (previous.islower() and char.isupper())
                or (previous.isupper() and char.isupper() and following.islower())
                or (previous.isdigit() != char.isdigit())
            ):
                parts.append(current)
                current = ""
        current += char
    parts.append(current)
    return parts


def search_text(*texts: str | None) -> str:
    """What the fulltext index holds for an entity or alias: its words and its joined identifiers."""
    tokens: list[str] = []
    for text in texts:
        if not text:
            continue
        tokens.extend(words(text))
        for chunk in re.split(r"\s+", unicodedata.normalize("NFKC", text)):
            joined = "".join(_WORD.findall(chunk)).casefold()
            if joined:
                tokens.append(joined)
    return " ".join(dict.fromkeys(tokens))


def scope_token(scope: str) -> str:
    """One word naming a scope inside the fulltext documents of its entities, aliases and observations.

    Neo4j's fulltext indexes span every scope on the server: with this word beside the searched text,
    a search requires it and the index itself keeps to the scope and cuts its best hits (letters and
    digits only, so it passes any analyzer and query parser unchanged).
    """
    return "s" + hashlib.sha256(scope.encode("utf-8")).hexdigest()[:24]


def possessives_out(text: str) -> str:
    """The text without the "s" of possessives ("Okafor's team" -> "Okafor team")."""
    return _POSSESSIVE.sub(r"\1", text)


def content_terms(query: str) -> list[str]:
    """The words of a question that can find entities; empty for small talk and empty questions."""
    terms = [w for w in words(possessives_out(query)) if w not in STOPWORDS and len(w) <= MAX_TERM_LENGTH]
    if all(t in SMALL_TALK for t in terms):
        return []
    return list(dict.fromkeys(t for t in terms if t not in SMALL_TALK))[:MAX_TERMS]


def searched_terms(terms: Sequence[str], hits: Mapping[str, int], cap: int) -> list[str]:
    """The terms the search for entity names looks for: those matching fewer than ``cap`` names.

    ``hits``: how many names each term matches, counted up to ``cap`` (absent: none). The search keeps
    its best ``cap - 1`` candidates, so a term matching ``cap`` names or more would fill it with names
    holding only that word, and costs an index that lists every match before sorting them a pass over
    thousands ("project", "entity", a number's prefix). While the question has rarer terms, a name
    worth ranking holds one of them (BM25 still scores every term of the names they find); a question
    of only common terms searches them all. A term that matches no name is not a rarer one: it finds
    nothing, so it never stands in for the common ones (a 1M-fact store answered "What does Blue service
    266 depend on?" with nothing when "depend" did). Nothing changes where no term reaches ``cap``.
    """
    rare = [t for t in terms if 0 < hits.get(t, 0) < cap]
    return rare or list(terms)


@dataclass(frozen=True)
class Candidate:
    key: str
    name: str
    text: str


def _matches(term: str, token: str) -> bool:
    return token == term or (len(term) >= MIN_PREFIX and token.startswith(term))


def bm25_rank(
    terms: Sequence[str], candidates: Iterable[Candidate], *, corpus_size: int, k1: float = 1.2, b: float = 0.75
) -> list[tuple[str, float]]:
    """BM25 scores of entities for the query terms (prefix matches from 3 letters).

    Scored here rather than by the database so both backends rank identically; the
    candidates come from the backend's fulltext index, which also gives each term's
    document frequency (every document holding a term is a candidate).
    """
    docs: dict[str, list[str]] = {}
    for candidate in candidates:
        docs.setdefault(candidate.key, []).extend(candidate.text.split())
    if not docs:
        return []
    total = max(corpus_size, len(docs))
    average = sum(len(tokens) for tokens in docs.values()) / len(docs)
    # the terms each distinct word matches, worked out once (names share most of their words)
    matched = {w: [t for t in terms if _matches(t, w)] for tokens in docs.values() for w in tokens}
    counts: dict[str, dict[str, int]] = {}
    for key, tokens in docs.items():
        tfs: dict[str, int] = {}
        for w in tokens:
            for t in matched[w]:
                tfs[t] = tfs.get(t, 0) + 1
        counts[key] = tfs
    frequency = {t: sum(1 for tfs in counts.values() if t in tfs) for t in terms}
    scores: dict[str, float] = {}
    for key, tokens in docs.items():
        score = 0.0
        for term in terms:
            tf = counts[key].get(term, 0)
            if tf == 0:
                continue
            idf = math.log(1 + (total - frequency[term] + 0.5) / (frequency[term] + 0.5))
            score += idf * tf * (k1 + 1) / (tf + k1 * (1 - b + b * len(tokens) / average))
        if score > 0:
            scores[key] = score
    return sorted(scores.items(), key=lambda item: (-item[1], item[0]))


def rrf(
    rankings: Mapping[str, Sequence[str]], *, k: int = RRF_K, limit: int = MAX_ENTRY_ENTITIES
) -> list[tuple[str, float, dict[str, int]]]:
    """Reciprocal rank fusion: (key, fused score, {leg: 1-based rank}) best first, deduplicated."""
    fused: dict[str, float] = {}
    ranks: dict[str, dict[str, int]] = {}
    for leg, keys in rankings.items():
        for position, key in enumerate(dict.fromkeys(keys), start=1):
            fused[key] = fused.get(key, 0.0) + 1.0 / (k + position)
            ranks.setdefault(key, {})[leg] = position
    ordered = sorted(fused.items(), key=lambda item: (-item[1], item[0]))[:limit]
    return [(key, score, ranks[key]) for key, score in ordered]


_SUFFIXES = ("ing", "ers", "er", "ed", "es", "s")
_IRREGULAR = {"led": "lead", "written": "writ", "wrote": "writ", "ran": "run", "built": "build", "spoke": "speak",
              "spoken": "speak", "knew": "know", "known": "know", "made": "mak", "held": "hold", "paid": "pay"}


def stem(word: str) -> str:
    """A light English stem for matching question words to predicate parts.

    ``owns``/``owned``/``owner`` -> ``own``, ``lives``/``live`` -> ``liv``, ``running``/``runs``
    -> ``run``, ``leads``/``led`` -> ``lead``, ``uses``/``used`` -> ``use``. Never shorter than 3 letters.
    """
    if word in _IRREGULAR:
        return _IRREGULAR[word]
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= MIN_PREFIX:
            word = word[: -len(suffix)]
            doubled = len(word) > MIN_PREFIX and word[-1] == word[-2] and word[-1] not in "aeiouls"
            if suffix in ("ing", "ed") and doubled:
                word = word[:-1]  # running -> runn -> run; but "called", "passed" keep theirs
            break
        if suffix == "ed" and word.endswith("ed") and len(word) == MIN_PREFIX + 1:
            word = word[:-1]  # used -> use
            break
    if word.endswith("e") and len(word) > MIN_PREFIX:
        word = word[:-1]
    return word


def predicate_terms(predicate: str, terms: Sequence[str]) -> set[str]:
    """The query terms that name the predicate ("work" names WORKS_AT, "owns" names OWNED_BY)."""
    return set(_predicate_terms(predicate, tuple(terms)))


@lru_cache(maxsize=8192)
def _predicate_terms(predicate: str, terms: tuple[str, ...]) -> frozenset[str]:
    parts = [p for p in predicate.casefold().split("_") if len(p) >= MIN_PREFIX]
    stems = {stem(p) for p in parts}
    return frozenset(
        t for t in terms
        if any(_matches(t, p) or _matches(p, t) for p in parts) or (len(t) >= MIN_PREFIX and stem(t) in stems)
    )


def term_matches(text: str | None, terms: Sequence[str]) -> set[str]:
    """The query terms that a name or type matches as the fulltext index would (word or prefix)."""
    if not text:
        return set()
    return set(_term_matches(text, tuple(terms)))


@lru_cache(maxsize=65_536)
def _term_matches(text: str, terms: tuple[str, ...]) -> frozenset[str]:
    tokens = _index_tokens(text)
    return frozenset(t for t in terms if any(_matches(t, w) for w in tokens))


@lru_cache(maxsize=65_536)
def _index_tokens(text: str) -> tuple[str, ...]:
    return tuple(search_text(text).split())


def strengths(lexical: Mapping[str, float | None], vector: Mapping[str, float | None], *,
              min_cosine: float = 0.5) -> dict[str, float]:
    """How strongly each entry entity matched the question, summed over the search legs.

    Rank fusion (which picks the entries) keeps only ranks; this keeps the margins, so an
    entity that matched one common word of the question (or only its type), or whose
    name is barely similar to it, weighs less than one that matched the whole name:

    - lexical: its BM25 score relative to the best entry's, in (0, 1];
    - vector: its cosine above ``min_cosine`` (the leg's threshold) scaled to (0, 1], an
      absolute scale, so a weak nearest neighbour stays weak.

    Entries without any leg score (given by name) weigh 1.
    """
    best_lex = max((v for v in lexical.values() if v), default=0.0)
    result: dict[str, float] = {}
    for key in lexical.keys() | vector.keys():
        lex, cosine = lexical.get(key), vector.get(key)
        if lex is None and cosine is None:
            result[key] = 1.0
            continue
        share = (lex or 0.0) / best_lex if best_lex else 0.0
        closeness = max(0.0, ((cosine or 0.0) - min_cosine) / (1.0 - min_cosine)) if cosine is not None else 0.0
        result[key] = share + closeness
    return result
