"""Duplicate entities in the store: proposals over a scope, warnings at write time, approve and reject.

The scoring is pure (:mod:`synapse_graph.rules.duplicates`); here it meets the store. A scope's
proposals read every entity's names once, let blocking and the names choose the candidate pairs, then read
the current facts of just those entities. A write that creates an entity asks the full-text index for
the entities whose names share a word with the new one, and scores only those.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from synapse_graph.catalogue import Q
from synapse_graph.engine import inputs, planning, projections
from synapse_graph.engine.context import Context
from synapse_graph.engine.inputs import CheckedTriple, Name
from synapse_graph.engine.io import Op, Read, compute, read, read_each
from synapse_graph.engine.scope import ScopeState, state_of, state_read
from synapse_graph.engine.steps import WriteStep
from synapse_graph.engine.view import View
from synapse_graph.engine.writes import Mutation
from synapse_graph.errors import InvalidInputError, NotFoundError
from synapse_graph.models import AliasResult, DuplicateProposal, Evidence
from synapse_graph.rules import duplicates as rules
from synapse_graph.rules.added_names import KeyIndex
from synapse_graph.rules.names import parse
from synapse_graph.rules.predicates import SAME_AS
from synapse_graph.rules.recall import scope_token
from synapse_graph.rules.text import name_key
from synapse_graph.rules.timeline import Provenance

WARN_AT_MOST = 8
"""A write that creates more entities than this is not checked for duplicates at write time (a bulk load:
run ``duplicates()`` after it); each checked entity costs one full-text search and one read."""
WRITE_CANDIDATES = 20
"""At most this many entities found by the full-text index are scored against a new entity."""
MAX_LINKS_PER_ENTITY = 200


def proposal_model(found: rules.Proposal) -> DuplicateProposal:
    return DuplicateProposal(
        canonical=found.canonical_name, other=found.other_name, canonical_key=found.canonical,
        other_key=found.other, score=found.score,
        evidence=[Evidence(kind=e.kind, weight=round(e.weight, 3), text=e.text, detail=dict(e.detail))
                  for e in found.evidence])


def _profile(row: Mapping[str, Any]) -> rules.Profile:
    key = row["key"] if "key" in row else name_key(row["name"])
    return rules.Profile(key=key, name=row["name"], aliases=_aliases(row), type=row["type"])


def _aliases(row: Mapping[str, Any]) -> tuple[str, ...]:
    """An entity's aliases in one order, not the server's: which of two names is compared with which follows it
    (the evidence's text), and a kept scan compares them with those read later."""
    return tuple(sorted(row["aliases"] or ()))


def _links(ctx: Context, keys: Iterable[str]) -> Op[dict[str, list[rules.Link]]]:
    """Each entity's current believed facts, as the scorer weighs them (with how many facts the entity at the
    other end has)."""
    wanted = sorted(set(keys))
    if not wanted:
        return {}
    return _link_map((yield from read(Q.ENTITY_LINKS, {"scope": ctx.scope, "keys": wanted})))


def _degrees(ctx: Context, keys: Iterable[str]) -> Op[dict[str, int]]:
    """How many facts each entity has."""
    wanted = sorted(set(keys))
    if not wanted:
        return {}
    found = yield from read(projections.ENTITY_DEGREES, {"scope": ctx.scope, "keys": wanted})
    return {r["key"]: int(r["degree"]) for r in found}


def _link_map(rows: Iterable[Mapping[str, Any]], degrees: Mapping[str, int] | None = None
              ) -> dict[str, list[rules.Link]]:
    """The links of each entity (``degrees``: the other ends' degrees read apart, else the rows'); of an entity with
    more than MAX_LINKS_PER_ENTITY, the first by content, whatever order the server returned them in."""
    found: dict[str, list[rules.Link]] = {}
    for row in rows:
        degree = degrees.get(row["other"], 1) if degrees is not None else int(row["degree"] or 1)
        found.setdefault(row["key"], []).append(rules.Link(row["predicate"], row["other"], bool(row["outgoing"]),
                                                           row["valid_at"], row["invalid_at"], row["other_name"],
                                                           degree))
    for links in found.values():
        if len(links) > MAX_LINKS_PER_ENTITY:
            links.sort(key=lambda x: (x.predicate, x.other, x.outgoing, x.valid_at, x.invalid_at or -1))
            del links[MAX_LINKS_PER_ENTITY:]
    return found


def _with_links(profiles: Iterable[rules.Profile], links: Mapping[str, list[rules.Link]]) -> dict[str, rules.Profile]:
    return {p.key: rules.Profile(p.key, p.name, p.aliases, p.type, (*p.links, *links.get(p.key, ())))
            for p in profiles}


def distinct_pairs(ctx: Context) -> Op[set[tuple[str, str]]]:
    """Pairs recorded as distinct, in :func:`~synapse_graph.rules.duplicates.pair_key` order."""
    return _distinct((yield from read(projections.DISTINCT_PAIRS, {"scope": ctx.scope})))


def _distinct(rows: Iterable[Mapping[str, Any]]) -> set[tuple[str, str]]:
    return {rules.pair_key(r["a"], r["b"]) for r in rows}


@dataclass(frozen=True)
class Scan:
    """A scope's proposals and what they were computed from, as of the scope's ``version``: what
    :mod:`~synapse_graph.engine.duplicate_scans` brings up to date after writes without walking the scope again."""

    version: int
    updated_at: int
    """The scope's clock at ``version`` (the audit entries written since are the changes)."""
    threshold: float
    single_valued: frozenset[str]
    rows: dict[str, tuple[str, tuple[str, ...], str | None]]
    """Every entity's (name, aliases, type), by key."""
    profiles: list[rules.Profile]
    candidates: rules.Candidates
    index: KeyIndex
    """Every entity's blocking keys (to add entities without blocking the scope again)."""
    distinct: set[tuple[str, str]]
    pairs: list[tuple[int, int]]
    links: dict[str, list[Mapping[str, Any]]]
    """The current believed facts of the candidates' entities, as read, by key."""
    degrees: dict[str, int]
    """How many facts each entity two candidates share has."""
    found: list[DuplicateProposal]
    """Every proposal at or above ``threshold``, best first."""


def row_of(row: Mapping[str, Any]) -> tuple[str, tuple[str, ...], str | None]:
    return row["name"], _aliases(row), row["type"]


def scan(ctx: Context, threshold: float, state: ScopeState | None = None) -> Op[Scan]:
    """The scope's pairs of entities that are probably one, best first, at or above ``threshold``, from every
    entity's names (``state``: the scope's, if read already)."""
    scope = {"scope": ctx.scope}
    reads = Read(Q.SCOPE_ENTITIES, scope), Read(Q.DISTINCT_PAIRS, scope)
    if state is None:
        state_rows, rows, distinct_rows = yield from read_each(state_read(ctx), *reads)
        state = state_of(state_rows)
    else:
        rows, distinct_rows = yield from read_each(*reads)
    distinct = _distinct(distinct_rows)

    def block() -> tuple[list[rules.Profile], Any, Any, KeyIndex]:
        # In key order, not the server's: which of two names is compared with which, and which of two equally
        # informative names is the weaker, follow the order (the evidence's text, the family name weighed).
        profiles = sorted((_profile(r) for r in rows), key=lambda p: p.key)
        candidates = rules.name_candidates(profiles, distinct=distinct)
        return profiles, candidates, candidates.hopeful(threshold), KeyIndex.of(candidates)
    profiles, candidates, pairs, index = yield from compute(block)  # seconds at 100k entities: off an event loop
    wanted = sorted({profiles[k].key for pair in pairs for k in pair})
    links = yield from candidate_links(ctx, wanted)
    found = Scan(state.version, state.updated_at, threshold, frozenset(state.rules.single_valued),
                 {p.key: (p.name, p.aliases, p.type) for p in profiles}, profiles, candidates, index, distinct, pairs,
                 links, {}, [])
    return (yield from rescore(ctx, found, None))


def candidate_links(ctx: Context, keys: list[str]) -> Op[dict[str, list[Mapping[str, Any]]]]:
    """The current believed facts of entities, as read, by key (every key given, with none if it has none)."""
    links: dict[str, list[Mapping[str, Any]]] = {key: [] for key in keys}
    if keys:
        for row in (yield from read(Q.CANDIDATE_LINKS, {"scope": ctx.scope, "keys": keys})):
            links[row["key"]].append(row)
    return links


def rescore(ctx: Context, found: Scan, changed: set[str] | None, also: Collection[tuple[str, str]] = ()) -> Op[Scan]:
    """The scan's pairs scored from its links. ``changed``: the entities whose facts (or degree) changed since it
    was scored: only the pairs of them, or sharing one of them, are scored again (and the pairs ``also`` given, by
    key), and the degrees of the entities two candidates share are kept unless changed (None: every pair scored,
    every degree read)."""
    profiles, pairs, candidates = found.profiles, found.pairs, found.candidates
    others = {key: {row["other"] for row in rows} for key, rows in found.links.items()}

    def common(i: int, j: int) -> set[str]:
        return others.get(profiles[i].key, set()) & others.get(profiles[j].key, set())
    shared = {o for i, j in pairs for o in common(i, j)}
    kept = {key: d for key, d in found.degrees.items() if key in shared and (changed is None or key not in changed)}
    degrees = {**kept, **(yield from _degrees(ctx, shared - kept.keys()))}
    again = pairs if changed is None else [
        (i, j) for i, j in pairs
        if profiles[i].key in changed or profiles[j].key in changed or not changed.isdisjoint(common(i, j))
        or (profiles[i].key, profiles[j].key) in also]
    scoring = {profiles[k].key for pair in again for k in pair}
    links = _link_map((row for key in scoring for row in found.links.get(key, ())), degrees)
    some = rules.Candidates(profiles, {pair: candidates.matches[pair] for pair in again}, candidates.fits,
                            candidates.stats)
    scored = yield from compute(lambda: rules.scored(some, _with_links((profiles[k] for pair in again for k in pair),
                                                                       links),
                                                single_valued=found.single_valued, threshold=found.threshold))
    gone = {rules.pair_key(profiles[i].key, profiles[j].key) for i, j in again}
    kept_found = [p for p in found.found if rules.pair_key(p.canonical_key, p.other_key) not in gone]
    proposals = sorted([*kept_found, *map(proposal_model, scored)],
                       key=lambda p: (-p.score, rules.pair_key(p.canonical_key, p.other_key)))
    return replace(found, degrees=degrees, found=proposals)


def _search_terms(names: Iterable[str]) -> list[str]:
    """Words of names to look for in the full-text index (two letters or more)."""
    return list(dict.fromkeys(t for n in names for t in parse(n).tokens if len(t) >= 2))


def _candidate_keys(ctx: Context, terms: list[str], leave_out: Iterable[str]) -> Op[list[str]]:
    """Entities whose names or aliases share a word (or its start) with the terms, best first (the index's
    order), in one request."""
    found = yield from read(Q.SEARCH_LEXICAL, {"scope": ctx.scope, "scope_token": scope_token(ctx.scope),
                                               "terms": terms, "entity_terms": terms, "limit": WRITE_CANDIDATES})
    skip = set(leave_out)
    return list(dict.fromkeys(key for leg in found[:2] for key, _, _ in leg["found"] if key not in skip))


def warnings(view: View, created: Mapping[str, Mapping[str, Any]], triples: Sequence[CheckedTriple] = ()
             ) -> Op[list[DuplicateProposal]]:
    """The existing entities that the entities a write creates strongly match (score >= WARN_THRESHOLD),
    read before the write is applied, in two requests: the new names' words searched in the full-text index,
    then the candidates with their facts, scored against the new entities and the facts the write gives them."""
    if not created or len(created) > WARN_AT_MOST or view.state.entities == 0:
        return []
    ctx = view.ctx
    terms = _search_terms(row["name"] for row in created.values())
    keys = (yield from _candidate_keys(ctx, terms, created)) if terms else []
    if not keys:
        return []
    rows, link_rows = yield from read_each(Read(Q.ENTITIES_BY_KEY, {"scope": ctx.scope, "keys": keys}),
                                           Read(Q.ENTITY_LINKS, {"scope": ctx.scope, "keys": keys}))
    existing = _with_links((_profile(r) for r in rows), _link_map(link_rows))
    canonical = {**{k: k for k in created}, **view.entities.merged}
    new = {key: rules.Profile(key, row["name"], (), row.get("type"), tuple(_batch_links(key, triples, canonical)))
           for key, row in created.items()}
    distinct = (yield from distinct_pairs(ctx)) if view.state.tombstones else set()
    candidates = rules.name_candidates([*new.values(), *existing.values()], distinct=distinct,
                                       only=lambda p: p.key in new, stats=rules.ScopeStats(known=False))
    scored = rules.scored(candidates, single_valued=view.state.rules.single_valued, threshold=rules.WARN_THRESHOLD)
    return [proposal_model(p) for p in scored if not (p.canonical in new and p.other in new)]


def merge_above(view: View, batch: inputs.Batch) -> Op[list[DuplicateProposal]]:
    """When the scope's rules merge duplicates above a score: the names this write would make new entities of
    that match an existing entity that well become its aliases (planned first on a view of their own, which
    only reads). Returns the proposals so merged."""
    above = view.state.rules.merge_duplicates_above
    if above is None or not batch.triples:
        return []
    probe = View(view.ctx, view.state, view.now)
    yield from planning.upsert(probe, batch)
    found = yield from warnings(probe, probe.entities.created, batch.triples)
    merged: list[DuplicateProposal] = []
    for p in found:
        new, old = (p.other_key, p.canonical_key) if p.other_key in probe.entities.created else \
            (p.canonical_key, p.other_key)
        if p.score >= above and new in probe.entities.created and old not in probe.entities.created \
                and new not in {m.other_key for m in merged} | {m.canonical_key for m in merged}:
            view.add_alias(new, probe.entities.created[new]["name"], old)
            merged.append(p)
    return merged


def _batch_links(key: str, triples: Sequence[CheckedTriple], canonical: Mapping[str, str]) -> Iterable[rules.Link]:
    """The facts a write gives a new entity, as the scorer weighs them (the other end by its stored key)."""
    for t in triples:
        for end, other, outgoing in ((t.subject, t.object, True), (t.object, t.subject, False)):
            if end.key == key and other.key != key:
                yield rules.Link(t.predicate, canonical.get(other.key, other.key), outgoing,
                                 t.valid_at or 0, t.invalid_at, other.display, 2)


# -- review --------------------------------------------------------------------------------------------------


def approve(view: View, canonical: Name, other: Name) -> Op[tuple[Mutation | None, AliasResult]]:
    """Merge ``other`` into ``canonical`` (the alias merge), the audit entry naming the proposal and its evidence
    as they are scored now."""
    keys = yield from view.lookup([canonical, other])
    for name in (canonical, other):
        if name.key not in keys:
            raise NotFoundError(f"no entity {name.display!r} in scope {view.ctx.scope!r}; duplicates() lists the "
                                "pairs that can be merged")
    if keys[canonical.key] == keys[other.key]:
        raise InvalidInputError(f"{other.display!r} already names {canonical.display!r}: nothing to merge")
    scored = yield from _score_pair(view, keys[canonical.key], keys[other.key])
    result = yield from planning.alias_name(view, canonical, other)
    proposal = {"canonical": keys[canonical.key], "other": keys[other.key],
                "score": None if scored is None else scored.score,
                "evidence": [] if scored is None else [e.as_dict() for e in scored.evidence]}
    return Mutation.of(view, "merge duplicate", Provenance(client=view.ctx.client),
                       detail={"proposal": proposal}), result


def reject(view: View, a: Name, b: Name, reason: str) -> Op[tuple[Mutation | None, None]]:
    """Record two entities as distinct: never proposed again (a rejected ``SAME_AS``, moved by merges)."""
    keys = yield from view.lookup([a, b])
    for name in (a, b):
        if name.key not in keys:
            raise NotFoundError(f"no entity {name.display!r} in scope {view.ctx.scope!r}")
    first, second = rules.pair_key(keys[a.key], keys[b.key])
    if first == second:
        raise InvalidInputError(f"{a.display!r} and {b.display!r} name one entity already; unmerge it first")
    if (first, second) in (yield from distinct_pairs(view.ctx)):
        return None, None
    tombstone = {"scope": view.ctx.scope, "subject": first, "predicate": SAME_AS, "object": second,
                 "reason": reason, "rejected_at": view.now, "by": view.ctx.client}
    return Mutation.of(view, "distinct", Provenance(client=view.ctx.client), tombstones=[tombstone]), None


def _score_pair(view: View, a: str, b: str) -> Op[rules.Proposal | None]:
    rows = yield from read(Q.ENTITIES_BY_KEY, {"scope": view.ctx.scope, "keys": [a, b]})
    links = yield from _links(view.ctx, [a, b])
    profiles = _with_links((_profile(r) for r in rows), links)
    if len(profiles) < 2:
        return None
    return rules.score_pair(profiles[a], profiles[b], rules.ScopeStats(known=False), view.state.rules.single_valued)


# -- the operations behind the public calls (checked at once, as engine/operations.py's) -----------------


def pair_names(ctx: Context, first: object, second: object | None) -> tuple[Name, Name]:
    """The two names a review call is about: a proposal's (canonical, other), or two names."""
    if isinstance(first, DuplicateProposal):
        if second is not None:
            raise InvalidInputError("give a proposal, or two names, not both")
        return inputs.name(ctx, first.canonical, "canonical"), inputs.name(ctx, first.other, "other")
    if second is None:
        raise InvalidInputError("give a proposal from duplicates(), or two entity names")
    return inputs.name(ctx, first, "canonical"), inputs.name(ctx, second, "other")


def approve_step(ctx: Context, first: object, second: object | None) -> WriteStep[AliasResult]:
    canonical, other = pair_names(ctx, first, second)
    return WriteStep(ctx, lambda view: approve(view, canonical, other))


def reject_step(ctx: Context, first: object, second: object | None, reason: object) -> WriteStep[None]:
    a, b = pair_names(ctx, first, second)
    why = inputs.text(ctx, reason, "reason", 500) if isinstance(reason, str) else None
    if not why:
        raise InvalidInputError("a rejection needs a reason, e.g. reject_duplicate(p, reason='two people')")
    return WriteStep(ctx, lambda view: reject(view, a, b, why))
