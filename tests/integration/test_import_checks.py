"""``import_`` is a restore path: it takes exactly what ``export`` produces and refuses what could make the store lie.

Each refusal test takes a real export (entities, a merged and a plain alias, history, a
rejection, the audit log), spoils one line and imports it into an empty scope: the import
must raise :class:`InvalidImportError` naming that line, and leave the scope empty. The
last tests import valid exports that earlier versions broke.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from synapse_graph import InvalidImportError, InvalidInputError, Memory, Triple, check_export
from synapse_graph.rules.text import name_key
from tests.integration.helpers import populate, snapshot

pytestmark = pytest.mark.integration

MakeMemory = Callable[..., Memory]
Line = dict[str, Any]
_SOURCES: dict[str, list[Line]] = {}
TOKEN_LIKE = "GHP_" + "A1B2" * 9  # upper case: no GitHub token; its key (lower case) looks like one


def source_export(make_memory: MakeMemory, backend: str) -> list[Line]:
    """The export of a varied scope, written once per backend (the tests only read it)."""
    if backend not in _SOURCES:
        memory = make_memory()
        populate(memory)
        memory.upsert(Triple(subject="Dana", predicate="WORKS_AT", object="Globex", confidence=0.3), model="x")
        [candidate] = memory.pending()
        memory.reject(candidate, "Dana never worked there")
        memory.register_session("s-1")
        _SOURCES[backend] = [json.loads(line) for line in memory.export()]
    return copy.deepcopy(_SOURCES[backend])


def first(lines: list[Line], kind: str, where: Callable[[Line], bool] = lambda _: True) -> int:
    return next(i for i, line in enumerate(lines) if line["kind"] == kind and where(line))


def iso(when: datetime) -> str:
    return when.isoformat(timespec="microseconds").replace("+00:00", "Z")


def later(text: str, **delta: float) -> str:
    return iso(datetime.fromisoformat(text.replace("Z", "+00:00")) + timedelta(**delta))


def assert_refused(target: Memory, lines: list[str], line: int) -> InvalidImportError:
    """The import is refused naming ``line`` (1-based), and the scope is left empty."""
    with pytest.raises(InvalidImportError) as refused:
        target.import_(lines)
    assert refused.value.line == line, str(refused.value)
    assert f"import line {line}:" in str(refused.value)
    assert [json.loads(x)["kind"] for x in target.export()] == ["header"]
    assert target.stats().entities == target.stats().facts == 0
    return refused.value


def spoil(lines: list[Line], kind: str, change: Callable[[Line], None],
          where: Callable[[Line], bool] = lambda _: True) -> tuple[list[str], int]:
    """The export with one line of ``kind`` changed; returns the JSON lines and the changed line's number."""
    index = first(lines, kind, where)
    change(lines[index])
    return [json.dumps(line) for line in lines], index + 1


def fact_with_history(line: Line) -> bool:
    return bool(line["kind"] == "fact" and line["invalid_at"] is not None and line["expired_at"] is not None)


