"""Predicate validation (``UPPER_SNAKE_CASE``); the single-valued ones are a scope rule (``ScopeRules``)."""

from __future__ import annotations

import re

from synapse_graph.errors import InvalidPredicateError
from synapse_graph.models import DEFAULT_SINGLE_VALUED

SAME_AS = "SAME_AS"
_PREDICATE = re.compile(r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*")
MAX_PREDICATE_LENGTH = 64
__all__ = ["DEFAULT_SINGLE_VALUED", "MAX_PREDICATE_LENGTH", "SAME_AS", "check_predicate"]


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
