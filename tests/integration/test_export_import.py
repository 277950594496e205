"""Export then import is lossless, and importing again changes nothing."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from synapse_graph import Memory, Triple
from synapse_graph.engine.import_lines import EXPORT_FORMAT
from tests.integration.helpers import populate, snapshot

MakeMemory = Callable[..., Memory]


def of_kind(lines: list[dict[str, Any]], *kinds: str) -> list[dict[str, Any]]:
    return [line for line in lines if line["kind"] in kinds]


def data(lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every line but the header and the audit log (which records the import itself as well)."""
    return [line for line in lines if line["kind"] not in ("header", "audit")]


@pytest.fixture
def source(memory: Memory) -> Memory:
    """A scope with history, a late correction, aliases (merged and plain), a retraction, and more."""
    populate(memory)
    memory.upsert(
        [
            Triple(subject="me", predicate="LIVES_IN", object="Zoë's Café", valid_at="2018-03-01T08:15:30.123456Z"),
            Triple(subject="me", predicate="VISITED", object="Rome", valid_at="2019-01-01", invalid_at="2019-02-01"),
        ],
        source='notes "2019"',
    )
    memory.upsert(Triple(subject="I", predicate="LIVES_IN", object="Paris", valid_at="2020-01-01"))
    memory.upsert(Triple(subject="I", predicate="VISITED", object="Rome", valid_at="2019-01-20",
                         invalid_at="2019-03-01", confidence=0.4))  # merged with the first visit
    memory.retract("Dana", "KNOWS")
    return memory


def test_round_trip_is_lossless(make_memory: MakeMemory, source: Memory, tmp_path: Path) -> None:
    exported = list(source.export())
    path = tmp_path / "export.jsonl"
    path.write_text("\n".join(exported) + "\n", encoding="utf-8")
    target = make_memory()

    result = target.import_(path)

    copied, original = snapshot(target), snapshot(source)
    assert data(copied) == data(original)
    assert of_kind(copied, "header") == [{"kind": "header", "format": EXPORT_FORMAT, "scope": target.scope}]
    # The audit log comes along; the only entries added are the import's own.
    added = [line for line in of_kind(copied, "audit") if line not in of_kind(original, "audit")]
    assert len(of_kind(copied, "audit")) == len(of_kind(original, "audit")) + len(added)
    assert {line["action"] for line in added} <= {"import"}
    assert result.created == sum(1 for line in copied if line["kind"] == "fact")
    assert target.stats().model_dump(exclude={"scope"}) == source.stats().model_dump(exclude={"scope"})
    # Reads agree too, belief time and aliases included.
    earliest = min(fact.recorded_at for fact in source.facts(include_history=True))
    for name in ("Dana", "Bob", "me"):
        assert target.history(name) == source.history(name)
        assert target.history(name, known_at=earliest) == source.history(name, known_at=earliest)
        assert target.entity(name) == source.entity(name)


def test_importing_twice_changes_nothing(make_memory: MakeMemory, source: Memory) -> None:
    exported = list(source.export())
    target = make_memory()
    target.import_(exported)
    before = (snapshot(target), target.stats())

    again = target.import_(exported)

    assert (again.created, again.entities_created) == (0, 0)
    assert (snapshot(target), target.stats()) == before


def test_importing_a_scope_into_itself_changes_nothing(source: Memory) -> None:
    before = (snapshot(source), source.stats())
    result = source.import_(list(source.export()))
    assert (result.created, result.entities_created) == (0, 0)
    assert (snapshot(source), source.stats()) == before


def test_an_export_of_an_earlier_format_imports(make_memory: MakeMemory, source: Memory) -> None:
    """Format 3 added the session registry: a format-2 export (no session lines) imports unchanged."""
    source.register_session("s-1")
    lines = [json.loads(line) for line in source.export()]
    assert [line["id"] for line in of_kind(lines, "session")] == ["s-1"]
    lines[0]["format"] = "synapse-graph/2"
    target = make_memory()
    target.import_([json.dumps(line) for line in lines if line["kind"] != "session"])
    assert data(snapshot(target)) == [line for line in data(snapshot(source)) if line["kind"] != "session"]
    assert target.sessions() == []