SPOILED: dict[str, tuple[str, Callable[[Line], None], Callable[[Line], bool]]] = {
    # aliases
    "alias to an entity that does not exist": ("alias", lambda x: x.update(target="nobody"), lambda _: True),
    "alias to an alias": ("alias", lambda x: x.update(target="bob"), lambda x: x["key"] != "bob"),
    "alias whose key is an entity of the file": ("alias", lambda x: x.update(key="tea", name="Tea"), lambda _: True),
    "alias whose key is not its name's": ("alias", lambda x: x.update(key="someone else"), lambda _: True),
    # fact records
    "invalid_at before valid_at": ("fact", lambda x: x.update(invalid_at="1999-01-01T00:00:00.000000Z"),
                                   lambda _: True),
    "invalid_at equal to valid_at": ("fact", lambda x: x.update(invalid_at=x["valid_at"]), lambda _: True),
    "expired_at before recorded_at": ("fact", lambda x: x.update(expired_at=later(x["recorded_at"], seconds=-1)),
                                      lambda _: True),
    "recorded_at in the future": ("fact", lambda x: x.update(recorded_at=iso(datetime.now(UTC) + timedelta(days=1))),
                                  lambda _: True),
    "expired_at in the future": ("fact", lambda x: x.update(expired_at=iso(datetime.now(UTC) + timedelta(days=1))),
                                 fact_with_history),
    "negative confirmations": ("fact", lambda x: x.update(confirmations=-3), lambda _: True),
    "no confirmations": ("fact", lambda x: x.update(confirmations=0), lambda _: True),
    "10**30 confirmations": ("fact", lambda x: x.update(confirmations=10**30), lambda _: True),
    "1e30 confirmations": ("fact", lambda x: x.update(confirmations=1e30), lambda _: True),
    "confidence NaN": ("fact", lambda x: x.update(confidence=float("nan")), lambda _: True),
    "confidence above 1": ("fact", lambda x: x.update(confidence=1.5), lambda _: True),
    "unknown trust state": ("fact", lambda x: x.update(status="trusted"), lambda _: True),
    "secret in a fact's source": ("fact", lambda x: x.update(source="deploy with " + "ghp_" + "a1B2" * 9),
                                  lambda _: True),
    "NUL in a fact's source": ("fact", lambda x: x.update(source="chat\x00 1"), lambda _: True),
    "fact of an entity that does not exist": ("fact", lambda x: x.update(object="nobody"), lambda _: True),
    # rejections
    "rejection of an entity that does not exist": ("rejection", lambda x: x.update(subject="nobody"),
                                                   lambda _: True),
    "secret in a rejection's reason": ("rejection", lambda x: x.update(reason="password=hunter2hunter2"),
                                       lambda _: True),
    # the session registry
    "session id that is no session id": ("session", lambda x: x.update(id="has/slash"), lambda _: True),
    "session revoked before it was registered": ("session", lambda x: x.update(
        revoked_at=later(x["registered_at"], seconds=-1)), lambda _: True),
    "session expiring when it was registered": ("session", lambda x: x.update(expires_at=x["registered_at"]),
                                                lambda _: True),
    # the audit log
    "secret in an audit entry's source": ("audit", lambda x: x.update(source="key sk-" + "a1B2c3D4" * 5),
                                          lambda _: True),
    "secret in an audit entry's detail": ("audit", lambda x: x["detail"].update(note="token: ghp_" + "a1B2" * 9),
                                          lambda _: True),
    "lone surrogate in an audit entry": ("audit", lambda x: x.update(source="chat \ud800"), lambda _: True),
    "lone surrogate in an audit entry's detail": ("audit", lambda x: x["detail"].update(note="\udfff"),
                                                  lambda _: True),
    "NUL in an audit entry": ("audit", lambda x: x.update(action="upsert\x00"), lambda _: True),
    "NUL in an audit entry's entities": ("audit", lambda x: x.update(entities=["da\x00na"]), lambda _: True),
    "100 kB action": ("audit", lambda x: x.update(action="a" * 100_000), lambda _: True),
    "1 MB action": ("audit", lambda x: x.update(action="a" * 1_000_000), lambda _: True),
    "audit entry in the future": ("audit", lambda x: x.update(at=iso(datetime.now(UTC) + timedelta(days=1))),
                                  lambda _: True),
    "deeply nested audit detail": ("audit", lambda x: x["detail"].update(deep=_nested(900)), lambda _: True),
}


def _nested(depth: int) -> Any:
    value: Any = []
    for _ in range(depth):
        value = [value]
    return value


@pytest.mark.parametrize("case", SPOILED)
def test_a_line_that_could_make_the_store_lie_is_refused_naming_it(
        make_memory: MakeMemory, backend_name: str, case: str) -> None:
    kind, change, where = SPOILED[case]
    lines, number = spoil(source_export(make_memory, backend_name), kind, change, where)

    assert_refused(make_memory(), lines, number)


