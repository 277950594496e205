"""The slot of a fact: which (scope, subject, predicate) timeline it belongs to, as one indexed integer.

Every ``FACT`` relationship carries ``slot``, a 63-bit hash of its scope, canonical
subject key and predicate. Planning a write and answering "what did S's P hold at t"
then seek the slot's index instead of walking every relationship of the subject, so
their cost does not grow with the subject's degree. A hash collision only adds rows:
queries still check scope, subject and predicate.
"""

from __future__ import annotations

from hashlib import blake2b

SLOT_FORMAT = 2
"""Store format that has ``slot`` on every fact (stores written before it are back-filled on open)."""


def fact_slot(scope: str, subject: str, predicate: str) -> int:
    """The slot of a (scope, subject key, predicate): a signed 64-bit integer both backends index."""
    digest = blake2b(f"{scope}\x1f{subject}\x1f{predicate}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big", signed=True)
