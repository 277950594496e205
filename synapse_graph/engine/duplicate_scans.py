"""A scope's duplicate proposals kept between calls, and brought up to date after writes from what they changed.

Proposals walk every entity's names (:func:`~synapse_graph.engine.duplicates.scan`: tens of seconds at 100k
entities on a loaded machine). A ``Memory`` keeps its latest scan; when the scope has changed since, the audit
entries written since name every entity the writes touched (the two ends of every record created, expired or
updated, every entity created, merged, aliased, observed). If none of them was removed, renamed or aliased, and no
pair was merged or rejected, the candidate pairs are those of the scan with the new entities' pairs
(:mod:`~synapse_graph.rules.added_names` blocks just them against the scan's keys, and brings the word counts
and fits their names change up to date): only the facts of the new and touched candidates (and the degrees of the
touched neighbours they share) are read, and the pairs new, touched or of changed name evidence scored again. A
retyped entity's pairs are scored again. Anything else walks the scope again. Either way the answer is what a
walk of the scope would give now.
"""

from __future__ import annotations

from dataclasses import replace

from synapse_graph.catalogue import Q
from synapse_graph.engine import inputs, trust
from synapse_graph.engine.context import Context
from synapse_graph.engine.duplicates import Scan, candidate_links, rescore, row_of, scan
from synapse_graph.engine.io import Op, compute, read
from synapse_graph.engine.scope import read_state
from synapse_graph.instants import Instant
from synapse_graph.models import AuditEntry, DuplicateProposal
from synapse_graph.rules import duplicates as rules
from synapse_graph.rules.added_names import add
from synapse_graph.rules.duplicates import pair_key
from synapse_graph.rules.numbers import confidence

MAX_ENTRIES = 200
"""More audit entries than this since the scan kept: walk the scope again (a bulk load touches most of it)."""
MAX_TOUCHED = 5_000
"""More entities touched than this since the scan kept: walk the scope again."""
KEEP_NAMES = frozenset({"upsert", "observe", "unobserve", "retract", "feedback", "approve", "reject", "pin", "unpin"})
"""Actions that change no entity's names unless their entry says so (:data:`NAME_CHANGES`); the others (alias,
merges, distinct, unmerge, purge, import) walk the scope again."""
NAME_CHANGES = ("entities_merged", "aliases", "rejected", "merges")
"""What an audit entry's detail lists when its action merged, aliased or rejected entities."""


class Scans:
    """The latest scan of each scope and threshold one ``Memory`` asked for."""

    def __init__(self) -> None:
        self._kept: dict[tuple[str, float], Scan] = {}

    def take(self, scope: str, threshold: float) -> Scan | None:
        """The scan kept, no longer kept: bringing it up to date changes it in place, and it is put back when done
        (a call that fails on the way, or one made meanwhile, walks the scope again)."""
        return self._kept.pop((scope, threshold), None)

    def put(self, scope: str, found: Scan) -> None:
        self._kept[(scope, found.threshold)] = found


def list_proposals(ctx: Context, limit: object, threshold: object, kept: Scans) -> Op[list[DuplicateProposal]]:
    count = inputs.limit(limit, 100)
    cut = rules.DEFAULT_THRESHOLD if threshold is None else confidence(threshold, field="threshold")
    return _proposals(ctx, cut, count, kept)


def _proposals(ctx: Context, threshold: float, limit: int, kept: Scans) -> Op[list[DuplicateProposal]]:
    before = kept.take(ctx.scope, threshold)
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
        return (yield from scan(ctx, before.threshold, state))
    now = yield from read(Q.ENTITIES_BY_KEY, {"scope": ctx.scope, "keys": sorted(touched)})
    rows = {row["key"]: row_of(row) for row in now}
    differ = [key for key in sorted(touched) if rows.get(key) != before.rows.get(key)]
    added = [rules.Profile(key, *rows[key]) for key in differ if key not in before.rows]
    retyped = [rules.Profile(key, *rows[key]) for key in differ
               if key in before.rows and key in rows and rows[key][:2] == before.rows[key][:2]]
    if len(added) + len(retyped) < len(differ):  # removed, renamed or aliased
        return (yield from scan(ctx, before.threshold, state))
    moved = replace(before, version=state.version, updated_at=state.updated_at, single_valued=single_valued)
    again: set[tuple[str, str]] = set()
    if added or retyped:
        grown = yield from compute(lambda: add(before.candidates, before.index, added, retyped,
                                               threshold=before.threshold, distinct=before.distinct))
        pairs = grown.candidates.hopeful(before.threshold)
        again = grown.again
        moved = replace(moved, rows={**before.rows, **{p.key: (p.name, p.aliases, p.type) for p in added + retyped}},
                        profiles=list(grown.candidates.profiles), candidates=grown.candidates, pairs=pairs,
                        found=[p for p in before.found if pair_key(p.canonical_key, p.other_key) not in grown.gone])
    profiles = moved.profiles
    wanted = {profiles[k].key for pair in moved.pairs for k in pair}
    relinked = sorted((touched & before.links.keys()) | (wanted - before.links.keys()))
    changed = touched & (before.links.keys() | before.degrees.keys() | wanted)
    if not changed and not again and single_valued == before.single_valued:
        return moved
    links = {**before.links, **(yield from candidate_links(ctx, relinked))}
    return (yield from rescore(ctx, replace(moved, links=links),
                               changed if single_valued == before.single_valued else None, again))
