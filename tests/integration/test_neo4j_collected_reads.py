"""Neo4j reads come back in one record (backends/neo4j_rows.py): the same rows, in the same order, as the
statement returns on its own. Every read the library makes during a battery of calls on a populated store is
run again both ways on the live server and compared."""

from __future__ import annotations

import asyncio
from typing import Any

import neo4j
import pytest
from neo4j import exceptions as neo4j_errors

from synapse_graph import AsyncMemory, Memory, Triple
from synapse_graph.backends import neo4j as neo4j_backend
from synapse_graph.backends.neo4j import Neo4jBackend, _read_rows, _rows, encode, read_text
from synapse_graph.backends.neo4j_rows import collected
from synapse_graph.catalogue import query
from synapse_graph.rules.recall import scope_token

pytestmark = pytest.mark.integration


def _populate(memory: Memory) -> None:
    memory.upsert([Triple(subject="Dana", predicate="LIVES_IN", object="Paris", valid_at="2019-01-01"),
                   Triple(subject="Dana", predicate="WORKS_AT", object="Acme", valid_at="2020-01-01"),
                   Triple(subject="Acme", predicate="LOCATED_IN", object="Paris", valid_at="2018-01-01")])
    memory.upsert(Triple(subject="Dana", predicate="LIVES_IN", object="London", valid_at="2022-05-01"))
    memory.upsert([Triple(subject="Acme", predicate="EMPLOYS", object=f"person {i}", valid_at=f"2021-01-{i + 1:02d}")
                   for i in range(25)])
    memory.upsert([Triple(subject=f"person {i}", predicate="KNOWS", object=f"person {i + 1}", valid_at="2021-06-01")
                   for i in range(24)])
    memory.alias("Dana Smith", "Dana")
    memory.observe("Dana", ["prefers tea"])


def _calls(memory: Memory) -> None:
    memory.facts("Dana")
    memory.facts("Dana", "LIVES_IN", as_of="2020-06-01")
    memory.facts(predicate="EMPLOYS")
    memory.history("Dana", "LIVES_IN")
    memory.neighbourhood("Acme", hops=2)
    memory.neighbourhood("Dana Smith", hops=2, as_of="2021-07-01")
    memory.recall("where does Dana live and work", hops=2)
    memory.entities(limit=10)
    memory.entities(matching="person")
    memory.audit(limit=50)
    memory.digest(limit=20)
    list(memory.export())


