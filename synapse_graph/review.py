"""Duplicate entities, reviewed: the calls ``Memory`` and ``AsyncMemory`` share (docs/duplicates.md).

Proposals come from names, neighbourhoods, types and facts, scored without a model
(:mod:`synapse_graph.rules.duplicates`); nothing is merged unless a reviewer approves (or the scope's
rules ask for it above a threshold they set). Every approval, rejection and unmerge is audited.
"""

from __future__ import annotations

from typing import Any

from synapse_graph.engine import duplicate_scans, duplicates, unmerge
from synapse_graph.models import AliasResult, DuplicateProposal, UnmergeResult


def _scans(memory: object) -> duplicate_scans.Scans:
    """The proposals a memory read last (kept on it: the next call after a write reads only what changed)."""
    kept: duplicate_scans.Scans | None = memory.__dict__.get("_duplicate_scans")
    if kept is None:
        kept = memory.__dict__["_duplicate_scans"] = duplicate_scans.Scans()
    return kept


class DuplicateReview:
    """The review calls of :class:`~synapse_graph.Memory` (mixed in; they use its reads and writes)."""

    _ctx: Any
    _read: Any
    _write: Any

    def duplicates(self, *, limit: int = 100, threshold: float | None = None) -> list[DuplicateProposal]:
        """Pairs of entities that are probably one, best first: each with its score (0 to 1; default threshold
        0.8) and its evidence for and against. Pairs recorded as distinct are never proposed again."""
        found = self._read(duplicate_scans.list_proposals(self._ctx, limit, threshold, _scans(self)))
        return found  # type: ignore[no-any-return]

    def approve_duplicate(self, proposal: DuplicateProposal | str, other: str | None = None) -> AliasResult:
        """Merge a proposal's ``other`` entity into its ``canonical`` one (or ``other`` into the entity named
        first): the alias merge, audited with the proposal and its evidence. ``unmerge`` undoes it."""
        return self._write(duplicates.approve_step(self._ctx, proposal, other))  # type: ignore[no-any-return]

    def reject_duplicate(self, proposal: DuplicateProposal | str, other: str | None = None, *, reason: str) -> None:
        """Record two entities as distinct: never proposed again, whatever either is merged with (exported and
        imported with the scope)."""
        self._write(duplicates.reject_step(self._ctx, proposal, other, reason))

    def unmerge(self, name: str) -> UnmergeResult:
        """Undo the latest merge of the entity once called ``name``: both entities as they were before it, every
        fact, observation and alias back on the side the audit log recorded; writes made since stay on the kept
        entity (the result lists them)."""
        return self._write(unmerge.unmerge_step(self._ctx, name))  # type: ignore[no-any-return]


class AsyncDuplicateReview:
    """The same calls for :class:`~synapse_graph.AsyncMemory`, awaited."""

    _ctx: Any
    _read: Any
    _write: Any

    async def duplicates(self, *, limit: int = 100, threshold: float | None = None) -> list[DuplicateProposal]:
        """See :meth:`Memory.duplicates`."""
        found = await self._read(duplicate_scans.list_proposals(self._ctx, limit, threshold, _scans(self)))
        return found  # type: ignore[no-any-return]

    async def approve_duplicate(self, proposal: DuplicateProposal | str, other: str | None = None) -> AliasResult:
        """See :meth:`Memory.approve_duplicate`."""
        return await self._write(duplicates.approve_step(self._ctx, proposal, other))  # type: ignore[no-any-return]

    async def reject_duplicate(self, proposal: DuplicateProposal | str, other: str | None = None, *,
                               reason: str) -> None:
        """See :meth:`Memory.reject_duplicate`."""
        await self._write(duplicates.reject_step(self._ctx, proposal, other, reason))

    async def unmerge(self, name: str) -> UnmergeResult:
        """See :meth:`Memory.unmerge`."""
        return await self._write(unmerge.unmerge_step(self._ctx, name))  # type: ignore[no-any-return]
