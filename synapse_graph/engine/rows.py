"""The one place where database rows become models: facts, records, entities, audit entries, state.

Every statement that returns a fact includes the ``{{fact}}`` fragment (``cypher/fragments/``),
so one mapper serves them all; likewise ``{{entity}}``, ``{{observation}}`` and ``{{audit}}``. The
fields of a fact, an observation and an entity are those of their tables (:mod:`synapse_graph.shapes`).
Instants arrive as UTC epoch microseconds from both backends.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import fields as dataclass_fields
from datetime import datetime
from typing import Any

from pydantic import TypeAdapter

from synapse_graph.instants import to_datetime
from synapse_graph.models import (
    AuditEntry,
    Entity,
    Fact,
    FactLink,
    Observation,
    RecalledFact,
    RecalledObservation,
    RecallReason,
    ScopeRules,
)
from synapse_graph.rules.built import built
from synapse_graph.rules.timeline import Provenance, Record
from synapse_graph.rules.trust import first_logged_facts, logged_facts
from synapse_graph.shapes import ENTITY, FACT, OBSERVATION, Reader

Row = Mapping[str, Any]
PROVENANCE_FIELDS = tuple(f.name for f in dataclass_fields(Provenance))
RECORD_FIELDS = tuple(f.name for f in dataclass_fields(Record))


_RECORD = Reader(tuple(f for f in FACT if f.name not in PROVENANCE_FIELDS), by_key=True, datetimes=False)
_PROVENANCE = Reader(tuple(f for f in FACT if f.name in PROVENANCE_FIELDS), by_key=True, datetimes=False)
_FACT = Reader(FACT, by_key=False, datetimes=True)
_OBSERVATION = Reader(OBSERVATION, by_key=False, datetimes=True)
_ENTITY = Reader(ENTITY, by_key=False, datetimes=True)


def record(row: Row) -> Record:
    """A fact row as the planner sees it: entities by key, instants as microseconds (every field of a record
    and of its provenance read: built without their ``__init__``, rules/built.py)."""
    values = _RECORD(row)
    values["provenance"] = built(Provenance, _PROVENANCE(row))
    return built(Record, {name: values[name] for name in RECORD_FIELDS})  # in field order, as __init__ sets them


RECORD_VALUE_COLUMNS = ("subject_key", "object_key", *(f.name for f in FACT if f.kind != "end"))
"""The columns of a fact record as the planner reads it, a list of values (fragments/record_values.cypher), in order:
its ends' keys, then its fields."""
RECORD_ID = RECORD_VALUE_COLUMNS.index("id")
"""The place of a record's id in its list of values."""
_RECORD_VALUES = Reader(tuple(f for f in FACT if f.name not in PROVENANCE_FIELDS), by_key=True, datetimes=False,
                        columns=RECORD_VALUE_COLUMNS)
_PROVENANCE_VALUES = Reader(tuple(f for f in FACT if f.name in PROVENANCE_FIELDS), by_key=True, datetimes=False,
                            columns=RECORD_VALUE_COLUMNS)


def record_of_values(row: Sequence[Any]) -> Record:
    """:func:`record` of a record's list of values (fragments/record_values.cypher), read by place."""
    values = _RECORD_VALUES(row)
    values["provenance"] = built(Provenance, _PROVENANCE_VALUES(row))
    return built(Record, {name: values[name] for name in RECORD_FIELDS})


def record_of(values: Mapping[str, Any]) -> Record:
    """A record of its fields' values (:data:`~synapse_graph.shapes.FACT`; the provenance apart)."""
    return Record(**{k: v for k, v in values.items() if k not in PROVENANCE_FIELDS},
                  provenance=Provenance(**{k: values[k] for k in PROVENANCE_FIELDS}))


def record_values(record: Record) -> dict[str, Any]:
    """A record's fields' values, by name (:data:`~synapse_graph.shapes.FACT`; a test checks they are its fields)."""
    values = dict(vars(record))
    values.update(vars(values.pop("provenance")))
    return values


