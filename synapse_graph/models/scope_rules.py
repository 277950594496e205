"""The rules a scope's writes obey (stored with the scope)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from synapse_graph.models.readable import ShortRepr

DEFAULT_SINGLE_VALUED: frozenset[str] = frozenset(
    {"LIVES_IN", "WORKS_AT", "WORKS_FOR", "BORN_IN", "BORN_ON", "DIED_ON", "MARRIED_TO", "HAS_ROLE",
     "LOCATED_IN", "HAS_STATUS", "REPORTS_TO", "HAS_AGE", "HAS_NAME"}
)
"""Predicates that hold one value at a time unless a scope's rules say otherwise."""


class ScopeRules(ShortRepr, BaseModel):
    """The rules a scope's writes obey, stored with the scope so that every client enforces the same.

    Set them with :meth:`Memory.set_rules` (recorded in the audit log, exported and imported);
    a scope that never stored rules uses these defaults.
    """

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    max_facts: int = Field(default=10_000, ge=0)
    """Quota of currently believed (and disputed) records, history included."""
    max_entities: int = Field(default=5_000, ge=0)
    max_candidates: int = Field(default=1_000, ge=0)
    """Quota of candidates waiting for review (they never use the believed quota)."""
    single_valued: frozenset[str] = DEFAULT_SINGLE_VALUED
    """Predicates that hold one value at a time: a new value closes the subject's other values."""
    candidate_below: float = Field(default=0.6, ge=0.0, le=1.0)
    """Facts a model extracted (written with ``model=``) below this confidence become candidates."""
    merge_duplicates_above: float | None = Field(default=None, ge=0.0, le=1.0)
    """A name a write would make a new entity of, matching an existing entity at least this well, becomes its
    alias instead (``possible_duplicates`` still says so). None (the default): nothing is merged without review."""
