"""Predicate validation and the registry of single-valued predicates."""

from __future__ import annotations

import re
from collections.abc import Iterable

from synapse_graph.errors import InvalidPredicateError

SAME_AS = "SAME_AS"
_PREDICATE = re.compile(r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*")
MAX_PREDICATE_LENGTH = 64

DEFAULT_SINGLE_VALUED: frozenset[str] = frozenset(
    {
        "LIVES_IN",
        "WORKS_AT",
        "WORKS_FOR",
        "BORN_IN",
        "BORN_ON",
        "DIED_ON",
        "MARRIED_TO",
        "HAS_ROLE",
        "LOCATED_IN",
        "HAS_STATUS",
        "REPORTS_TO",
        "HAS_AGE",
        "HAS_NAME",
    }
)


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


class PredicateRegistry:
    """Which predicates hold one value at a time (a new value closes the old one)."""

    def __init__(self, single_valued: Iterable[str] = DEFAULT_SINGLE_VALUED) -> None:
        self._single = {check_predicate(p) for p in single_valued}

    def register_single_valued(self, *predicates: str) -> None:
        """Mark predicates as single-valued, e.g. ``register_single_valued("HAS_MANAGER")``."""
        self._single.update(check_predicate(p) for p in predicates)

    def is_single_valued(self, predicate: str) -> bool:
        return predicate in self._single

    @property
    def single_valued(self) -> frozenset[str]:
        return frozenset(self._single)