def fact(row: Row, links: list[Row] | None = None) -> Fact:
    """A fact row as the user sees it: entities by their display names, instants as UTC datetimes; with
    ``links`` (``{{links}}``: records of its timeline that meet it), what it replaced and what replaced it."""
    values = _FACT(row)
    if links is not None:
        values.update(linked(values["valid_at"], values["invalid_at"], links))
    return Fact(**values)


FACT_VALUE_COLUMNS = ("subject", "subject_key", "object", "object_key", *(f.name for f in FACT if f.kind != "end"))
"""The columns of a fact record as a list of values (fragments/fact_values.cypher), in order: a fact's fields and
its ends' keys (an entity filter reads them), not their types (a fact does not show them)."""
_FACT_VALUES = Reader(FACT, by_key=False, datetimes=True, columns=FACT_VALUE_COLUMNS)
_ENDS = FACT_VALUE_COLUMNS.index("subject_key"), FACT_VALUE_COLUMNS.index("object_key")


def facts_of_values(found: Sequence[Sequence[Any]]) -> list[tuple[Fact, tuple[str, str]]]:
    """Fact records' lists of values (fragments/fact_values.cypher) as the user sees them (:func:`fact`), each
    with its subject's and object's keys; read by place, without a row of names first, and made in one
    validation (a page of changes reads ~120 records: a third cheaper than one at a time)."""
    made = _FACTS.validate_python([_FACT_VALUES(values) for values in found])
    first, second = _ENDS
    return [(fact, (values[first], values[second])) for fact, values in zip(made, found, strict=True)]


_FACTS = TypeAdapter(list[Fact])


def linked(valid_at: datetime, invalid_at: datetime | None, links: Sequence[Row]) -> dict[str, list[FactLink]]:
    """``replaces`` and ``replaced_by`` of a fact valid from ``valid_at`` to ``invalid_at``, of its ``links``."""
    found = sorted((FactLink(id=x["id"], object=x["object"], valid_at=to_datetime(x["valid_at"]),
                             invalid_at=None if x["invalid_at"] is None else to_datetime(x["invalid_at"]))
                    for x in links), key=lambda x: (x.valid_at, x.object, x.id))
    return {"replaces": [x for x in found if x.invalid_at == valid_at],
            "replaced_by": [x for x in found if x.valid_at == invalid_at]}


def recalled(row: Row, *, hop: int, entry: str | None, relevance: float, score: float, words: list[str],
             rank: int = 0, why: RecallReason | None = None) -> RecalledFact:
    """A fact row that recall reached, with why."""
    return RecalledFact(**_FACT(row), hop=hop, entry=entry, relevance=relevance, score=score, words=words, rank=rank,
                        why=why)


def recalled_observation(row: Row, *, relevance: float, score: float, rank: int, why: RecallReason
                         ) -> RecalledObservation:
    """An observation row that recall found, with why."""
    return RecalledObservation(**_OBSERVATION(row), relevance=relevance, score=score, rank=rank, why=why)


def observation(row: Row) -> Observation:
    return Observation(**_OBSERVATION(row))


def entity(row: Row) -> Entity:
    return Entity(**_ENTITY(row))


def audit(row: Row, brief: int | None = None) -> AuditEntry:
    """An audit entry; the record ids it does not store are the ones its detail names (rules/trust.py). In brief
    (fragments/audit_brief) its lists are cut to ``brief`` and counted, its detail left out."""
    detail = json.loads(row["detail"] or "{}")
    if brief is None:
        facts, shown = (logged_facts(detail) if row["facts"] is None else list(row["facts"])), {}
    else:  # the stored ids were cut and counted by the statement; the detail's are cut and counted here
        facts, count = first_logged_facts(detail, brief) if row["facts"] is None else (row["facts"], row["fact_count"])
        detail, shown = {}, {"brief": True, "entity_count": row["entity_count"] or 0, "fact_count": count}
    return AuditEntry(**{
        "id": row["id"], "at": to_datetime(row["at"]), "action": row["action"], "client": row["client"],
        "source": row["source"], "model": row["model"], "session": row["session"],
        "entities": list(row["entities"] or []), "facts": facts, "detail": detail,
        "secrets": list(row["secrets"] or []), **shown})


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
