"""The slot of a fact: which (scope, subject, predicate) timeline it belongs to, as one indexed integer.

Every ``FACT`` relationship carries ``slot``, a 64-bit hash of its scope, canonical
subject key and predicate (and ``object_slot`` and ``predicate_slot``, the same seen from its object and
from its predicate alone). Planning a write and answering "what did S's P hold at t"
then seek the slot's index instead of walking every relationship of the subject, so
their cost does not grow with the subject's degree. A hash collision only adds rows:
queries still check scope, subject and predicate. The hashes are cached: a write computes a slot to read its
timeline and again to store it, and a batch repeats predicates and entities.
"""

from __future__ import annotations

from functools import lru_cache
from hashlib import blake2b

SLOT_FORMAT = 2
"""Store format that has ``slot`` on every fact (stores written before it are back-filled on open)."""
SIDE_SLOTS_FORMAT = 7
"""Store format that has ``object_slot`` and ``predicate_slot`` on every fact (back-filled on open)."""


@lru_cache(maxsize=65_536)
def fact_slot(scope: str, subject: str, predicate: str) -> int:
    """The slot of a (scope, subject key, predicate): a signed 64-bit integer both backends index."""
    return _hash(f"{scope}\x1f{subject}\x1f{predicate}")


@lru_cache(maxsize=65_536)
def object_slot(scope: str, obj: str, predicate: str) -> int:
    """The object side's slot, ``object_slot``: a (scope, object key, predicate), e.g. everyone who WORKS_AT
    Acme, found by one index seek however many other facts point at Acme."""
    return _hash(f"object\x1e{scope}\x1f{obj}\x1f{predicate}")


@lru_cache(maxsize=65_536)
def predicate_slot(scope: str, predicate: str) -> int:
    """A (scope, predicate)'s slot, ``predicate_slot``: every fact of one predicate in one scope, found by one
    index seek instead of a walk of the scope's facts."""
    return _hash(f"predicate\x1e{scope}\x1f{predicate}")


def _hash(text: str) -> int:
    digest = blake2b(text.encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big", signed=True)
