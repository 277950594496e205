"""rules/built.py: the frozen dataclasses a batch makes by the thousand, built without their ``__init__``, are
the instances ``__init__`` makes (equal, same hash, same vars), and each builder gives every field."""

from __future__ import annotations

from dataclasses import fields, replace
from typing import Any

from synapse_graph.engine import rows
from synapse_graph.engine.context import Context
from synapse_graph.engine.inputs import CheckedTriple, batch
from synapse_graph.models import Triple
from synapse_graph.rules.built import built, rebuilt
from synapse_graph.rules.timeline import Provenance, Record, TimelinePlanner, Write

PROVENANCE = Provenance(source="notes", client="c")


def _every_field(made: Any) -> None:
    assert list(vars(made)) == [f.name for f in fields(made)]
    assert built(type(made), dict(vars(made))) == type(made)(**vars(made))
    assert hash(built(type(made), dict(vars(made)))) == hash(type(made)(**vars(made)))


def test_built_is_init() -> None:
    values = {"id": "x", "subject": "a", "predicate": "P", "object": "b", "valid_at": 1, "invalid_at": None,
              "recorded_at": 2, "expired_at": None, "confidence": 0.5, "confirmations": 1, "provenance": PROVENANCE,
              "status": "believed", "flag": None, "confirmed_at": None, "pinned": False}
    _every_field(built(Record, values))
    assert built(Record, values) == Record(**values)
    assert repr(built(Record, values)) == repr(Record(**values))


def test_planner_records_and_writes_have_every_field() -> None:
    write = Write(subject="a", predicate="P", object="b", valid_at=1, invalid_at=None, confidence=1.0,
                  single_valued=False, provenance=PROVENANCE)
    planner = TimelinePlanner([], now=5)
    planner.add(write)
    [record] = planner.plan().creates
    _every_field(record)
    by_values = TimelinePlanner([], now=5)  # the first write of a timeline as planning.facts gives it
    assert by_values.first("a", "P", "b", 1, None, 1.0, PROVENANCE, "believed", None)
    [made] = by_values.plan().creates
    _every_field(made)
    assert list(vars(made).items()) == list(vars(replace(record, id=made.id)).items())


def test_checked_triples_have_every_field() -> None:
    ctx = Context(scope="s", client="c")
    checked = batch(ctx, [Triple(subject="Dana", predicate="LIVES_IN", object="Paris")], replace=False,
                    valid_at=None, source=None, model=None, session=None)
    [triple] = checked.triples
    assert isinstance(triple, CheckedTriple)
    _every_field(triple)


def test_read_records_have_every_field() -> None:
    row = {"id": "x", "subject_key": "a", "predicate": "P", "object_key": "b", "valid_at": 1, "invalid_at": None,
           "recorded_at": 2, "expired_at": None, "confidence": 0.5, "confirmations": 3, "source": None,
           "client": "c", "model": None, "session": None, "status": None, "flag": None, "confirmed_at": None,
           "pinned": None}
    record = rows.record(row)
    _every_field(record)
    _every_field(record.provenance)


def test_rebuilt_is_replace() -> None:
    # The planner's replace of records (timeline closes, confirmations, new ids): the instance replace() makes.
    values = {"id": "x", "subject": "a", "predicate": "P", "object": "b", "valid_at": 1, "invalid_at": None,
              "recorded_at": 2, "expired_at": None, "confidence": 0.5, "confirmations": 1, "provenance": PROVENANCE,
              "status": "believed", "flag": None, "confirmed_at": None, "pinned": False}
    for made in (Record(**values), built(Record, values)):
        for changes in ({}, {"invalid_at": 7}, {"id": "y", "recorded_at": 9}, {"confirmations": 2, "flag": "f"}):
            again = rebuilt(made, **changes)
            _every_field(again)
            assert again == replace(made, **changes) and hash(again) == hash(replace(made, **changes))
            assert repr(again) == repr(replace(made, **changes))
            assert made == Record(**values)  # the original is unchanged