def test_an_export_is_checked_whole_without_a_store(make_memory: MakeMemory, backend_name: str,
                                                   tmp_path: Path) -> None:
    """check_export judges every line as import_ does, before a store is opened (or created) for it."""
    lines = source_export(make_memory, backend_name)
    summary = check_export([json.dumps(line) for line in lines], scope="elsewhere")

    kinds = [line["kind"] for line in lines]
    assert (summary.entities, summary.facts, summary.observations, summary.rejections, summary.audit_entries,
            summary.sessions) == tuple(kinds.count(k) for k in ("entity", "fact", "observation", "rejection",
                                                                "audit", "session"))
    assert summary.facts > 0 and summary.rejections == 1 and summary.sessions == 1
    spoiled, number = spoil(lines, "fact", lambda x: x.update(invalid_at=x["valid_at"]))
    with pytest.raises(InvalidImportError) as refused:
        check_export(spoiled)
    assert refused.value.line == number
    with pytest.raises(InvalidImportError, match="no file"):
        check_export(tmp_path / "missing.jsonl")


def test_an_export_checked_for_a_scope_is_imported_there_without_being_read_again(
        make_memory: MakeMemory, backend_name: str, tmp_path: Path) -> None:
    lines = source_export(make_memory, backend_name)
    export = tmp_path / "export.jsonl"
    export.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    by_path, target = make_memory(), make_memory()
    checked = check_export(export, scope=target.scope)
    export.unlink()  # what the check read is what is imported
    other = make_memory()
    with pytest.raises(InvalidImportError, match="checked for scope"):
        other.import_(checked)  # checked under another scope's rules: refused, nothing written
    assert other.stats().entities == 0
    restored = target.import_(checked)
    export.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    assert restored == by_path.import_(export)
    assert restored.created == checked.facts > 0
    def held(memory: Memory) -> list[Line]:  # all but the header (its scope) and the import's own audit entry
        return [line for line in snapshot(memory) if line["kind"] != "header"
                and not (line["kind"] == "audit" and line["action"] == "import")]
    assert held(target) == held(by_path) != []


@pytest.mark.parametrize("depth", [100, 1_000, 100_000])
def test_deeply_nested_json_is_refused_naming_the_line(make_memory: MakeMemory, backend_name: str,
                                                       depth: int) -> None:
    lines = [json.dumps(line) for line in source_export(make_memory, backend_name)]
    nested = '{"kind": "fact", "id": ' + "[" * depth + "]" * depth + "}"
    lines.insert(2, nested)

    assert_refused(make_memory(), lines, 3)


@pytest.mark.parametrize("kind", ["alias", "entity"])
def test_an_alias_that_is_an_entity_of_the_scope_is_refused(make_memory: MakeMemory, backend_name: str,
                                                            kind: str) -> None:
    """As an alias line's key, or as an alias an entity line lists."""
    lines = source_export(make_memory, backend_name)
    target = make_memory()
    target.upsert(("Zed", "LIKES", "Jazz"))
    before = snapshot(target)
    if kind == "alias":
        index = first(lines, "alias")
        lines[index].update(key="zed", name="Zed")
    else:
        index = first(lines, "entity", lambda x: x["key"] == "robert")
        lines[index]["aliases"].append("Zed")

    with pytest.raises(InvalidImportError) as refused:
        target.import_([json.dumps(x) for x in lines])

    assert refused.value.line == index + 1
    assert snapshot(target) == before
    zed = target.entity("Zed")
    assert zed is not None and zed.name == "Zed"


def test_an_alias_of_an_entity_that_does_not_exist_is_never_acknowledged(
        make_memory: MakeMemory, backend_name: str) -> None:
    """The outcome the check prevents: writes through the name, acknowledged and lost."""
    lines = source_export(make_memory, backend_name)
    index = first(lines, "alias")
    lines[index].update(target="nobody")
    target = make_memory()

    with pytest.raises(InvalidImportError):
        target.import_([json.dumps(x) for x in lines])
    written = target.upsert(Triple(subject=lines[index]["name"], predicate="LIKES", object="Tea"))

    assert written.created == 1
    assert [f.object for f in target.facts(lines[index]["name"])] == ["Tea"]


ENTITY_ALIASES: dict[str, tuple[str, str, str | None]] = {
    # entity listing the alias, the alias, the entity whose line the refusal names too (None: no other line)
    "an alias that is another entity's name": ("dana", "Robert", "robert"),
    "an alias another entity lists": ("robert", "Dee", "dana"),
    "an alias no alias line gives it": ("robert", "Zed", None),
}


