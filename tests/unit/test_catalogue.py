"""The query catalogue: files and names match one to one, fragments resolve, dialect copies stay equivalent,
and queries take values only as parameters."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from synapse_graph.catalogue import DIALECT_ONLY, DIALECTS, FRAGMENTS, Q, data, fragment_names, query, query_files

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
            assert not re.search(r"\{\{[a-z_]+\}\}", text), f"{name} ({dialect}) keeps an unexpanded fragment"
    for path in CYPHER.rglob("*.cypher"):
        used.update(re.findall(r"\{\{([a-z_]+)\}\}", path.read_text(encoding="utf-8")))
    assert used == fragment_names()


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
    text = re.sub(r"\{\{[a-z_]+\}\}", "", text)  # fragments: other files of the catalogue
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


# -- Neo4j near-copies: the same statement but for the known dialect differences -----------------------

# What a Neo4j form may change, and how to undo it:
NEO4J_DIFFERENCES = (
    # a CALL (a, b) { ... } scope clause instead of an importing WITH (deprecated in Neo4j 5)
    (re.compile(r"CALL \(([\w, ]*)\) \{\n"), lambda m: f"CALL {{\n  WITH {m.group(1)}\n" if m.group(1) else "CALL {\n"),
    # datetime() around instants that arrive as ISO-8601 text inside lists (backends/neo4j.py)
    (re.compile(r"datetime\(([\w.]+)\)"), lambda m: m.group(1)),
    # instants returned as epoch microseconds computed by the server
    (re.compile(r"([\w.]+)\.epochSeconds \* 1000000 \+ \1\.microsecond"), lambda m: m.group(1)),
    # a node's id: an element id (Neo4j 5 deprecates id())
    (re.compile(r"elementId\((\w+)\)"), lambda m: f"id({m.group(1)})"),
    # no node ids (Neo4j seeks entities by key: see its writes/resolve_keys.cypher)
    (re.compile(r"\[\] AS ids"), lambda m: "collect(id(e)) AS ids"),
    # an index hint
    (re.compile(r"\nUSING INDEX [^\n]+"), lambda m: ""),
    # the scope's search token, which only Neo4j's fulltext indexes need (they filter by it)
    (re.compile(r",\s*\w+\.scope_token = "
                r"(?:\$scope_token|null|CASE WHEN x\.expired_at IS NULL THEN \$scope_token END)"), lambda m: ""),
    (re.compile(r",\s*scope_token: \$scope_token"), lambda m: ""),
    # a node's relationship count: a COUNT subquery (Neo4j has no indegree/outdegree)
    (re.compile(r"COUNT \{ \((\w+)\)-\[:(\w+)\]-\(\) \}"),
     lambda m: f"indegree({m.group(1)}, '{m.group(2)}') + outdegree({m.group(1)}, '{m.group(2)}')"),
)


# What the shared form (FalkorDB's) may add: intern() around a value many records repeat (FalkorDB keeps one
# copy of an interned string; Neo4j has no such function).
SHARED_ONLY = ((re.compile(r"intern\((\$?[\w.]+)\)"), lambda m: m.group(1)),)


def _body(path: Path) -> str:
    return "\n".join(line.strip() for line in path.read_text(encoding="utf-8").splitlines()
                     if line.strip() and not line.lstrip().startswith("//"))


def _words(text: str) -> list[str]:
    return text.split()


NEAR_COPIES = sorted(p for p in (CYPHER / "neo4j").rglob("*.cypher")
                     if (CYPHER / p.relative_to(CYPHER / "neo4j")).exists())


def test_the_near_copies_are_the_expected_ones() -> None:
    names = {str(p.relative_to(CYPHER / "neo4j")) for p in NEAR_COPIES}
    assert names == {"writes/apply_plan.cypher", "writes/apply_facts.cypher", "writes/apply_additions.cypher",
                     "writes/current_records.cypher", "writes/resolve_keys.cypher",
                     "writes/plan_input.cypher",
                     "facts/neighbourhood_hop2.cypher", f"{FRAGMENTS}/fact.cypher", f"{FRAGMENTS}/degree.cypher",
                     f"{FRAGMENTS}/new_audit_entry.cypher", f"{FRAGMENTS}/new_fact_record.cypher"}


@pytest.mark.parametrize("path", NEAR_COPIES, ids=lambda p: str(p.relative_to(CYPHER / "neo4j")))
def test_neo4j_forms_stay_equivalent_to_the_shared_statement(path: Path) -> None:
    neo4j = "\n".join(line.strip() for line in _body(path).splitlines())
    for pattern, undo in NEO4J_DIFFERENCES:
        neo4j = pattern.sub(undo, neo4j)
    shared = _body(CYPHER / path.relative_to(CYPHER / "neo4j"))
    for pattern, undo in SHARED_ONLY:
        shared = pattern.sub(undo, shared)
    assert _words(neo4j) == _words(shared)


def test_neo4j_apply_plan_converts_every_instant_of_its_rows() -> None:
    # Bulk rows carry instants as ISO-8601 text (see backends/neo4j.py); every one of them is converted.
    converted = re.findall(r"datetime\((x[.\w]*)\)", query(Q.APPLY_PLAN, "neo4j"))
    assert set(converted) == {
        "x.created_at", "x.updated_at", "x.props.valid_at", "x.props.invalid_at", "x.props.recorded_at",
        "x.props.expired_at", "x.props.confirmed_at", "x.confirmed_at", "x.recorded_at", "x.expired_at",
        "x.registered_at", "x.expires_at", "x.revoked_at",
        "x.rejected_at", "x.props.at"}


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
            found[param] = _words(part.split("\nRETURN ")[0])
        return found

    full, kept = blocks(Q.APPLY_PLAN), blocks(slim)
    assert set(full) - set(kept) == set(LEFT_OUT[slim])
    assert all(kept[param] == full[param] for param in kept)
    assert "$tombstones" not in query(slim, dialect)


@pytest.mark.parametrize(("fragment", "shared"), [("shared_fact_strings", "SHARED_FACT_VALUES")])
def test_falkordb_sets_every_shared_value_the_engine_sends(fragment: str, shared: str) -> None:
    # engine/writes.py sends a new record's repeated values apart (x.shared); the shared form sets them all
    # (`+=`), FalkorDB's one by one through intern(): one it left out would silently not be stored.
    from synapse_graph.engine import writes

    text = _body(CYPHER / "falkordb" / FRAGMENTS / f"{fragment}.cypher")
    named = set(re.findall(r"x\.shared\.(\w+)", text))
    assert named == set(getattr(writes, shared))
    assert _body(CYPHER / FRAGMENTS / f"{fragment}.cypher").split()[-1] == "x.shared"


@pytest.mark.parametrize("dialect", ["", "falkordb", "neo4j"])
def test_a_new_audit_entry_is_created_with_every_value_it_is_read_back_with(dialect: str) -> None:
    # The entry is created with its properties (fragments/new_audit_entry): each is the engine's value of
    # the same name (engine/writes.py audit_entry; the repeated ones apart, in x.shared), and together
    # they are what the one projection of an entry reads back (fragments/audit), and its scope.
    from synapse_graph.engine import writes

    text = _body(CYPHER / dialect / FRAGMENTS / "new_audit_entry.cypher")
    pairs = re.findall(r"(\w+): [^,{}]*?x\.(props|shared)\.(\w+)", text)
    assert all(key == name for key, _, name in pairs)
    assert {name for _, part, name in pairs if part == "shared"} == set(writes.SHARED_AUDIT_VALUES)
    read_back = set(re.findall(r"(\w+): x\.\w+", _body(CYPHER / FRAGMENTS / "audit.cypher")))
    assert {key for key, _, _ in pairs} == read_back | {"scope"}
