"""Predicate validation (``UPPER_SNAKE_CASE``) and the predicate an imported relation type becomes; the
single-valued ones are a scope rule (``ScopeRules``)."""

from __future__ import annotations

import hashlib
import re
import unicodedata

from synapse_graph.errors import InvalidPredicateError
from synapse_graph.models import DEFAULT_SINGLE_VALUED

SAME_AS = "SAME_AS"
_PREDICATE = re.compile(r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*")
MAX_PREDICATE_LENGTH = 64
__all__ = ["DEFAULT_SINGLE_VALUED", "MAX_PREDICATE_LENGTH", "SAME_AS", "check_predicate", "predicate_of"]


def check_predicate(predicate: object, *, allow_same_as: bool = False) -> str:
    """Return the predicate if it is UPPER_SNAKE_CASE of 1-64 characters, else raise."""
    if not isinstance(predicate, str):
        raise InvalidPredicateError(f"predicate must be a string, got {type(predicate).__name__}")
    if len(predicate) > MAX_PREDICATE_LENGTH or not _PREDICATE.fullmatch(predicate):
        shown = predicate if len(predicate) <= 70 else predicate[:70] + "..."
        raise InvalidPredicateError(
            f"invalid predicate {shown!r}: use UPPER_SNAKE_CASE, 1-{MAX_PREDICATE_LENGTH} characters, e.g. 'WORKS_AT'"
        )
    if predicate == SAME_AS and not allow_same_as:
        raise InvalidPredicateError("SAME_AS is reserved for aliases; use Memory.alias(canonical, alias)")
    return predicate


def predicate_of(relation_type: str) -> str:
    """The predicate of a relation type: ``works at``, ``works_at``, ``worksAt`` -> ``WORKS_AT``.

    Accents are dropped (``connaît`` -> ``CONNAIT``); a type that starts with a digit gets ``REL_`` in
    front; one with no Latin letter or digit at all gets ``RELATION_`` and a digest of its text, so
    different ones stay apart. ``same as`` becomes ``IS_SAME_AS``: ``SAME_AS`` merges entities.
    """
    plain = unicodedata.normalize("NFKD", relation_type).encode("ascii", "ignore").decode()
    words = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", plain)
    predicate = re.sub(r"[^A-Za-z0-9]+", "_", words).strip("_").upper()
    if not predicate:
        return "RELATION_" + hashlib.sha256(relation_type.encode()).hexdigest()[:8].upper()
    if predicate[0].isdigit():
        predicate = "REL_" + predicate
    if predicate == SAME_AS:
        predicate = "IS_SAME_AS"
    return predicate[:MAX_PREDICATE_LENGTH].rstrip("_")
