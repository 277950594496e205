"""A scope's state as a write sees it: its version, counters, stored rules and clock."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from synapse_graph.catalogue import Q
from synapse_graph.engine.context import Context
from synapse_graph.engine.io import Op, Read, read_rows
from synapse_graph.engine.rows import stored_rules
from synapse_graph.instants import Instant
from synapse_graph.models import ScopeRules
from synapse_graph.rules.timeparse import now_micros

STORE_FORMAT = 16
"""Format 2: every fact carries its slot. Format 3: candidates are counted apart from believed facts.
Format 4: entities carry the scope's search token (Neo4j). Format 5: a scope's state is held by a STATE
relationship of its node to itself, not by the node (cypher/fragments/scope_state_for_write.cypher).
Format 6: memories are searched by their stems: observations' search text holds stems, and fact records
carry one (their sentence and source; rules/stems.py) with the scope's token on Neo4j.
Format 7: every fact carries its object's and its predicate's slots too (rules/slots.py).
Format 8: records ahead are marked and expired and ended records counted (engine/migrations.py).
Format 9: every entity carries its count of fact records, ``records`` (engine/writes.py record_counts).
Format 10: writes keep the scope's growth counters, per slice of recorded time (rules/growth.py).
Format 11: entities, aliases and observations carry their grams, the substring index (rules/grams.py).
Format 15: observations and fact records carry the scope's search token on FalkorDB too, in their fulltext indexes
(its history token once expired, as on Neo4j since format 14), so a search of memories keeps to the scope.
Format 16: audit entries keep what their changes show of their records (verdict_values, engine/writes.py), which a
page of changes shows unless the scope's merges, unmerges and erasures (its STATE's values_from) came after them:
a version that does not know them would merge or erase without moving values_from."""


@dataclass(frozen=True)
class ScopeState:
    """What a write reads first, holding the scope's lock."""

    version: int
    facts: int
    """Current believed and disputed records (the ``max_facts`` quota counts them)."""
    candidates: int
    entities: int
    tombstones: int | None
    """Rejections ever recorded (None in stores older than format 2: not counted)."""
    format: int | None
    updated_at: int
    last_batch: str | None
    stored: ScopeRules | None
    """The rules stored with the scope, None if it never stored any."""
    embedder: str | None = None
    """The model whose vectors the scope holds (engine/embeddings.py), None if none yet."""
    dimensions: int | None = None

    @property
    def rules(self) -> ScopeRules:
        """The rules writes obey: the stored ones, else the defaults."""
        return self.stored or ScopeRules()

    def clock(self) -> Instant:
        """Now, as this scope's writes record it: never earlier than its last write, so belief time
        never goes backwards whatever the wall clock does."""
        return Instant(max(now_micros(), self.updated_at + 1))


def state_from_row(row: dict[str, Any]) -> ScopeState:
    return ScopeState(
        version=row["version"], facts=row["facts"], candidates=row["candidates"] or 0, entities=row["entities"],
        tombstones=row["tombstones"], format=row["format"], updated_at=row["updated_at"] or 0,
        last_batch=row["last_batch"], stored=stored_rules(row), embedder=row.get("embedder"),
        dimensions=row.get("dimensions"),
    )


def read_state(ctx: Context) -> Op[ScopeState]:
    """The scope's state (version 0 for a scope never written)."""
    return state_of((yield from read_rows(state_read(ctx))))


def state_read(ctx: Context) -> Read:
    """The read of :func:`read_state`, for reading it together with others (:class:`~.io.Reads`)."""
    return Read(Q.SCOPE_STATE, {"scope": ctx.scope})


def state_of(found: list[dict[str, Any]]) -> ScopeState:
    """The scope's state from the rows of :func:`state_read`."""
    [row] = found
    return state_from_row(row["state"])


def lock_init() -> dict[str, Any]:
    """Parameters of a scope's creation when a write takes its lock first (Neo4j)."""
    return {"now": Instant(now_micros()), "format": STORE_FORMAT}
