"""The one place where database rows become models: facts, records, entities, audit entries, state.

Every statement that returns a fact includes the ``{{fact}}`` fragment (``cypher/fragments/``),
so one mapper serves them all; likewise ``{{entity}}`` and ``{{audit}}``. Instants arrive as
UTC epoch microseconds from both backends.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import fields
from typing import Any

from synapse_graph.instants import to_datetime
from synapse_graph.models import AuditEntry, Entity, Fact, Observation, RecalledFact, ScopeRules
from synapse_graph.rules.timeline import Provenance, Record
from synapse_graph.rules.trust import logged_facts

Row = Mapping[str, Any]
TIME_FIELDS = ("valid_at", "invalid_at", "recorded_at", "expired_at")
PROVENANCE_FIELDS = tuple(f.name for f in fields(Provenance))


def _time(micros: int | None) -> Any:
    return None if micros is None else to_datetime(micros)


def record(row: Row) -> Record:
    """A fact row as the planner sees it: entities by key, instants as microseconds."""
    return Record(
        id=row["id"], subject=row["subject_key"], predicate=row["predicate"], object=row["object_key"],
        valid_at=row["valid_at"], invalid_at=row["invalid_at"], recorded_at=row["recorded_at"],
        expired_at=row["expired_at"], confidence=float(row["confidence"]), confirmations=int(row["confirmations"]),
        provenance=Provenance(**{k: row[k] for k in PROVENANCE_FIELDS}),
        status=row["status"] or "believed", flag=row["flag"], confirmed_at=row["confirmed_at"],
        pinned=bool(row["pinned"]),
    )


def _fact_fields(row: Row) -> dict[str, Any]:
    return {
        "id": row["id"], "subject": row["subject"], "predicate": row["predicate"], "object": row["object"],
        **{k: _time(row[k]) for k in TIME_FIELDS},
        "confidence": float(row["confidence"]), "confirmations": int(row["confirmations"]),
        **{k: row[k] for k in PROVENANCE_FIELDS},
        "status": row["status"] or "believed", "flag": row["flag"], "confirmed_at": _time(row["confirmed_at"]),
        "pinned": bool(row["pinned"]),
    }


def fact(row: Row) -> Fact:
    """A fact row as the user sees it: entities by their display names, instants as UTC datetimes."""
    return Fact(**_fact_fields(row))


def recalled(row: Row, *, hop: int, entry: str, relevance: float, score: float) -> RecalledFact:
    """A fact row that recall reached, with why."""
    return RecalledFact(**_fact_fields(row), hop=hop, entry=entry, relevance=relevance, score=score)


def observation(row: Row) -> Observation:
    return Observation(
        id=row["id"], entity=row["entity"], text=row["text"], recorded_at=to_datetime(row["recorded_at"]),
        expired_at=_time(row["expired_at"]), source=row["source"], client=row["client"], session=row["session"],
    )


def entity(row: Row) -> Entity:
    return Entity(
        name=row["name"], key=row["key"], aliases=list(row["aliases"] or []), type=row["type"],
        created_at=to_datetime(row["created_at"]), updated_at=to_datetime(row["updated_at"]),
    )


def audit(row: Row) -> AuditEntry:
    """An audit entry; the record ids it does not store are the ones its detail names (rules/trust.py)."""
    detail = json.loads(row["detail"] or "{}")
    facts = logged_facts(detail) if row["facts"] is None else list(row["facts"])
    return AuditEntry(
        id=row["id"], at=to_datetime(row["at"]), action=row["action"], client=row["client"], source=row["source"],
        model=row["model"], session=row["session"], entities=list(row["entities"] or []),
        facts=facts, detail=detail, secrets=list(row["secrets"] or []),
    )


RULE_FIELDS = tuple(ScopeRules.model_fields)


def stored_rules(row: Row) -> ScopeRules | None:
    """The rules stored with a scope (None if it never stored any)."""
    if all(row.get(k) is None for k in RULE_FIELDS):
        return None
    values = {k: row[k] for k in RULE_FIELDS if row.get(k) is not None}
    if "single_valued" in values:
        values["single_valued"] = frozenset(values["single_valued"])
    return ScopeRules(**values)


def rules_params(rules: ScopeRules) -> dict[str, Any]:
    """Rules as the scope node's properties."""
    return {**rules.model_dump(), "single_valued": sorted(rules.single_valued)}
