"""One table of fields per record (synapse_graph/shapes.py): every field appears in every projection, row
mapper, stored property, export line, import check and output model, with its own value, and comes back."""

from __future__ import annotations

import json
import math
import re
import typing
from dataclasses import fields, replace
from datetime import datetime
from typing import Any

import pytest

from synapse_graph.catalogue import DIALECTS, fragment
from synapse_graph.engine import rows, transfer, writes
from synapse_graph.engine.context import Context
from synapse_graph.engine.import_lines import EXPORT_FORMAT, read_lines
from synapse_graph.engine.inputs import entity_row
from synapse_graph.instants import to_datetime
from synapse_graph.mcp.formatting import when
from synapse_graph.mcp.schemas import FactOut, ObservationOut, RecalledFactOut
from synapse_graph.models import Entity, Fact, Observation, RecalledFact
from synapse_graph.rules.timeline import Provenance, Record
from synapse_graph.shapes import ENTITY, FACT, FACT_ROW, OBSERVATION, Field, names, projected, stored

BASE = 1_600_000_000_000_000  # 2020-09-13, in the past of any importing clock
CTX = Context(scope="shapes-test", client="tests")


def sample(f: Field, position: int) -> Any:
    """A value of a field that is not its absent value and differs from every other field's."""
    by_kind: dict[str, Any] = {
        "id": f"id{position}", "end": f"key{position}", "predicate": "WORKS_AT", "text": f"text {position}",
        "names": [f"Name {position}"], "instant": BASE + position * 1_000_000, "confidence": 0.25, "count": 3,
        "state": "candidate", "bool": True}
    return by_kind[f.kind]


def samples(table: tuple[Field, ...]) -> dict[str, Any]:
    return {f.name: sample(f, i) for i, f in enumerate(table)}


def projected_row(table: tuple[Field, ...]) -> dict[str, Any]:
    """A row as the table's projection returns it: an end by name and key, the other fields by name."""
    values = samples(table)
    row = {projected(f): values[f.name] for f in table}
    row.update({f.name: f"Name of {values[f.name]}" for f in table if f.kind == "end"})
    return row


def shown(f: Field, row: dict[str, Any]) -> Any:
    value = row[f.name]
    return to_datetime(value) if f.kind == "instant" else value


def declared(model: Any) -> tuple[str, ...]:
    return tuple(model.model_fields)


LINKS = ("replaces", "replaced_by")
"""What a fact says of its neighbours in its timeline: read with it (fragments/links), never stored."""


def test_the_typed_classes_declare_the_tables_fields_in_table_order() -> None:
    assert declared(Fact) == (*names(FACT), *LINKS)
    assert declared(RecalledFact)[:len(FACT)] == names(FACT)
    record = [f.name for f in fields(Record)]
    at = record.index("provenance")
    assert (*record[:at], *(f.name for f in fields(Provenance)), *record[at + 1:]) == names(FACT)
    assert declared(Observation) == names(OBSERVATION)
    assert declared(Entity) == names(ENTITY)
    for out, table in ((FactOut, FACT), (ObservationOut, OBSERVATION)):
        assert set(declared(out)) - {"qualifiers"} == set(out.CARRIES)
        assert sorted(name for carried in out.CARRIES.values() for name in carried) == sorted(names(table, shown=True))
    assert set(declared(RecalledFactOut)) - set(declared(FactOut)) == {"via", "relevance"}
    assert declared(RecalledFact)[len(FACT):] == (*LINKS, "hop", "entry", "relevance", "score", "words", "rank", "why")
    for table, model in ((FACT, Fact), (OBSERVATION, Observation), (ENTITY, Entity)):
        for f in table:
            annotation = model.model_fields[f.name].annotation
            assert (datetime in (annotation, *typing.get_args(annotation))) == (f.kind == "instant"), f.name
            assert model.model_fields[f.name].is_required() == f.required, f.name


def _keys(projection: str) -> set[str]:
    return set(re.findall(r"(?:^|[{,]\s*)(\w+):", projection))


@pytest.mark.parametrize("dialect", DIALECTS)
def test_every_field_is_in_every_projection(dialect: str) -> None:
    for name, table in (("fact", FACT), ("observation", OBSERVATION), ("entity", ENTITY)):
        keys = _keys(fragment(name, dialect))
        assert {projected(f) for f in table} | set(names(table)) <= keys, name
        assert "{{" not in fragment(name, dialect)


def test_neo4j_stores_every_instant_of_a_new_record_as_a_datetime() -> None:
    # The rows of a write carry instants as ISO-8601 text on Neo4j (backends/neo4j.py): each is converted.
    for name, table, row in (("new_observation", OBSERVATION, "x"), ("new_entity", ENTITY, "x")):
        converted = set(re.findall(rf"datetime\({re.escape(row)}\.(\w+)\)", fragment(name, "neo4j")))
        assert converted == {f.name for f in table if f.kind == "instant"}, name
    # A new fact record's instants come in its row (a list) or its kind (a map): each is given converted.
    converted = set(re.findall(r"(\w+): datetime\((?:k\.\w+|x\[\d+\])\)", fragment("new_fact_record", "neo4j")))
    assert converted == {f.name for f in FACT if f.kind == "instant"}


