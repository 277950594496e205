"""Undoing a merge: what a merge keeps to be undone, and the unmerge that uses it.

A merge deletes the merged-away entity and its records (their copies are made on the kept entity), so
its audit entry keeps what undoing needs (:func:`snapshot`, under ``detail.merges``): the entity as it
was, every record it held (history included) as an export writes them, the kept entity's records the merge
expired or changed (as they were), the ids of the records it created, the aliases, observations and
rejections it moved. :func:`unmerge` brings the entity back with exactly those records, deletes what the
merge created, restores what it changed, and moves the aliases, observations and rejections back, so that
reads of any time before the merge, at any ``known_at`` before it, answer as before it.

Writes made to the kept entity after the merge stay on it (the result lists them); a record the merge made
that a later write expired keeps that later history where it is.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from synapse_graph.catalogue import Q
from synapse_graph.engine import embeddings, inputs
from synapse_graph.engine.context import Context
from synapse_graph.engine.import_lines import entity_of, record_of
from synapse_graph.engine.io import Op, PlanOutdated, Read, read, read_each, write
from synapse_graph.engine.scope import STORE_FORMAT, ScopeState
from synapse_graph.engine.steps import WriteStep
from synapse_graph.engine.view import View
from synapse_graph.engine.writes import (
    SHARED_AUDIT_VALUES,
    Mutation,
    audit_entry,
    counter_params,
    creates,
    grown,
    record_counts,
    shared_apart,
    tally,
)
from synapse_graph.errors import InvalidInputError, NotFoundError
from synapse_graph.instants import Instant, to_iso
from synapse_graph.models import UnmergeResult
from synapse_graph.rules.grams import grams
from synapse_graph.rules.recall import scope_token, search_text
from synapse_graph.rules.text import name_key
from synapse_graph.rules.timeline import Plan, Provenance, Record

AUDIT_SEARCHED = 10_000
"""How many of the newest audit entries naming an entity are searched for its merge."""


def _line(record: Record) -> dict[str, Any]:
    from synapse_graph.engine.transfer import fact_line  # transfer imports the write path

    return fact_line(record)


def snapshot(view: View, source: Mapping[str, Any], target: str, source_records: Sequence[Record],
             target_records: Sequence[Record], plan: Plan) -> Op[dict[str, Any]]:
    """What a merge of ``source`` into ``target`` (by ``plan``) must keep to be undone."""
    key = source["key"]
    aliases, observed, rejected, targets = yield from read_each(
        Read(Q.ALIAS_KEYS, {"scope": view.ctx.scope, "key": key}),
        Read(Q.OBSERVATIONS_OF_ENTITIES, {"scope": view.ctx.scope, "keys": [key], "history": True,
                                          "known_at": None, "limit": 10**9}),
        Read(Q.ENTITY_TOMBSTONES, {"scope": view.ctx.scope, "key": key}),
        Read(Q.ENTITY, {"scope": view.ctx.scope, "key": target}))
    moved_ids = {r.id for r in source_records}
    changed = {r.id for r in (*plan.expires, *plan.updates)}
    # The target is read before this write: a canonical name new to the scope is created by the merge itself.
    kept: dict[str, Any] = targets[0]["entity"] if targets else {"aliases": None, "updated_at": view.now}
    return {
        "source": key, "into": target, "at": to_iso(view.now),
        "entity": {"name": source["name"], "key": key, "aliases": source["aliases"] or [], "type": source["type"],
                   "created_at": to_iso(source["created_at"]), "updated_at": to_iso(source["updated_at"])},
        "records": [_line(r) for r in source_records],
        "target_before": [_line(r) for r in target_records if r.id in changed and r.id not in moved_ids],
        "created": [r.id for r in plan.creates],
        "aliases": [{"key": a["key"], "name": a["name"]} for a in aliases],
        "target_aliases": kept["aliases"] or [],
        "target_updated_at": to_iso(kept["updated_at"]),
        "observations": [o["observation"]["id"] for o in observed],
        "rejections": [{**t, "rejected_at": to_iso(t["rejected_at"])} for t in rejected],
    }


def unmerge_step(ctx: Context, name: str) -> WriteStep[UnmergeResult]:
    wanted = inputs.name(ctx, name, "name")
    return WriteStep(ctx, lambda view: unmerge(view, wanted))


def _find(view: View, key: str) -> Op[tuple[str, dict[str, Any]]]:
    """The newest merge of the entity ``key`` (its audit entry's id and the snapshot kept)."""
    from synapse_graph.engine.trust import AuditQuery, audit

    for entry in (yield from audit(view.ctx, AuditQuery(entities=[key], limit=AUDIT_SEARCHED))):
        for kept in entry.detail.get("merges") or ():
            if isinstance(kept, dict) and kept.get("source") == key:
                return entry.id, kept
    raise NotFoundError(f"the audit log of scope {view.ctx.scope!r} records no merge of {key!r}: nothing to unmerge")


def unmerge(view: View, name: inputs.Name) -> Op[tuple[Mutation | None, UnmergeResult]]:
    """Undo the newest merge of the entity once called ``name`` (see the module's docstring)."""
    ctx = view.ctx
    now_key = (yield from view.lookup([name])).get(name.key)
    if now_key is None:
        raise NotFoundError(f"no entity or alias {name.display!r} in scope {ctx.scope!r}")
    if now_key == name.key:
        raise InvalidInputError(f"{name.display!r} is an entity of its own, not merged into another: nothing to "
                                "unmerge")
    entry_id, kept = yield from _find(view, name.key)
    source, target = kept["source"], kept["into"]
    if now_key != target:
        raise InvalidInputError(f"{name.display!r} was merged into {target!r}, which has been merged into "
                                f"{now_key!r} since: unmerge {target!r} first")
    merged_at = _micros(kept["at"])
    entity = entity_of(ctx, kept["entity"])
    restored = [record_of(ctx, line, view.now) for line in kept["records"]]
    before = [record_of(ctx, line, view.now) for line in kept["target_before"]]
    present = yield from view.entity_records(target)
    by_id = {r.id: r for r in present}
    made = set(kept["created"])
    later = sorted(r.id for r in present if r.recorded_at > merged_at and r.id not in made)
    # A record of the kept entity that the merge changed (in place, or by a record it made instead) and a later
    # write then expired: restored as it was, but ended where that later write ended it (the later write's own
    # record stays on the kept entity).
    ended_since = {r.id: r.expired_at for r in present if r.expired_at is not None and r.expired_at > merged_at}
    ended_fact = {(r.subject, r.predicate, r.object): ended_since[r.id] for r in present
                  if r.id in made and r.id in ended_since}
    before = [replace(r, expired_at=ended_since.get(r.id) or ended_fact.get((r.subject, r.predicate, r.object)))
              if r.expired_at is None else r for r in before]
    changed = sorted(i for i in made | {r.id for r in before} if i in by_id
                     and (by_id[i].expired_at or 0) > merged_at)
    deleted = [by_id[i] for i in sorted(made | {r.id for r in (*restored, *before)}) if i in by_id]
    observations = yield from read(Q.OBSERVATIONS_OF_ENTITIES, {"scope": ctx.scope, "keys": [target], "history": True,
                                                           "known_at": None, "limit": 10**9})
    moved_back = [o["observation"]["id"] for o in observations if o["observation"]["id"] in set(kept["observations"])]
    later_observations = [o["observation"]["id"] for o in observations
                          if o["observation"]["recorded_at"] > merged_at and o["observation"]["id"] not in moved_back]
    [target_row] = yield from read(Q.ENTITY, {"scope": ctx.scope, "key": target})
    own_names = {name_key(n) for n in (entity["name"], *(entity["aliases"] or ()))}
    target_aliases = [a for a in target_row["entity"]["aliases"] or [] if name_key(a) not in own_names]
    # The kept entity's names as before the merge, and when it was last updated then, unless names were added since.
    updated = Instant(_micros(kept["target_updated_at"]) if target_aliases == kept["target_aliases"] else view.now)
    plan = Plan(creates=[*restored, *before])
    mutation = Mutation(action="unmerge", provenance=Provenance(client=ctx.client), plan=plan, touches=[source, target],
                        detail={"unmerge": {"merge": entry_id, "source": source, "into": target},
                                "deleted": [r.id for r in deleted], "kept_on_target": later})
    parts = {
        "deletes": [r.id for r in deleted], "drop_aliases": [source],
        "entities": [{**entity, "created_at": Instant(entity["created_at"]),
                      "updated_at": None if entity["updated_at"] is None else Instant(entity["updated_at"])}],
        "aliases": [{"key": a["key"], "name": a["name"], "target": source, "search_text": search_text(a["name"]),
                     "grams": grams(a["name"])}
                    for a in kept["aliases"]],
        "alias_lists": [{"key": target, "names": target_aliases or None, "updated_at": updated}],
        "observations": [{"id": i, "entity": source} for i in moved_back],
        "tombstones": [{**t, "scope": ctx.scope, "rejected_at": Instant(_micros(t["rejected_at"]))}
                       for t in kept["rejections"]],
    }
    spoken = {source: entity["name"], target: target_row["entity"]["name"]}
    yield from _apply(ctx, view.state, mutation, parts, deleted, view.now, spoken)
    result = UnmergeResult(restored=entity["name"], kept=target_row["entity"]["name"], merged_at=kept["at"],
                           facts_restored=len(restored), observations_restored=len(moved_back),
                           aliases_restored=len(kept["aliases"]), later_facts=later,
                           later_observations=later_observations, changed_since=changed)
    return None, result


def _apply(ctx: Context, state: ScopeState, mutation: Mutation, parts: dict[str, Any], deleted: Sequence[Record],
           now: Instant, spoken: dict[str, str]) -> Op[None]:
    """Apply an unmerge with its audit entry, in one statement (the scope's version checked, as every write)."""
    params = {
        "scope": ctx.scope, "scope_token": scope_token(ctx.scope), "format": STORE_FORMAT, "version": state.version,
        "batch": uuid.uuid4().hex, "now": now, **counter_params(tally(mutation.plan.creates, deleted)), **parts,
        **{k: v for k, v in creates(ctx.scope, mutation.plan.creates, {}, (), spoken).items() if k != "creates_by_id"},
        "counts": record_counts(mutation.plan.creates, deleted),
        "audit": [shared_apart(audit_entry(ctx, mutation, now), SHARED_AUDIT_VALUES)],
        "grown": grown(ctx.scope, mutation, now, deleted, parts["entities"]),
    }
    if not (yield from write(Q.APPLY_UNMERGE, params, last=ctx.embedder is None)):
        raise PlanOutdated
    # The restored entity's name and the restored records' sentences (observations kept their vectors).
    yield from embeddings.store(ctx, entities=parts["entities"], facts=mutation.plan.creates, spoken=spoken)


def _micros(iso: str) -> int:
    from synapse_graph.rules.timeparse import to_micros

    return to_micros(iso)
