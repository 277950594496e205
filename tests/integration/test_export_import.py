"""Export then import is lossless, and importing again changes nothing."""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from synapse_graph import ConcurrencyConflictError, InvalidImportError, Memory, Triple
from synapse_graph.engine import transfer
from synapse_graph.engine.import_lines import EXPORT_FORMAT
from tests.integration.helpers import objects, populate, snapshot

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


# -- an import into a scope that holds something: a restore, or refused --------------------------------------


def test_a_different_export_into_a_written_scope_is_refused_and_changes_nothing(
        make_memory: MakeMemory, source: Memory) -> None:
    other = make_memory()
    other.upsert([Triple(subject="Robert", predicate="LIKES", object="Tea"),  # a fact the source holds too
                  Triple(subject="Dana", predicate="LIVES_IN", object="Rome")])  # single-valued: Dana lives in Berlin
    target = make_memory()
    target.import_(list(source.export()))
    before = (snapshot(target), target.stats())

    with pytest.raises(InvalidImportError, match="empty scope") as refused:
        target.import_(list(other.export()))

    assert "purge" in str(refused.value) and "nothing was written" in str(refused.value)
    assert (snapshot(target), target.stats()) == before
    assert objects(target.facts("Dana", "LIVES_IN")) == ["Berlin"]
    assert len(target.facts("Robert", "LIKES", "Tea")) == 1
    other.upsert(Triple(subject="Dana", predicate="LIVES_IN", object="Oslo"))  # the same refusal for written facts
    with pytest.raises(InvalidImportError, match="empty scope"):
        other.import_(list(source.export()))
    assert objects(other.facts("Dana", "LIVES_IN")) == ["Oslo"]
    noted = make_memory()
    noted.observe("Dana", ["Speaks fluent Spanish"])  # an observation is held too
    with pytest.raises(InvalidImportError, match="1 observation this export does not"):
        noted.import_(list(source.export()))


def test_an_interrupted_import_completes_and_a_repeated_one_changes_nothing(
        make_memory: MakeMemory, source: Memory) -> None:
    source.observe("Dana", ["Speaks fluent Spanish"])  # held by the scope the import resumes in, compared
    exported = list(source.export())
    target = make_memory()

    def interrupt(written: int) -> None:  # progress(0) reports the entities: stop after the first chunk of records
        if written:
            raise RuntimeError("interrupted")

    with pytest.raises(RuntimeError, match="interrupted"):
        target.import_(exported, batch_size=2, progress=interrupt)
    assert 0 < len(of_kind(snapshot(target), "fact")) < len(of_kind(snapshot(source), "fact"))  # part of it is in
    target.import_(exported, batch_size=2)  # the scope holds only (part of) this export: the import completes
    assert data(snapshot(target)) == data(snapshot(source))
    target.upsert(Triple(subject="Kim", predicate="LIKES", object="coffee"))  # written since
    before = snapshot(target)
    again = target.import_(exported)  # adds nothing: changes nothing
    assert (again.created, again.entities_created) == (0, 0) and snapshot(target) == before


def test_a_write_during_an_import_stops_it_before_its_records_could_contradict_the_write(
        make_memory: MakeMemory, source: Memory, backend_settings: dict[str, Any]) -> None:
    exported = list(source.export())
    target = make_memory()
    settings = dict(backend_settings)
    # Another writer of the scope, synchronous whatever the API (progress is called on the importer's thread).
    writer = Memory(settings.pop("location"), scope=target.scope, **settings)
    chunks = []

    def write_between_chunks(count: int) -> None:
        chunks.append(count)
        if len(chunks) == 1:
            writer.upsert(Triple(subject="Dana", predicate="LIVES_IN", object="Rome"))

    with writer, pytest.raises(InvalidImportError, match="during the import"):
        target.import_(exported, batch_size=2, progress=write_between_chunks)
    assert len(chunks) == 1  # the next chunk was refused
    assert objects(target.facts("Dana", "LIVES_IN")) == ["Rome"]
    with pytest.raises(InvalidImportError, match="empty scope"):  # what the import left is no restore: say so
        target.import_(exported)


# -- rejections and the audit log come along whatever the scope held: nothing is silently lost ----------------


