"""Duplicate entities in the inspector: the scope's proposals (``Memory.duplicates``) and the latest merges
(from the audit log), as the review page and an entity's page show them.

Proposals walk the whole scope, so they are read like the overview's counts: kept until the scope changes
(:class:`~synapse_graph.ui.views.Aggregates`), the review page and every entity page sharing one read. The
review page waits for a new read; an entity's page does not (it starts one and says so).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from datetime import datetime
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from synapse_graph.aio import AsyncMemory
from synapse_graph.models import AuditEntry, DuplicateProposal, Entity

if TYPE_CHECKING:
    from synapse_graph.ui.views import Aggregates

PROPOSALS_KEPT = 1_000
"""The most proposals read (best first): the review page shows them a page at a time, an entity page its own."""
KEPT_AS = "duplicates"
MERGES_SHOWN = 10
MERGE_ACTIONS = ("merge duplicate", "alias")
"""Audit actions whose entries record merges the review page lists (an upsert's ``SAME_AS`` merges too, and
``unmerge`` undoes it, but the page lists the merges made by review and ``alias``)."""


class Proposals(BaseModel):
    """The scope's duplicate proposals, best first, and the instant they are exact for."""

    proposals: list[DuplicateProposal]
    read_at: datetime
    complete: bool
    """False when the scope has more than :data:`PROPOSALS_KEPT` (the best of them are here)."""


def _read(memory: AsyncMemory) -> Awaitable[list[DuplicateProposal]]:
    return memory.duplicates(limit=PROPOSALS_KEPT + 1)


def _kept(found: list[DuplicateProposal], read_at: datetime) -> Proposals:
    return Proposals(proposals=found[:PROPOSALS_KEPT], read_at=read_at, complete=len(found) <= PROPOSALS_KEPT)


async def proposals(memory: AsyncMemory, kept: Aggregates) -> Proposals:
    """The scope's proposals: kept, or read now if the scope changed since (the review page waits for them)."""
    return _kept(*await kept.read(memory, KEPT_AS, lambda: _read(memory), timed=False))


async def current_proposals(memory: AsyncMemory, kept: Aggregates) -> Proposals | None:
    """The scope's proposals if those kept are current; else None, and they are read in the background (an
    entity's page does not wait for a walk of the scope)."""
    found = await kept.peek(memory, KEPT_AS, lambda: _read(memory))
    return None if found is None else _kept(*found)


def involving(found: Proposals, entity: Entity) -> list[DuplicateProposal]:
    """The proposals naming an entity (as the one to keep or the one to merge)."""
    return [p for p in found.proposals if entity.key in (p.canonical_key, p.other_key)]


class Merge(BaseModel):
    """One entity merged into another, as its audit entry recorded it, and whether it still is."""

    entry: str
    """The audit entry's id."""
    at: datetime
    action: str
    client: str | None = None
    merged: str
    """The name of the entity merged away (what ``unmerge`` takes)."""
    into: str
    """The name of the entity it was merged into (its key once the merge no longer holds)."""
    score: float | None = None
    """The proposal's score, for a merge made by approving one."""
    current: bool
    """True while the merged name still names the entity it was merged into (False once unmerged)."""


async def latest_merges(memory: AsyncMemory, limit: int = MERGES_SHOWN) -> list[Merge]:
    """The newest merges made by review or ``alias``, newest first, each with whether it still holds."""
    logs = await asyncio.gather(*(memory.audit(action=action, limit=limit) for action in MERGE_ACTIONS))
    entries = sorted((e for log in logs for e in log), key=lambda e: (e.at, e.id), reverse=True)
    made = [(entry, kept) for entry in entries for kept in _merges(entry)][:limit]
    now = await asyncio.gather(*(memory.entity(kept["entity"]["name"]) for _, kept in made))
    return [Merge(entry=entry.id, at=entry.at, action=entry.action, client=entry.client,
                  merged=kept["entity"]["name"], score=_score(entry),
                  into=found.name if found is not None and found.key == kept["into"] else kept["into"],
                  current=found is not None and found.key == kept["into"])
            for (entry, kept), found in zip(made, now, strict=True)]


def _merges(entry: AuditEntry) -> list[dict[str, Any]]:
    return [m for m in entry.detail.get("merges") or () if isinstance(m, dict) and isinstance(m.get("entity"), dict)]


def _score(entry: AuditEntry) -> float | None:
    proposal = entry.detail.get("proposal")
    score = proposal.get("score") if isinstance(proposal, dict) else None
    return float(score) if isinstance(score, int | float) else None
