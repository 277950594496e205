"""The query catalogue: files and names match one to one, and queries take values only as parameters."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from synapse_graph.catalogue import DIALECTS, Q, query, query_files

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "synapse_graph"


def test_every_name_has_a_file_for_every_dialect() -> None:
    for name in Q:
        for dialect in DIALECTS:
            assert query(name, dialect).strip(), f"{name} is empty for {dialect}"


def test_every_file_is_a_named_query() -> None:
    names = {str(name) for name in Q}
    for dialect, name in query_files():
        assert name in names, f"cypher/{dialect + '/' if dialect else ''}{name}.cypher is not in the catalogue"
        assert dialect in ("", *DIALECTS)


def test_unknown_names_and_dialects_are_refused() -> None:
    with pytest.raises(LookupError):
        query("no_such_query", "falkordb")
    with pytest.raises(ValueError):
        query(Q.ENTITY, "sqlite")


@pytest.mark.parametrize("path", sorted((ROOT / "cypher").rglob("*.cypher")), ids=lambda p: p.name)
def test_query_files_take_values_only_as_parameters(path: Path) -> None:
    text = re.sub(r"//[^\n]*", "", path.read_text(encoding="utf-8"))
    # No Python formatting placeholders and no string literals: every value is a $parameter.
    assert not re.search(r"\{[a-z_]+\}|%\(|%s", text), "Python formatting in a query file"


def test_python_never_formats_values_into_queries() -> None:
    offenders = []
    for source in PACKAGE.rglob("*.py"):
        for number, line in enumerate(source.read_text(encoding="utf-8").splitlines(), start=1):
            if re.search(r"\.(query|ro_query|execute_query|run)\(\s*f[\"']", line) or (re.search(
                    r"(MATCH|MERGE|CREATE|RETURN)\b[^\n]*\{[a-z_]+\}", line) and 'f"' in line):
                offenders.append(f"{source.relative_to(ROOT)}:{number}: {line.strip()}")
    assert not offenders, "\n".join(offenders)


def test_neo4j_apply_plan_is_the_shared_statement_with_scope_clauses_and_datetimes() -> None:
    def body(text: str) -> str:
        return "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("//"))

    shared = body(query(Q.APPLY_PLAN, "falkordb")).replace("CALL {\n  WITH s\n", "CALL (s) {\n")
    neo4j = body(query(Q.APPLY_PLAN, "neo4j"))
    # Bulk rows carry instants as ISO-8601 text (see backends/neo4j.py); every one of them is converted.
    converted = re.findall(r"datetime\((x[.\w]*)\)", neo4j)
    assert sorted(converted) == sorted(
        ["x.created_at", "x.updated_at", "x.props.valid_at", "x.props.invalid_at", "x.props.recorded_at",
         "x.props.expired_at", "x.rejected_at"])
    assert re.sub(r"datetime\((x[.\w]*)\)", r"\1", neo4j) == shared
