"""The query catalogue: files and names match one to one, fragments resolve, dialect copies stay equivalent,
and queries take values only as parameters."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from synapse_graph import catalogue, shapes
from synapse_graph.catalogue import (
    DIALECT_ONLY,
    DIALECTS,
    FRAGMENTS,
    Q,
    data,
    fragment,
    fragment_names,
    phrases,
    query,
    query_files,
)
from synapse_graph.shapes import FACT, FACT_KIND, FACT_ROW

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "synapse_graph"
CYPHER = ROOT / "cypher"


def test_every_name_has_a_file_for_every_dialect_that_runs_it() -> None:
    for name in Q:
        for dialect in DIALECTS:
            if DIALECT_ONLY.get(name, dialect) != dialect:
                with pytest.raises(LookupError):
                    query(name, dialect)
                continue
            assert query(name, dialect).strip(), f"{name} is empty for {dialect}"


def test_every_file_is_a_named_query() -> None:
    names = {str(name) for name in Q}
    found = query_files()
    for dialect, name in found:
        assert name in names, f"cypher/{dialect + '/' if dialect else ''}{name}.cypher is not in the catalogue"
        assert dialect in ("", *DIALECTS)
    assert {name for _, name in found} == names


def test_fragments_resolve_and_are_all_used() -> None:
    used: set[str] = set()
    for name in Q:
        for dialect in DIALECTS:
            if DIALECT_ONLY.get(name, dialect) != dialect:
                continue
            text = query(name, dialect)
            assert "{{" not in text, f"{name} ({dialect}) keeps an unexpanded fragment or phrase"
    for text in (*(path.read_text(encoding="utf-8") for path in CYPHER.rglob("*.cypher")), *shapes.FRAGMENTS.values()):
        used.update(re.findall(r"\{\{([a-z_]+)\}\}", text))
    assert used == fragment_names()
    for name in fragment_names():  # one source each: shared (a table or a file) or the dialects' own files
        for dialect in DIALECTS:
            try:
                fragment(name, dialect)
            except LookupError:  # another dialect's own
                assert any((CYPHER / other / FRAGMENTS / f"{name}.cypher").is_file() for other in DIALECTS)


@pytest.fixture
def catalogue_at(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[[dict[str, str]], None]]:
    """A catalogue of the given files (path under cypher/ -> text) in place of the real one."""
    def write(files: dict[str, str]) -> None:
        for path, text in files.items():
            (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
            (tmp_path / path).write_text(text, encoding="utf-8")

    monkeypatch.setattr(catalogue, "cypher_root", lambda: tmp_path)
    query.cache_clear()
    yield write
    query.cache_clear()


def test_a_dialects_own_fragment_serves_its_statements_beside_the_shared_ones(
        catalogue_at: Callable[[dict[str, str]], None]) -> None:
    catalogue_at({"fragments/scoped.cypher": "MATCH (e:Entity {scope: $scope})",
                  "falkordb/fragments/matched.cypher": "// FalkorDB's\nWITH e WHERE e.a = $a",
                  "neo4j/fragments/matched.cypher": "WITH e WHERE e.b = $b",
                  "falkordb/fragments/falkordb_only.cypher": "WITH e LIMIT 1",
                  "recall/found.cypher": "{{scoped}}\n{{matched}}\nRETURN e.key AS key"})
    assert query("recall/found", "falkordb").split("\n") == [
        "MATCH (e:Entity {scope: $scope})", "WITH e WHERE e.a = $a", "RETURN e.key AS key"]
    assert query("recall/found", "neo4j").split("\n") == [
        "MATCH (e:Entity {scope: $scope})", "WITH e WHERE e.b = $b", "RETURN e.key AS key"]
    assert fragment("falkordb_only", "falkordb") == "WITH e LIMIT 1"
    with pytest.raises(LookupError):  # a dialect's own fragment is no other dialect's
        fragment("falkordb_only", "neo4j")


@pytest.mark.parametrize("second", ["neo4j/fragments/scoped.cypher", "fragments/fact_fields.cypher",
                                    "falkordb/fragments/fact_fields.cypher"])
def test_a_fragment_defined_twice_is_refused_in_every_dialect(
        catalogue_at: Callable[[dict[str, str]], None], second: str) -> None:
    # Shared and a dialect's own, or a file beside the one rendered from a table: which a statement says
    # would depend on where it is read.
    catalogue_at({"fragments/scoped.cypher": "MATCH (e:Entity {scope: $scope})", second: "MATCH (e:Entity)",
                  "recall/found.cypher": f"{{{{{Path(second).stem}}}}}\nRETURN e.key AS key"})
    for dialect in DIALECTS:
        with pytest.raises(ValueError, match="defined twice"):
            query("recall/found", dialect)


def test_an_unknown_fragment_is_refused(catalogue_at: Callable[[dict[str, str]], None]) -> None:
    catalogue_at({"neo4j/fragments/matched.cypher": "WITH e", "recall/found.cypher": "{{no_such}}\nRETURN 1"})
    for dialect in DIALECTS:
        with pytest.raises(LookupError):
            query("recall/found", dialect)
        with pytest.raises(LookupError):
            fragment("no_such", dialect)
    with pytest.raises(ValueError):
        fragment("matched", "sqlite")


def test_falkordb_constraints_are_data_beside_the_schema() -> None:
    constraints = data("schema/constraints", "falkordb")
    assert {(c["label"], tuple(c["properties"])) for c in constraints} == {
        ("Entity", ("scope", "key")), ("Alias", ("scope", "key")), ("Scope", ("scope",)), ("Session", ("scope", "id"))}


def test_unknown_names_and_dialects_are_refused() -> None:
    with pytest.raises(LookupError):
        query("no_such_query", "falkordb")
    with pytest.raises(ValueError):
        query(Q.ENTITY, "sqlite")


@pytest.mark.parametrize("path", sorted(CYPHER.rglob("*.cypher")), ids=lambda p: str(p.relative_to(CYPHER)))
def test_query_files_take_values_only_as_parameters(path: Path) -> None:
    text = re.sub(r"//[^\n]*", "", path.read_text(encoding="utf-8"))
    text = re.sub(r"\{\{[a-z_]+(\(.*?\))?\}\}", "", text)  # fragments and phrases: text of the catalogue
    # No Python formatting placeholders and no string literals: every value is a $parameter.
    assert not re.search(r"\{[a-z_]+\}|%\(|%s", text), "Python formatting in a query file"


# Modules that build statement text from the catalogue's own text, never from a value: backends/neo4j_rows.py
# re-projects a catalogue statement's last RETURN, naming its own columns (identifiers it checks).
REWRITES_CATALOGUE_TEXT = {"neo4j_rows.py"}


def test_python_never_formats_values_into_queries() -> None:
    offenders = []
    for source in PACKAGE.rglob("*.py"):
        if source.name in REWRITES_CATALOGUE_TEXT:
            continue
        for number, line in enumerate(source.read_text(encoding="utf-8").splitlines(), start=1):
            if re.search(r"\.(query|ro_query|execute_query|run)\(\s*f[\"']", line) or (re.search(
                    r"(MATCH|MERGE|CREATE|RETURN)\b[^\n]*\{[a-z_]+\}", line) and 'f"' in line):
                offenders.append(f"{source.relative_to(ROOT)}:{number}: {line.strip()}")
    assert not offenders, "\n".join(offenders)


# -- Dialects: each statement is written once; a dialect says only its phrases its own way -------------

# The statement files of a dialect's folder: each runs on that dialect only, or differs beyond phrases (its
# first comment says why).
DIALECT_FORMS = {
    ("neo4j", "scope/lock_scope"), ("neo4j", "scope/create_scope"),  # FalkorDB locks a scope by command
    ("falkordb", "schema/schema"), ("neo4j", "schema/schema"),  # each its own indexes and constraints
    ("falkordb", "recall/vector_index"), ("neo4j", "recall/vector_index"),
    ("falkordb", "recall/vector_index_dimensions"), ("neo4j", "recall/vector_index_dimensions"),  # listing indexes
    ("falkordb", "recall/search_lexical"), ("neo4j", "recall/search_lexical"),  # fulltext procedures, languages
    ("falkordb", "migrations/set_scope_tokens"), ("falkordb", "migrations/set_history_tokens"),  # no search token
    ("falkordb", "migrations/set_memory_tokens"),  # memory search tokens from format 15 (Neo4j's were set before)
}


def test_a_dialect_folder_holds_only_the_statements_that_truly_differ() -> None:
    assert {(dialect, name) for dialect, name in query_files() if dialect} == DIALECT_FORMS
    for dialect, name in DIALECT_FORMS:
        first = (CYPHER / dialect / f"{name}.cypher").read_text(encoding="utf-8").splitlines()[0]
        assert first.startswith("// "), f"{dialect}/{name}.cypher: say first why it is a dialect's own"


def test_each_dialect_defines_every_phrase_with_the_same_parameters() -> None:
    defined = {dialect: phrases(dialect) for dialect in DIALECTS}
    first, *others = DIALECTS
    for dialect in others:
        assert set(defined[dialect]) == set(defined[first])
        assert all(defined[dialect][key][0] == defined[first][key][0] for key in defined[first])


def test_every_phrase_is_used_and_every_use_is_defined() -> None:
    texts = [*(re.sub(r"//[^\n]*", "", path.read_text(encoding="utf-8")) for path in CYPHER.rglob("*.cypher")
               if path.name != "phrases.cypher"), *shapes.FRAGMENTS.values(),
             *(text for dialect in DIALECTS for _, text in phrases(dialect).values())]  # a phrase says another
    used = {(name, 0 if not arguments.strip() else 1)
            for text in texts for name, arguments in re.findall(r"\{\{([a-z_]+)\((.*?)\)\}\}", text)}
    assert used == {(name, min(arity, 1)) for name, arity in phrases(DIALECTS[0])}


@pytest.mark.parametrize("dialect", DIALECTS)
def test_a_phrase_whose_last_parameter_is_marked_each_is_said_once_for_each_argument_it_takes(dialect: str) -> None:
    said = catalogue._expand("{{present(x, at)}} / {{present(t, subject, predicate, object)}}", dialect)
    assert said == ("x.at IS NOT NULL AND / "
                    "t.subject IS NOT NULL AND t.predicate IS NOT NULL AND t.object IS NOT NULL AND")


def test_neo4j_apply_plan_converts_every_instant_of_its_rows() -> None:
    # Bulk rows carry instants as ISO-8601 text (see backends/neo4j.py); every one of them is converted.
    # A new fact record's come in its row (a list: shapes.FACT_ROW) and its kind k (shapes.FACT_KIND).
    converted = re.findall(r"datetime\(([xk][.\w]*|x\[\d+\])\)", query(Q.APPLY_PLAN, "neo4j"))
    assert set(converted) == {
        "x.created_at", "x.updated_at", "x[7]", "x[8]", "k.recorded_at",
        "k.expired_at", "k.confirmed_at", "x.confirmed_at", "x.valid_at", "x.recorded_at", "x.expired_at",
        "x.registered_at", "x.expires_at", "x.revoked_at",
        "x.rejected_at", "x.props.at"}
    assert [FACT_ROW[7], FACT_ROW[8]] == ["valid_at", "invalid_at"]


@pytest.mark.parametrize("dialect", DIALECTS)
@pytest.mark.parametrize("slim", [Q.APPLY_FACTS, Q.APPLY_ADDITIONS])
def test_the_slim_apply_forms_are_apply_plan_without_the_parts_they_leave_out(dialect: str, slim: Q) -> None:
    # engine/writes.py sends a write to a slimmer form only when the sub-queries it leaves out have nothing
    # to do, so each sub-query it keeps must be apply_plan's, word for word, and it must leave out exactly those.
    from synapse_graph.engine.writes import LEFT_OUT

    def blocks(name: Q) -> dict[str, list[str]]:
        found = {}
        for part in re.split(r"\nCALL ", query(name, dialect))[1:]:
            [param] = re.findall(r"UNWIND \$(\w+) AS", part)
            found[param] = part.split("\nRETURN ")[0].split()
        return found

    full, kept = blocks(Q.APPLY_PLAN), blocks(slim)
    assert set(full) - set(kept) == set(LEFT_OUT[slim])
    assert all(kept[param] == full[param] for param in kept)
    assert "$tombstones" not in query(slim, dialect)


def test_a_new_fact_record_is_created_with_every_value_the_engine_sends() -> None:
    # engine/writes.py sends a new record as a row (a list: FACT_ROW) and its kind (a map: FACT_KIND); the
    # record is created with each of them under its own name (one left out would silently not be stored), and
    # FalkorDB interns the values many records repeat as it sets them.
    text = fragment("new_fact_record", "falkordb")
    given = dict(re.findall(r"(\w+): (?:intern\()?(x\[\d+\]|k\.\w+)", text))
    assert {name: value for name, value in given.items() if value.startswith("x[")} == {
        name: f"x[{i}]" for i, name in enumerate(FACT_ROW) if name not in ("subject", "object", "kind", "a", "b")}
    assert {name: value for name, value in given.items() if value.startswith("k.")} == {
        name: f"k.{name}" for name in FACT_KIND}
    assert set(re.findall(r"(\w+): intern\(k\.\1\)", text)) == {f.name for f in FACT if f.interned}
    assert set(given) == {f.name for f in FACT if f.kind != "end"} | {"slot", "object_slot", "predicate_slot",
                                                                    "search_text", "ahead"}


@pytest.mark.parametrize("dialect", DIALECTS)
def test_a_new_audit_entry_is_created_with_every_value_it_is_read_back_with(dialect: str) -> None:
    # The entry is created with its properties (fragments/new_audit_entry): each is the engine's value of
    # the same name (engine/writes.py audit_entry; the repeated ones apart, in x.shared), and together
    # they are what the one projection of an entry reads back (fragments/audit), its scope, and the verdicts a
    # page of changes reads beside it (changes/change_entries).
    from synapse_graph.engine import writes

    text = fragment("new_audit_entry", dialect)
    pairs = re.findall(r"(\w+): [^,{}]*?x\.(props|shared)\.(\w+)", text)
    assert all(key == name for key, _, name in pairs)
    assert {name for _, part, name in pairs if part == "shared"} == set(writes.SHARED_AUDIT_VALUES)
    read_back = set(re.findall(r"(\w+): x\.\w+", fragment("audit", dialect)))
    beside = set(re.findall(r"\.(verdict\w*)", (CYPHER / "changes" / "change_entries.cypher").read_text()))
    assert beside == {"verdicts", "verdict_records", "verdict_before", "verdict_by", "verdict_why", "verdict_values"}
    assert {key for key, _, _ in pairs} == read_back | {"scope"} | beside