def reviewed(source: Memory) -> list[dict[str, Any]]:
    """The source's snapshot once it has rejected a candidate (a rejection line in its export)."""
    source.upsert(Triple(subject="Dana", predicate="WORKS_AT", object="Globex", confidence=0.3), model="x")
    [candidate] = source.pending()
    source.reject(candidate, "Dana never worked there")
    original = snapshot(source)
    assert len(of_kind(original, "rejection")) == 1
    return original


def assert_brought_over(target: Memory, original: list[dict[str, Any]]) -> None:
    """The target holds exactly the export's rejections, and its audit log exactly the export's entries besides
    its own (its rules and the imports); a rejected fact written again comes back flagged."""
    copied = snapshot(target)
    assert of_kind(copied, "rejection") == of_kind(original, "rejection")
    assert [line for line in of_kind(copied, "audit") if line not in of_kind(original, "audit")
            and line["action"] not in ("import", "rules")] == []
    assert sorted(line["id"] for line in of_kind(copied, "audit") if line["action"] not in ("import", "rules")) \
        == sorted(line["id"] for line in of_kind(original, "audit"))
    assert [line for line in data(copied) if line["kind"] != "rules"] == [
        line for line in data(original) if line["kind"] != "rules"]


def test_an_import_into_a_scope_holding_only_its_rules_brings_the_rejections_and_the_audit_log(
        make_memory: MakeMemory, source: Memory) -> None:
    original = reviewed(source)
    exported = list(source.export())
    target = make_memory(max_facts=50_000)  # stores the scope's rules: a scope written once, holding nothing else

    target.import_(exported)

    assert_brought_over(target, original)
    assert target.rules().max_facts == 50_000  # the scope keeps its own rules
    target.upsert(Triple(subject="Dana", predicate="WORKS_AT", object="Globex", confidence=0.3), model="x")
    [again] = target.pending()
    assert again.flag is not None and "Dana never worked there" in again.flag
    before = snapshot(target)
    repeated = target.import_(exported)  # adds nothing: changes nothing
    assert (repeated.created, repeated.entities_created) == (0, 0) and snapshot(target) == before


def test_a_resumed_import_into_a_scope_holding_its_rules_ends_with_exactly_the_export(
        make_memory: MakeMemory, source: Memory) -> None:
    original = reviewed(source)
    exported = list(source.export())
    target = make_memory(max_facts=50_000)

    def interrupt(written: int) -> None:
        if written:
            raise RuntimeError("interrupted")

    with pytest.raises(RuntimeError, match="interrupted"):
        target.import_(exported, batch_size=2, progress=interrupt)
    target.import_(exported, batch_size=2)

    assert_brought_over(target, original)
    before = snapshot(target)
    target.import_(exported)
    assert snapshot(target) == before


def test_an_export_read_page_by_page_gives_the_lines_of_one_read_and_imports_the_same(
        make_memory: MakeMemory, source: Memory, monkeypatch: pytest.MonkeyPatch) -> None:
    source.observe("Dana", ["likes tea", "moved twice", "speaks Greek"])
    whole = list(source.export())
    monkeypatch.setattr(transfer, "EXPORT_PAGE", 2)  # every paged kind takes several pages

    paged = list(source.export())

    assert paged == whole
    kinds = [json.loads(line)["kind"] for line in whole]
    assert all(kinds.count(kind) > 2 for kind in ("entity", "fact", "observation", "audit"))
    target = make_memory()
    target.import_(paged)
    assert data(snapshot(target)) == data(snapshot(source))
    before = snapshot(target)
    again = target.import_(paged)  # checks what the scope holds page by page too
    assert (again.created, again.entities_created) == (0, 0) and snapshot(target) == before


def test_a_write_between_pages_of_an_export_is_refused_never_mixed_in(
        backend_settings: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> None:
    options = dict(backend_settings)
    with Memory(options.pop("location"), scope=f"paged-{uuid.uuid4().hex[:10]}", **options) as memory:
        memory.upsert([Triple(subject=f"e{i}", predicate="KNOWS", object="Dana") for i in range(5)])
        monkeypatch.setattr(transfer, "EXPORT_PAGE", 2)
        lines = memory.export()
        assert json.loads(next(lines))["kind"] == "header"

        memory.upsert(Triple(subject="e9", predicate="KNOWS", object="Dana"))

        with pytest.raises(ConcurrencyConflictError, match="written while it was exported"):
            list(lines)
        assert sum(json.loads(line)["kind"] == "fact" for line in memory.export()) == 6
