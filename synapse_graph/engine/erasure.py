"""Erasure: hard-deleting an entity, or a whole scope, for good (nothing is kept in history)."""

from __future__ import annotations

import json
import uuid
from typing import Any

from synapse_graph.catalogue import Q
from synapse_graph.engine import rows
from synapse_graph.engine.changes import VERDICT_COLUMNS
from synapse_graph.engine.inputs import Name
from synapse_graph.engine.io import Op, Read, read, read_each, write
from synapse_graph.engine.scope import STORE_FORMAT
from synapse_graph.engine.view import View
from synapse_graph.models import PurgeResult
from synapse_graph.rules.changes import erased_verdicts
from synapse_graph.rules.growth import Changes, kind_of
from synapse_graph.rules.timeline import Record
from synapse_graph.rules.trust import erased_from, stored_facts


def purge_entity(view: View, name: Name) -> Op[PurgeResult]:
    """Delete an entity with its facts (history included), aliases, rejections and the audit entries
    that name it or one of its aliases (an entry that also logs another entity's change stays, without what
    named this one: what changed for the others stays in the log); a note without the name stays in the log."""
    key = (yield from view.lookup([name])).get(name.key)
    if key is None:
        return PurgeResult(entities=0, facts=0, records=0, aliases=0)
    touching = yield from read(Q.ENTITY_RECORDS, {"scope": view.ctx.scope, "key": key})
    facts = {(r["fact"]["subject_key"], r["fact"]["predicate"], r["fact"]["object_key"]) for r in touching}
    [named] = yield from read(Q.ENTRIES_NAMING, {"scope": view.ctx.scope, "key": key})
    banned = frozenset([*named["keys"], *named["observations"], *(r["fact"]["id"] for r in touching)])
    rewrites = [_rewrite(entry["entry"], entry["verdicts"], banned) for entry in named["entries"] if entry is not None]
    # The erased entity's name stays out of the log: the entry says what kind of thing happened.
    note = {"id": uuid.uuid4().hex, "scope": view.ctx.scope, "at": view.now, "action": "purge",
            "client": view.ctx.client, "entities": [], "secrets": [],
            "detail": json.dumps({"purged": "one entity"})}
    grown = yield from _purged_growth(view, key, [rows.record(r["fact"]) for r in touching])
    found = yield from write(Q.PURGE_ENTITY, {"scope": view.ctx.scope, "key": key, "now": view.now,
                                         "candidate": "candidate", "audit": note, "grown": grown,
                                         "rewrites": [r for r in rewrites if r is not None]})
    if not found:
        return PurgeResult(entities=0, facts=0, records=0, aliases=0)
    return PurgeResult(entities=1, facts=len(facts), records=found[0]["records"], aliases=found[0]["aliases"])


def _purged_growth(view: View, key: str, records: list[Record]) -> Op[list[dict[str, Any]]]:
    """What purging the entity ``key`` with its ``records`` and observations takes out of the scope's growth
    counters (rules/growth.py): all of them, from the instants they were made and gone at."""
    entities, observed = yield from read_each(
        Read(Q.ENTITY, {"scope": view.ctx.scope, "key": key}),
        Read(Q.OBSERVATIONS_OF_ENTITIES, {"scope": view.ctx.scope, "keys": [key], "history": True, "known_at": None,
                                          "limit": 10**9}))
    changes = Changes()
    for record in records:
        changes.add(kind_of(record), record.recorded_at, record.expired_at, -1)
    for row in observed:
        changes.add("observations", row["observation"]["recorded_at"], row["observation"]["expired_at"], -1)
    for row in entities:
        changes.add("entities", row["entity"]["created_at"], None, -1)
    return changes.rows(view.ctx.scope)


def _rewrite(row: dict[str, Any], verdicts: list[Any], banned: frozenset[str]) -> dict[str, Any] | None:
    """An entry naming an erased entity as it is kept (what names the entity left out, with the verdicts it stored
    of the events left: rules/changes.py erased_verdicts), or None: it goes."""
    entry = rows.audit(row)
    kept = erased_from(entry.entities, entry.detail, banned)
    if kept is None:
        return None
    entities, detail = kept
    stored = erased_verdicts(entry.action, detail, dict(zip(VERDICT_COLUMNS, verdicts, strict=True)), banned)
    return {"id": entry.id, "entities": entities, "facts": stored_facts((i for i in entry.facts if i not in banned),
                                                                        detail),
            "detail": json.dumps(detail, sort_keys=True, separators=(",", ":")),
            **{column: stored.get(column) for column in VERDICT_COLUMNS}}


PURGE_PAGE = 500
"""A scope's purge deletes at most this many entities (with every fact record they take part in), and as many of
each other kind it holds, per transaction: a 90k-fact scope purged in one transaction took a 1 GB Neo4j heap down."""


def purge_scope(view: View, so_far: PurgeResult) -> Op[tuple[PurgeResult, bool]]:
    """Delete one page of what the scope holds (see :data:`PURGE_PAGE`); its rules stay, and its version moves on
    (it never repeats). What was purged with ``so_far``, and whether the page found anything (else the scope is
    empty, and the purge is done)."""
    [row] = yield from write(Q.PURGE_SCOPE, {"scope": view.ctx.scope, "now": view.now, "format": STORE_FORMAT,
                                             "page": PURGE_PAGE})
    purged = PurgeResult(entities=so_far.entities + row["entities"], facts=so_far.facts + row["facts"],
                         records=so_far.records + row["records"], aliases=so_far.aliases + row["aliases"])
    return purged, row["deleted"] > 0
