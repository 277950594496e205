"""Statements whose rows the engine reads by key, declared with their shapes (``TypedDict``).

``yield from read(ENTITY_NAMES, params)`` returns ``list[NameRow]``, so ``mypy --strict`` checks each key the
engine reads and each value's type. tests/integration/test_statement_params.py checks every row each of these
statements returns has exactly its shape's keys. Rows that carry a fact, an observation or an entity are read
by the field tables instead (:mod:`synapse_graph.shapes`, :mod:`~synapse_graph.engine.rows`).
"""

from __future__ import annotations

from typing import TypedDict

from synapse_graph.catalogue import Q
from synapse_graph.engine.io import Projection


class NameRow(TypedDict):
    """An entity's key and its name as shown."""

    key: str
    name: str


class DegreeRow(TypedDict):
    """An entity's key and how many facts it has."""

    key: str
    degree: int


class PairRow(TypedDict):
    """Two entity keys recorded as distinct."""

    a: str
    b: str


class IdRow(TypedDict):
    """The id of a stored record or audit entry."""

    id: str


ENTITY_NAMES = Projection(Q.ENTITY_NAMES, NameRow)
ENTITY_DEGREES = Projection(Q.ENTITY_DEGREES, DegreeRow)
DISTINCT_PAIRS = Projection(Q.DISTINCT_PAIRS, PairRow)
AUDIT_IDS = Projection(Q.AUDIT_IDS, IdRow)
EXISTING_IDS = Projection(Q.EXISTING_IDS, IdRow)
SHAPED: tuple[Projection[NameRow] | Projection[DegreeRow] | Projection[PairRow] | Projection[IdRow], ...] = (
    ENTITY_NAMES, ENTITY_DEGREES, DISTINCT_PAIRS, AUDIT_IDS, EXISTING_IDS)
"""Every declared projection (what the test checks)."""