def test_every_read_returns_the_same_rows_collected_or_not(neo4j_settings: dict[str, Any],
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    asked: list[tuple[str, dict[str, Any]]] = []
    read, read_many = Neo4jBackend.read, Neo4jBackend.read_many

    def recording_read(self: Neo4jBackend, name: str, params: Any) -> Any:
        asked.append((name, dict(params)))
        return read(self, name, params)

    def recording_read_many(self: Neo4jBackend, requests: Any) -> Any:
        asked.extend((name, dict(params)) for name, params in requests)
        return read_many(self, requests)

    with Memory(neo4j_settings["location"], auth=neo4j_settings["auth"], scope="collected-reads") as memory:
        memory.purge(scope="collected-reads")
        _populate(memory)
        monkeypatch.setattr(Neo4jBackend, "read", recording_read)
        monkeypatch.setattr(Neo4jBackend, "read_many", recording_read_many)
        _calls(memory)
        monkeypatch.undo()
        driver = memory.backend._driver  # type: ignore[attr-defined]
        compared, many_rows = set(), 0
        for name, params in asked:
            text, is_collected = read_text(name)
            if not is_collected:
                continue
            plain = query(name, neo4j_backend.DIALECT)
            with driver.session() as session:
                as_it_is = _rows(list(session.run(plain, encode(params))))
                one_record = list(session.run(text, encode(params)))
            assert len(one_record) == 1
            assert _read_rows(one_record, True) == as_it_is, name
            compared.add(name)
            many_rows = max(many_rows, len(as_it_is))
        memory.purge(scope="collected-reads")
    assert len(compared) >= 10 and many_rows >= 25  # the battery reached many statements, some with many rows


@pytest.mark.parametrize("statement", [
    "MATCH (n) RETURN n.a AS a\nUNION\nMATCH (n) RETURN n.b AS a",  # a union: each branch has its own RETURN
    "MATCH (n) RETURN n.a + 1",  # an item with no name
    "MATCH (n) RETURN n.a AS a, n.b AS a",  # two columns of one name
    "CREATE (n)",  # no RETURN
])
def test_a_statement_that_cannot_be_read_for_certain_is_sent_as_it_is(statement: str) -> None:
    assert collected(statement) is None


def test_a_collected_statement_keeps_its_order_and_its_distinct_rows(neo4j_settings: dict[str, Any]) -> None:
    with Memory(neo4j_settings["location"], auth=neo4j_settings["auth"], scope="collected-order") as memory:
        driver = memory.backend._driver  # type: ignore[attr-defined]
        statement = ("UNWIND $xs AS x WITH x, x % 7 AS k RETURN DISTINCT k AS key, 'k' + toString(k) AS label "
                     "ORDER BY key DESC SKIP 1 LIMIT 4")
        form = collected(statement)
        assert form is not None
        with driver.session() as session:
            plain = _rows(list(session.run(statement, {"xs": list(range(50))})))
            rows = _read_rows(list(session.run(form, {"xs": list(range(50))})), True)
    assert rows == plain == [{"key": k, "label": f"k{k}"} for k in (5, 4, 3, 2)]


def test_a_union_of_few_rows_comes_back_in_one_record_in_its_branches_order(neo4j_settings: dict[str, Any]) -> None:
    """Recall's reads are unions of legs (a record each cost the driver tens of microseconds: 1-3 ms a recall on
    LoCoMo): collected, they come back as one record, the same rows in the same order."""
    statement = ("UNWIND $xs AS x WITH x ORDER BY x DESC LIMIT 3 RETURN 'top' AS leg, x AS value\n"
                 "UNION ALL\nUNWIND $xs AS x WITH x WHERE x % 2 = 0 RETURN 'even' AS leg, x * 10 AS value\n"
                 "UNION ALL\nWITH $xs AS xs WHERE size(xs) > 100 RETURN 'none' AS leg, 0 AS value")
    form = collected(statement, union=True)
    assert form is not None and collected(statement) is None
    with Memory(neo4j_settings["location"], auth=neo4j_settings["auth"], scope="collected-union") as memory:
        driver = memory.backend._driver  # type: ignore[attr-defined]
        with driver.session() as session:
            plain = _rows(list(session.run(statement, {"xs": list(range(8))})))
            one_record = list(session.run(form, {"xs": list(range(8))}))
    assert len(one_record) == 1
    assert _read_rows(one_record, True) == plain == (
        [{"leg": "top", "value": v} for v in (7, 6, 5)] + [{"leg": "even", "value": v} for v in (0, 20, 40, 60)])
    assert all(read_text(name)[1] for name in neo4j_backend.COLLECTED_UNIONS)


@pytest.mark.parametrize("api", ["sync", "async"])
def test_a_read_the_connection_lost_is_run_again(neo4j_settings: dict[str, Any], monkeypatch: pytest.MonkeyPatch,
                                                 api: str) -> None:
    """Reads are auto-commit statements (one round trip each), which the driver does not retry: the backend runs a
    read again after an error the driver calls retryable, as a managed transaction would, and answers."""
    session_class = neo4j.Session if api == "sync" else neo4j.AsyncSession
    run = session_class.run
    failed: list[str] = []

    def failing_once(self: Any, query: str, *args: Any, **kwargs: Any) -> Any:
        if not failed:
            failed.append(query)
            raise neo4j_errors.SessionExpired("the connection was lost (injected)")
        return run(self, query, *args, **kwargs)

    with Memory(neo4j_settings["location"], auth=neo4j_settings["auth"], scope="read-again") as memory:
        memory.purge(scope="read-again")
        memory.upsert(Triple(subject="Dana", predicate="LIVES_IN", object="Paris"))
        monkeypatch.setattr(session_class, "run", failing_once)
        if api == "sync":
            found = memory.facts("Dana")
        else:
            async def ask() -> Any:
                async with AsyncMemory(neo4j_settings["location"], auth=neo4j_settings["auth"],
                                       scope="read-again") as again:
                    return await again.facts("Dana")

            found = asyncio.run(ask())
        monkeypatch.undo()
        memory.purge(scope="read-again")
    assert failed and [f.object for f in found] == ["Paris"]


@pytest.mark.parametrize("api", ["sync", "async"])
def test_reads_sent_together_are_one_statement_with_the_rows_each_returns_alone(
        neo4j_settings: dict[str, Any], monkeypatch: pytest.MonkeyPatch, api: str) -> None:
    """Each statement is a round trip on Neo4j: reads sent together that return their rows collected (and whose
    parameters agree) are one statement; each gets the rows it returns alone. Reads whose parameters disagree
    are sent one after another, with the same answers."""
    session_class = neo4j.Session if api == "sync" else neo4j.AsyncSession
    run = session_class.run
    sent: list[str] = []

    def counted(self: Any, query: str, *args: Any, **kwargs: Any) -> Any:
        sent.append(query)
        return run(self, query, *args, **kwargs)

    scope = "reads-together"
    with Memory(neo4j_settings["location"], auth=neo4j_settings["auth"], scope=scope) as memory:
        memory.purge(scope=scope)
        _populate(memory)
        state = ("recall/state_and_term_hits",
                 {"scope": scope, "scope_token": scope_token(scope), "terms": ["dana", "paris"], "cap": 5})
        names = ("entities/entity_names", {"scope": scope, "keys": ["acme", "paris"]})
        other_scope = ("entities/entity_names", {"scope": "nowhere", "keys": ["acme"]})
        alone = [memory.backend.read(*state), memory.backend.read(*names), memory.backend.read(*other_scope)]
        assert len(alone[0]) == 3 and len(alone[1]) == 2 and not alone[2]
        monkeypatch.setattr(session_class, "run", counted)
        if api == "sync":
            together = memory.backend.read_many([state, names])
            apart = memory.backend.read_many([names, other_scope])
        else:
            async def ask() -> Any:
                async with AsyncMemory(neo4j_settings["location"], auth=neo4j_settings["auth"],
                                       scope=scope) as again:
                    sent.clear()  # what opening read
                    return (await again.backend.read_many([state, names]),
                            await again.backend.read_many([names, other_scope]))

            together, apart = asyncio.run(ask())
        monkeypatch.undo()
        memory.purge(scope=scope)
    assert together == alone[:2] and apart == alone[1:]
    assert len(sent) == 3  # the two that agree in one statement, the two that do not one after another