def test_a_fact_row_reads_stores_exports_and_imports_every_field() -> None:
    row = projected_row(FACT)
    values = samples(FACT)
    record = rows.record(row)
    assert rows.record_values(record) == values
    fact = rows.fact(row)
    assert fact.model_dump() == {**{f.name: shown(f, row) for f in FACT}, "replaces": None, "replaced_by": None}
    out = FactOut.of(fact, []).model_dump(exclude={"qualifiers"})
    assert out["fact"] == (fact.subject, fact.predicate, fact.object)
    assert out["valid"] == f"{when(fact.valid_at)}/{when(fact.invalid_at)}"
    assert out["superseded"] == when(fact.expired_at)
    same = ("id", "confidence", "confirmations", "status", "source", "flag", "pinned")
    assert {name: out[name] for name in same} == {name: fact.model_dump()[name] for name in same}

    kinds = writes.Kinds(CTX.scope)
    row = writes.new_record(kinds, record, {})
    [kind] = kinds.maps
    props = {**kind, **{name: value for name, value in zip(FACT_ROW, row, strict=False) if value is not None}}
    assert (props["subject"], props["object"], props["kind"]) == (record.subject, record.object, 0)
    assert set(props) - {"subject", "object", "kind"} == {
        f.name for f in FACT if f.kind != "end" and stored(f, values[f.name]) is not None} | {
        "slot", "object_slot", "predicate_slot", "search_text"}
    assert all(props[f.name] == stored(f, values[f.name]) for f in FACT if f.kind != "end" and f.name in props)
    assert writes.new_record(kinds, replace(record, id="other"), {})[2] == 0 and len(kinds.maps) == 1
    zeros = [writes.new_record(kinds, replace(record, confidence=zero), {})[2] for zero in (0.0, -0.0, 0.0)]
    assert zeros == [1, 2, 1] and [math.copysign(1.0, kinds.maps[k]["confidence"]) for k in zeros] == [1, -1, 1]
    assert set(writes.updated_props(record)) == {"id"} | {f.name for f in FACT if f.updated}

    line = transfer.fact_line(record)
    assert tuple(line) == names(FACT)
    imported = read_lines(CTX, [json.dumps({"kind": "header", "format": EXPORT_FORMAT}),
                                json.dumps({"kind": "fact", **line})])
    assert [r for _, r in imported.records] == [record]


def test_a_fact_line_leaves_out_only_what_reads_as_absent() -> None:
    # A line without its optional fields imports as the record a store that stores none of them reads back.
    values = samples(FACT)
    line = {f.name: transfer.fact_line(rows.record_of(values))[f.name] for f in FACT if f.required}
    [(_, record)] = read_lines(CTX, [json.dumps({"kind": "header", "format": EXPORT_FORMAT}),
                                     json.dumps({"kind": "fact", **line})]).records
    absent = rows.record_values(record)
    assert all(absent[f.name] == (f.absent if f.absent is not None else None) for f in FACT if not f.required)


def test_an_observation_row_reads_exports_and_imports_every_field() -> None:
    row = projected_row(OBSERVATION)
    values = samples(OBSERVATION)
    observation = rows.observation(row)
    assert observation.model_dump() == {f.name: shown(f, row) for f in OBSERVATION}
    out = ObservationOut.of(observation, []).model_dump(exclude={"qualifiers"})
    assert out == {"id": observation.id, "entity": observation.entity, "text": observation.text,
                   "valid": when(observation.valid_at), "recorded": observation.recorded_at.date().isoformat(),
                   "source": observation.source}
    line = transfer.observation_line(row)
    assert tuple(line) == names(OBSERVATION)
    imported = read_lines(CTX, [json.dumps({"kind": "header", "format": EXPORT_FORMAT}),
                                json.dumps({"kind": "observation", **line})])
    [(_, kept)] = imported.observations
    assert {name: kept[name] for name in names(OBSERVATION)} == values


def test_an_entity_row_reads_exports_and_imports_every_field() -> None:
    row = {**projected_row(ENTITY), "name": "Dana", "key": "dana", "aliases": ["Dee"]}
    entity = rows.entity(row)
    assert entity.model_dump() == {f.name: shown(f, row) for f in ENTITY}
    line = entity.model_dump(mode="json")  # as engine/transfer.py exports it
    assert tuple(line) == names(ENTITY)
    imported = read_lines(CTX, [json.dumps({"kind": "header", "format": EXPORT_FORMAT}),
                                json.dumps({"kind": "entity", **line})])
    kept = imported.entities["dana"]
    assert {name: kept[name] for name in names(ENTITY)} == {name: row[name] for name in names(ENTITY)}
    # A new entity's row (the apply statements create it from x.<field>) holds every field.
    assert set(names(ENTITY)) <= set(entity_row("dana", "Dana", None, BASE))
