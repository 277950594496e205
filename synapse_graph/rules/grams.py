"""Pure rules of the substring index: the character trigrams of names, aliases, types and observations.

``Memory.entities(matching=...)`` finds a lower-cased substring. Every text it searches stores its trigrams
(``grams``), each as one word of a fulltext index: a text containing the query holds every trigram of the
query, so the entities whose texts hold them all are a superset of those that match, and the database then
checks the substring itself on these few. A query shorter than a trigram has no trigram: it is scanned.
"""

from __future__ import annotations

import hashlib
from functools import lru_cache

GRAM = 3
"""Characters per gram: a shorter query is found by a scan of the scope."""
MAX_QUERY_GRAMS = 16
"""The query's grams looked up (spread over it): enough to make the candidates few, short for the index."""


@lru_cache(maxsize=65_536)
def _token(gram: str) -> str:
    # Cached: names share most of their trigrams (a batch of 1,000 facts at 100k hashed ~1,100 a write).
    # A word that every fulltext tokenizer keeps whole (hex digits after an underscore, never stemmed) whatever
    # the characters of the gram: 32 bits of its hash. Two grams sharing a token only add candidates, which the
    # substring check drops. The underscore keeps recall's prefix searches, which share FalkorDB's index of a
    # label and never start with one (rules/recall.py words), from ever matching a gram ("gab*" would "gab12...").
    return "_" + hashlib.blake2b(gram.encode("utf-8", "surrogatepass"), digest_size=4).hexdigest()


def _grams(text: str) -> list[str]:
    return [text[i:i + GRAM] for i in range(len(text) - GRAM + 1)]


def grams(*texts: str | None) -> str:
    """What a node's ``grams`` holds: the tokens of the trigrams of its texts, lower-cased as queries are
    (``str.lower``), each once, space-separated."""
    return " ".join(dict.fromkeys(_token(g) for text in texts if text for g in _grams(text.lower())))


def query_grams(matching: str) -> list[str] | None:
    """The tokens a text containing ``matching`` (lower-cased) holds, or None if it is shorter than a gram."""
    found = list(dict.fromkeys(_token(g) for g in _grams(matching)))
    if not found:
        return None
    if len(found) > MAX_QUERY_GRAMS:  # a long query: a spread of its grams narrows as well as all of them
        step = len(found) / MAX_QUERY_GRAMS
        found = [found[int(i * step)] for i in range(MAX_QUERY_GRAMS)]
    return found
