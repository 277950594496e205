"""A scope's duplicate proposals kept between calls, and brought up to date after writes from what they changed.

Proposals walk every entity's names (:func:`~synapse_graph.engine.duplicates.scan`: tens of seconds at 100k
entities on a loaded machine). A ``Memory`` keeps its latest scan; when the scope has changed since, the audit
entries written since name every entity the writes touched (the two ends of every record created, expired or
updated, every entity created, merged, aliased, observed). If none of them was created, removed, renamed,
aliased or retyped, and no pair was merged or rejected, the names and so the candidate pairs are as they were:
only the facts of the touched candidates (and the degrees of the touched neighbours they share) are read again
and the pairs scored again. Anything else walks the scope again. Either way the answer is what a walk of the
scope would give now.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from synapse_graph.catalogue import Q
from synapse_graph.engine import inputs, trust
from synapse_graph.engine.context import Context
from synapse_graph.engine.duplicates import Scan, rescore, row_of, scan
from synapse_graph.engine.io import Op, read
from synapse_graph.engine.scope import read_state
from synapse_graph.instants import Instant
from synapse_graph.models import AuditEntry, DuplicateProposal
from synapse_graph.rules import duplicates as rules
from synapse_graph.rules.numbers import confidence

MAX_ENTRIES = 200
"""More audit entries than this since the scan kept: walk the scope again (a bulk load touches most of it)."""
MAX_TOUCHED = 5_000
"""More entities touched than this since the scan kept: walk the scope again."""
KEEP_NAMES = frozenset({"upsert", "observe", "unobserve", "retract", "feedback", "approve", "reject", "pin", "unpin"})
"""Actions that change no entity's names unless their entry says so (:data:`NAME_CHANGES`); the others (alias,
merges, distinct, unmerge, purge, import) walk the scope again."""
NAME_CHANGES = ("entities_created", "entities_merged", "aliases", "rejected", "merges")
"""What an audit entry's detail lists when its action created, merged, aliased or rejected entities."""


class Scans:
    """The latest scan of each scope and threshold one ``Memory`` asked for."""

    def __init__(self) -> None:
        self._kept: dict[tuple[str, float], Scan] = {}

    def get(self, scope: str, threshold: float) -> Scan | None:
        return self._kept.get((scope, threshold))

    def put(self, scope: str, found: Scan) -> None:
        self._kept[(scope, found.threshold)] = found


def list_proposals(ctx: Context, limit: object, threshold: object, kept: Scans) -> Op[list[DuplicateProposal]]:
    count = inputs.limit(limit, 100)
    cut = rules.DEFAULT_THRESHOLD if threshold is None else confidence(threshold, field="threshold")
    return _proposals(ctx, cut, count, kept)


def _proposals(ctx: Context, threshold: float, limit: int, kept: Scans) -> Op[list[DuplicateProposal]]:
    before = kept.get(ctx.scope, threshold)
    found = (yield from scan(ctx, threshold)) if before is None else (yield from updated(ctx, before))
    kept.put(ctx.scope, found)
    return found.found[:limit]


def _keeps_names(entry: AuditEntry) -> bool:
    return entry.action.split(":")[0] in KEEP_NAMES and not any(entry.detail.get(k) for k in NAME_CHANGES)


def updated(ctx: Context, before: Scan) -> Op[Scan]:
    """A scan brought up to the scope's current version (itself if nothing was written since)."""
    state = yield from read_state(ctx)
    single_valued = frozenset(state.rules.single_valued)
    if state.version == before.version:
        return before
    # Every write moves the clock past the one before (State.now): the entry at the scan's clock is the write it
    # read the scope after, those since are the changes.
    since = Instant(before.updated_at + 1)
    entries = yield from trust.audit(ctx, trust.AuditQuery(since=since, limit=MAX_ENTRIES + 1))
    touched = {key for entry in entries for key in entry.entities}
    if len(entries) > MAX_ENTRIES or len(touched) > MAX_TOUCHED or not all(map(_keeps_names, entries)):
        return (yield from scan(ctx, before.threshold))
    now = yield from read(Q.ENTITIES_BY_KEY, {"scope": ctx.scope, "keys": sorted(touched)})
    rows = {row["key"]: row_of(row) for row in now}
    if any(rows.get(key) != before.rows.get(key) for key in touched):  # created, removed, renamed or retyped
        return (yield from scan(ctx, before.threshold))
    moved = replace(before, version=state.version, updated_at=state.updated_at, single_valued=single_valued)
    relinked = sorted(touched & before.links.keys())
    changed = touched & (before.links.keys() | before.degrees.keys())
    if not changed and single_valued == before.single_valued:
        return moved
    links: dict[str, list[Any]] = {**before.links, **{key: [] for key in relinked}}
    if relinked:
        for row in (yield from read(Q.CANDIDATE_LINKS, {"scope": ctx.scope, "keys": relinked})):
            links[row["key"]].append(row)
    return (yield from rescore(ctx, replace(moved, links=links),
                               changed if single_valued == before.single_valued else None))