@pytest.mark.parametrize("case", ENTITY_ALIASES)
def test_an_entity_line_whose_alias_would_resolve_two_ways_is_refused_naming_the_lines(
        make_memory: MakeMemory, backend_name: str, case: str) -> None:
    holder, alias, other = ENTITY_ALIASES[case]
    lines = source_export(make_memory, backend_name)
    index = first(lines, "entity", lambda x: x["key"] == holder)
    lines[index]["aliases"].append(alias)
    refused = assert_refused(make_memory(), [json.dumps(x) for x in lines], index + 1)
    if other is not None:
        assert f"line {first(lines, 'entity', lambda x: x['key'] == other) + 1}" in str(refused).split(":", 1)[1]


# -- valid exports that must import --------------------------------------------------------------------------


def round_trip(source: Memory, target: Memory) -> None:
    """``import_(export())`` into an empty scope gives the same export; the audit log comes along unchanged
    (the import only adds its own entries)."""
    original = snapshot(source)
    target.import_(list(source.export()))
    copied = snapshot(target)

    def data(lines: list[Line]) -> list[Line]:
        return [x for x in lines if x["kind"] not in ("header", "audit")]

    assert data(copied) == data(original)
    imported = [x for x in copied if x["kind"] == "audit"]
    assert [x for x in imported if x["action"] != "import"] == [x for x in original if x["kind"] == "audit"]
    assert target.stats().model_dump(exclude={"scope"}) == source.stats().model_dump(exclude={"scope"})


@pytest.mark.parametrize("secrets", ["redact", "reject"])
def test_a_key_that_looks_like_a_token_round_trips(make_memory: MakeMemory, secrets: str) -> None:
    source = make_memory(secrets=secrets)
    key = name_key(TOKEN_LIKE)
    with pytest.raises(InvalidInputError):
        source.upsert((key, "LIKES", "Tea"))  # the key itself, written as a name, is a token: refused
    source.upsert([(TOKEN_LIKE, "LIKES", "Tea"), ("Dana", "KNOWS", TOKEN_LIKE)], source="chat")
    source.alias(TOKEN_LIKE, "Tokenish")
    source.upsert(Triple(subject=TOKEN_LIKE, predicate="WORKS_AT", object="Globex", confidence=0.2), model="x")
    [candidate] = source.pending()
    source.reject(candidate, "no")
    assert [x["key"] for x in snapshot(source) if x["kind"] == "entity" and x["name"] == TOKEN_LIKE] == [key]
    target = make_memory(secrets=secrets)

    round_trip(source, target)

    entity = target.entity(TOKEN_LIKE)
    assert entity is not None and (entity.name, entity.key, entity.aliases) == (TOKEN_LIKE, key, ["Tokenish"])
    assert [(f.subject, f.object) for f in target.facts(object=TOKEN_LIKE)] == [("Dana", TOKEN_LIKE)]
    target.upsert(Triple(subject=TOKEN_LIKE, predicate="WORKS_AT", object="Globex"))
    [again] = target.pending()
    assert again.flag is not None and "no" in again.flag  # the rejection is still attached to this entity


def test_a_long_name_whose_key_is_longer_round_trips(make_memory: MakeMemory) -> None:
    long_name = "Straße " * 16 + "Ende12"  # 118 characters; its key ("strasse ...") is 134
    assert (len(long_name), len(name_key(long_name))) == (118, 134)
    source = make_memory()
    source.upsert([(long_name, "LIVES_IN", "Berlin"), ("Dana", "KNOWS", long_name)], valid_at="2020-01-01")
    source.alias(long_name, "Die lange Straße")
    target = make_memory()

    round_trip(source, target)

    assert [f.object for f in target.facts(long_name)] == ["Berlin"]
    assert [f.object for f in target.facts("Die lange Strasse")] == ["Berlin"]


def test_long_provenance_round_trips(make_memory: MakeMemory) -> None:
    source = make_memory(client="agent-" + "c" * 190)
    source.upsert(("Dana", "LIKES", "Tea"), source="s" * 512, model="m" * 200, session="x" * 200)
    target = make_memory()

    round_trip(source, target)

    [tea] = target.facts("Dana")
    assert (len(tea.source or ""), len(tea.model or ""), len(tea.session or ""), tea.client) == (
        512, 200, 200, "agent-" + "c" * 190)
