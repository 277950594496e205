"""What the store keeps of a fact, an observation and an entity: one table of fields each.

A table is the one list of a record's fields. It renders the Cypher that lists them (:data:`FRAGMENTS`:
the projection every read includes, the properties a new record is created with), and it drives the
row mappers (``engine/rows.py``), the properties a write stores (``engine/writes.py``), the export lines
and import checks (``engine/transfer.py``, ``engine/import_lines.py``) and which fields the MCP results
show (``mcp/schemas.py``). The typed classes that carry the fields (``models.Fact``, ``rules/timeline.Record``,
``models.Observation``, ``models.Entity``, the MCP results) declare them for the type checker; a unit test
keeps them equal to the tables (``tests/unit/test_shapes.py``). This module imports nothing of ours but
:mod:`~synapse_graph.instants`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, LiteralString

from synapse_graph.instants import Instant, to_datetime, to_iso

Kind = Literal["id", "end", "predicate", "text", "names", "instant", "confidence", "count", "state", "bool"]
"""What a field holds: an ``id``; an ``end``, an entity the record is about (read as its name, ``<field>_key``
its key); a ``predicate``; free ``text``; a list of ``names``; an ``instant`` (UTC epoch microseconds: stored
as each dialect stores instants, phrase ``instant``, read back with phrase ``micros``); a ``confidence``
(0..1); a ``count`` (1 or more); a trust ``state``; a ``bool``."""


@dataclass(frozen=True)
class Field:
    """One field of a stored record."""

    name: str
    kind: Kind
    required: bool = False
    """Every record has one; an export line must give it."""
    absent: Any = None
    """What a record that stores no value reads as: the store leaves out the value nearly every record has
    (a full confidence, a single confirmation, the believed state), and every read puts it back."""
    absent_from: str | None = None
    """Or, the field whose value a record that stores none reads as (an entity never updated: its creation)."""
    interned: bool = False
    """A string many records repeat: a dialect that can keeps one copy of it (phrase ``interned``)."""
    updated: bool = False
    """A write may change it in place (``engine/writes.py`` apply's updates); the other fields of a record
    never change (a changed record is expired and recorded again)."""
    shown: bool = True
    """The MCP results show it (``mcp/schemas.py``, perhaps folded with others: ``FactOut.CARRIES``); a fact's
    ``recorded_at`` and ``confirmed_at`` are left out (a qualifier says when a fact is old)."""
    limit: int = 200
    """The longest text an import accepts."""
    future: bool = False
    """An imported instant may lie ahead of the importing clock (a validity may; a belief time may not)."""


FACT: tuple[Field, ...] = (
    Field("id", "id", required=True),
    Field("subject", "end", required=True),
    Field("predicate", "predicate", required=True, interned=True),
    Field("object", "end", required=True),
    Field("valid_at", "instant", required=True, future=True),
    Field("invalid_at", "instant", future=True),
    Field("recorded_at", "instant", required=True, shown=False),
    Field("expired_at", "instant"),
    Field("confidence", "confidence", required=True, absent=1.0, updated=True),
    Field("confirmations", "count", required=True, absent=1, updated=True),
    Field("source", "text", limit=512, interned=True),
    Field("client", "text", interned=True, shown=False),
    Field("model", "text", interned=True, shown=False),
    Field("session", "text", interned=True, shown=False),
    Field("status", "state", absent="believed", interned=True, updated=True),
    Field("flag", "text", limit=600, interned=True, updated=True),
    Field("confirmed_at", "instant", updated=True, shown=False),
    Field("pinned", "bool", absent=False, updated=True),
)
"""A FACT record: the relationship from its subject (``a``) to its object (``b``), in export order. Its scope
is its entities' (every statement checks the subject's); it also stores its ``slot`` (``rules/slots.py``), its
search text (``rules/stems.py``: its sentence and source), its embedding when written with an embedder (and on
Neo4j the scope's search token while it is current)."""

OBSERVATION: tuple[Field, ...] = (
    Field("id", "id", required=True),
    Field("entity", "end", required=True),
    Field("text", "text", required=True),
    Field("valid_at", "instant", future=True),
    Field("recorded_at", "instant", required=True),
    Field("expired_at", "instant", shown=False),
    Field("source", "text"),
    Field("client", "text", shown=False),
    Field("session", "text", shown=False),
)
"""Free text about an entity (an ``Observation`` node ``o``, its entity ``e`` stored by key), in export order;
``valid_at``: when what it tells happened or held, if the writer said. It also stores its scope, its search
text (``rules/stems.py``), its embedding when written with an embedder (and on Neo4j the scope's search
token while it is current)."""

ENTITY: tuple[Field, ...] = (
    Field("name", "text", required=True),
    Field("key", "id", required=True, interned=True),
    Field("aliases", "names", absent=()),
    Field("type", "text", interned=True),
    Field("created_at", "instant", required=True),
    Field("updated_at", "instant", required=True, absent_from="created_at"),
)
"""An ``Entity`` node ``e``, in export order. It also stores its scope, its search text, its embedding (and on
Neo4j the scope's search token)."""


def field(table: tuple[Field, ...], name: str) -> Field:
    """The field called ``name`` of a table."""
    return next(f for f in table if f.name == name)


def names(table: tuple[Field, ...], *, shown: bool = False) -> tuple[str, ...]:
    """The fields' names, in table order (only those the MCP results show, if ``shown``)."""
    return tuple(f.name for f in table if f.shown or not shown)


# -- values ------------------------------------------------------------------------------------------------


def stored(f: Field, value: Any) -> Any:
    """A field's value as the store keeps it: nothing for its absent value, instants marked as instants."""
    if value is None or (f.absent is not None and value == f.absent) or (f.kind == "names" and not value):
        return None
    return Instant(value) if f.kind == "instant" else value


class Storer:
    """The values of some fields of a table as the store keeps them (:func:`stored`, field by field; absent
    values left out), prepared once: the fields that need nothing done are copied."""

    def __init__(self, table: tuple[Field, ...]) -> None:
        self._plain = tuple(f.name for f in table if f.absent is None and f.kind not in ("instant", "names"))
        # What stored() asks of each other field, unpacked once (a batch stores thousands of records).
        self._other = tuple((f.name, f.absent, f.kind == "instant", f.kind == "names")
                            for f in table if f.name not in self._plain)

    def __call__(self, values: Mapping[str, Any]) -> dict[str, Any]:
        props = {name: value for name in self._plain if (value := values[name]) is not None}
        for name, absent, instant, listed in self._other:  # stored(), inline
            value = values[name]
            if value is None or (absent is not None and value == absent) or (listed and not value):
                continue
            props[name] = Instant(value) if instant else value
        return props


_READ: dict[str, Callable[[Any], Any]] = {"confidence": float, "count": int, "bool": bool, "names": list}


def read(f: Field, value: Any) -> Any:
    """A projected value as the engine keeps it (instants in microseconds); an absent one reads as its default."""
    if value is None:
        return list(f.absent) if f.kind == "names" else f.absent
    return _READ.get(f.kind, _same)(value)


class Reader:
    """Reads a table's fields from projected rows as :func:`read` does (with ``datetimes``, instants as UTC
    datetimes, as the models show them), prepared once: a read of thousands of rows copies the columns that
    need nothing done, gives an absent value its default without a call, and converts only the others."""

    def __init__(self, table: tuple[Field, ...], *, by_key: bool, datetimes: bool,
                 columns: tuple[str, ...] | None = None) -> None:
        """With ``columns``, rows are lists of values in that order (a statement that returns many records flat),
        each field read by its place."""
        each: list[tuple[Field, Any]] = [(f, projected(f) if by_key else f.name) for f in table]
        if columns is not None:
            each = [(f, columns.index(column)) for f, column in each]
        converted = [(f.name, column, _converter(f, datetimes), f.absent) for f, column in each if f.kind != "names"]
        self._plain = tuple((name, column) for name, column, convert, absent in converted
                            if convert is None and absent is None)
        self._defaulted = tuple((name, column, absent) for name, column, convert, absent in converted
                                if convert is None and absent is not None)
        self._converted = tuple((name, column, convert, absent) for name, column, convert, absent in converted
                                if convert is not None)
        # a list of names, absent or not: read makes a new one
        self._names = tuple((f.name, column, f) for f, column in each if f.kind == "names")

    def __call__(self, row: Mapping[str, Any] | Sequence[Any]) -> dict[str, Any]:
        values = {name: row[column] for name, column in self._plain}
        for name, column, absent in self._defaulted:
            value = row[column]
            values[name] = absent if value is None else value
        for name, column, convert, absent in self._converted:
            value = row[column]
            values[name] = absent if value is None else convert(value)
        for name, column, f in self._names:
            values[name] = read(f, row[column])
        return values


def _converter(f: Field, datetimes: bool) -> Callable[[Any], Any] | None:
    """What :func:`read` (with ``datetimes``, and to a datetime) does to a field's present values (an absent one
    reads as its default), or None if nothing."""
    return to_datetime if datetimes and f.kind == "instant" else _READ.get(f.kind)


def exported(f: Field, value: Any) -> Any:
    """A value as an export line holds it (instants in ISO-8601 with microseconds)."""
    return to_iso(value) if f.kind == "instant" and value is not None else value


def projected(f: Field) -> str:
    """The column of a projected row that holds a field (an end by its key)."""
    return f"{f.name}_key" if f.kind == "end" else f.name


def _same(value: Any) -> Any:
    return value


# -- Cypher --------------------------------------------------------------------------------------------------


def _literal(value: Any) -> str:
    """A table's constant as a Cypher literal (never a user value)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, str) and value.isidentifier():
        return f"'{value}'"
    if value == ():
        return "[]"
    raise TypeError(f"no Cypher literal for {value!r}")


def _reading(f: Field, node: str, *, absent: bool = True) -> str:
    """Field ``f`` of ``node`` as a read projects it; with ``absent``, an absent value as its default."""
    value = f"{node}.{f.name}"
    if f.absent_from is not None:
        value = f"coalesce({value}, {node}.{f.absent_from})"
    elif f.absent is not None and absent:
        value = f"coalesce({value}, {_literal(f.absent)})"
    return f"{{{{micros({value})}}}}" if f.kind == "instant" else value


def _writing(f: Field, row: str, *, intern: bool = True, value: str | None = None) -> str:
    """Field ``f`` of ``row`` (or the expression ``value``) as a write stores it."""
    value = value or f"{row}.{f.name}"
    if f.kind == "instant":
        return f"{{{{instant({value})}}}}"
    return f"{{{{interned({value})}}}}" if intern and f.interned else value


def _projection(table: tuple[Field, ...], node: str) -> str:
    return ", ".join(f"{f.name}: {_reading(f, node)}" for f in table if f.kind != "end")


FACT_ROW = ("subject", "object", "kind", "id", "slot", "object_slot", "search_text", "valid_at", "invalid_at", "a", "b")
"""A new fact record as the apply statements take it (engine/writes.py creates): a list of these values, by
position (no names on the wire; its ends' keys, its kind's position in ``$kinds``, its own values, and where it is
sought by node ids its ends' ids ``a`` and ``b``, left off otherwise). Its other values are its kind's, sent once
for every record of the batch that shares them (:data:`FACT_KIND`)."""
FACT_KIND = (*(f.name for f in FACT if f.kind != "end" and f.name not in FACT_ROW), "predicate_slot", "ahead")
"""A new record's values that the records of a batch share (the same predicate, belief time, provenance, trust):
a map of them in ``$kinds`` (absent values left out), which a row names by its position."""


def _new_fact_record() -> str:
    def value(name: str) -> str:
        return f"x[{FACT_ROW.index(name)}]" if name in FACT_ROW else f"k.{name}"

    fields = [f"{f.name}: {_writing(f, '', value=value(f.name))}" for f in FACT if f.kind != "end"]
    extra = [f"{name}: {value(name)}" for name in ("slot", "object_slot", "predicate_slot", "search_text", "ahead")]
    # Its ends' exact keys (store format 13; fragments/links seeks them): its slot and each instant, as text.
    extra += [f"{key}: {{{{new_record_key({value('slot')}, {value(end)})}}}}"
              for key, end in (("starts", "valid_at"), ("ends", "invalid_at"))]
    # The scope's search token too while the record is current, its history token once expired, where the dialect
    # stores one (memory_token_entry).
    searched = "{{memory_token_entry(k.expired_at, $scope_token)}}"
    return "{" + ", ".join([*fields, *extra]) + searched + "}"


FRAGMENTS: dict[str, LiteralString] = {
    # The stored fields of a fact record r, read (fragments/fact.cypher adds its ends); and those statements
    # filter or order by: its trust state, its confirmations.
    "fact_fields": _projection(FACT, "r"),
    # The same fields as values, in FACT's order (ends left out), for a statement that returns many records flat
    # as lists (fragments/fact_values): no field names on the wire nor to decode; an absent value is read as its
    # default (Reader), not filled in by the server (a page of changes reads ~120 records of ~20 values).
    "fact_field_values": ", ".join(_reading(f, "r", absent=False) for f in FACT if f.kind != "end"),
    "state": _reading(field(FACT, "status"), "r"),
    "confirmations": _reading(field(FACT, "confirmations"), "r"),
    # The properties of a new record r, given as it is created: of a row x of engine/writes.py apply's creates
    # (a list: FACT_ROW) and of its kind k (its map in $kinds: FACT_KIND); absent values (null) are not stored.
    # Interned values are interned as they are first set; instants as the dialect stores them.
    "new_fact_record": _new_fact_record(),
    # The fields an update changes, from a row x of engine/writes.py apply's updates.
    "updated_fact_record": "SET " + ", ".join(
        f"r.{f.name} = {_writing(f, 'x', intern=False)}" for f in FACT if f.updated),
    # The stored fields of an observation o, read (fragments/observation.cypher adds its entity).
    "observation_fields": _projection(OBSERVATION, "o"),
    # A new observation o from a row x (its fields, its scope and search text), instants set one by one.
    "new_observation": "SET o = x, " + ", ".join(
        f"o.{f.name} = {_writing(f, 'x')}" for f in OBSERVATION if f.kind == "instant"),
    # The fields of an entity e, read; and a new one's from a row x (engine/inputs.py entity_row), as a map.
    "entity_fields": _projection(ENTITY, "e"),
    "new_entity_fields": ", ".join(f"{f.name}: {_writing(f, 'x')}" for f in ENTITY),
}
"""Fragments rendered from the tables: ``{{name}}`` in a statement (see :mod:`synapse_graph.catalogue`)."""
