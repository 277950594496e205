"""How many statements a point-in-time read (and a read by object and predicate) costs: one, also when the answer
is empty.

An agent often asks about something that has no answer at that time (before a fact began, a
predicate never written): that answer must not cost a second round trip to find out whether the
name was an alias. Names that are aliases still find their entity's facts.
"""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import Iterator
from typing import Any

import pytest

from synapse_graph import Fact, Memory, Triple
from synapse_graph.aio import AsyncMemory
from synapse_graph.engine.rows import FACT_VALUE_COLUMNS
from tests.integration.helpers import utc

pytestmark = pytest.mark.integration


class Counted:
    """The backend's reads, counted (a pipeline or one transaction of several reads counts once), and the
    statements they run (each of a pipeline's or a transaction's counts)."""

    def __init__(self, memory: Memory, monkeypatch: pytest.MonkeyPatch) -> None:
        self.statements = 0
        self.run = 0
        backend = memory.backend
        for name in ("read", "read_many"):
            inner = getattr(backend, name)

            def counted(*args: Any, _inner: Any = inner, _many: bool = name == "read_many") -> Any:
                self.statements += 1
                self.run += len(args[0]) if _many else 1
                return _inner(*args)

            monkeypatch.setattr(backend, name, counted)


@pytest.fixture
def stored(backend_settings: dict[str, Any]) -> Iterator[Memory]:
    options = dict(backend_settings)
    with Memory(options.pop("location"), scope=f"trips-{uuid.uuid4().hex[:10]}", **options) as memory:
        memory.upsert([Triple(subject="Dana", predicate="LIVES_IN", object="Paris", valid_at=utc("2020-01-01")),
                       Triple(subject="Dana", predicate="WORKS_AT", object="Acme", valid_at=utc("2021-01-01"))])
        memory.alias("Dana", "Dana Scully")
        yield memory


@pytest.mark.parametrize(("subject", "predicate", "as_of", "expected"), [
    ("Dana", "LIVES_IN", "2022-01-01", ["Paris"]),
    ("Dana", "LIVES_IN", "2019-01-01", []),  # before the fact began
    ("Dana", "OWNS", "2022-01-01", []),  # a predicate never written
])
def test_a_point_in_time_read_of_a_stored_name_is_one_statement(
        stored: Memory, monkeypatch: pytest.MonkeyPatch, subject: str, predicate: str, as_of: str,
        expected: list[str]) -> None:
    counted = Counted(stored, monkeypatch)
    found = stored.facts(subject, predicate, as_of=utc(as_of))
    assert [f.object for f in found] == expected
    assert counted.statements == 1


def test_an_alias_and_an_unknown_name_still_get_the_right_answer(stored: Memory) -> None:
    assert [f.object for f in stored.facts("Dana Scully", "LIVES_IN", as_of=utc("2022-01-01"))] == ["Paris"]
    assert [f.object for f in stored.facts("dana scully", "WORKS_AT")] == ["Acme"]
    assert stored.facts("Dana Scully", "LIVES_IN", as_of=utc("2019-01-01")) == []
    assert stored.facts("Nobody", "LIVES_IN") == []
    assert [f.object for f in stored.facts("Dana", "LIVES_IN", object="Paris")] == ["Paris"]
    assert stored.facts("Dana", "LIVES_IN", object="Rome") == []


@pytest.mark.parametrize(("predicate", "obj", "during", "expected"), [
    ("WORKS_AT", "Acme", ("2021-06-01", "2022-01-01"), ["Dana"]),
    ("WORKS_AT", "Acme", ("2019-01-01", "2020-01-01"), []),  # before the fact began
    ("OWNS", "Acme", ("2021-06-01", "2022-01-01"), []),  # a predicate never written
])
def test_a_read_by_object_over_a_period_of_a_stored_name_is_one_statement(
        stored: Memory, monkeypatch: pytest.MonkeyPatch, predicate: str, obj: str, during: tuple[str, str],
        expected: list[str]) -> None:
    counted = Counted(stored, monkeypatch)
    found = stored.facts(predicate=predicate, object=obj, during=(utc(during[0]), utc(during[1])))
    assert [f.subject for f in found] == expected
    assert counted.statements == 1


def test_a_read_by_object_through_an_alias_or_an_unknown_name_gets_the_right_answer(stored: Memory) -> None:
    stored.alias("Acme", "Acme Corp")
    period = (utc("2021-06-01"), utc("2022-01-01"))
    assert [f.subject for f in stored.facts(predicate="WORKS_AT", object="Acme Corp", during=period)] == ["Dana"]
    assert [f.subject for f in stored.facts(predicate="WORKS_AT", object="acme corp")] == ["Dana"]
    assert stored.facts(predicate="WORKS_AT", object="Acme Corp", during=(utc("2019-01-01"), utc("2020-01-01"))) == []
    assert stored.facts(predicate="WORKS_AT", object="Nobody", during=period) == []
    assert stored.facts(predicate="WORKS_AT", object="Nobody") == []


def test_the_async_api_reads_by_object_as_the_sync_one(stored: Memory, backend_settings: dict[str, Any]) -> None:
    stored.alias("Acme", "Acme Corp")
    options = dict(backend_settings)
    asked = [("Acme", ("2021-06-01", "2022-01-01")), ("Acme Corp", ("2021-06-01", "2022-01-01")),
             ("Acme", ("2019-01-01", "2020-01-01")), ("Nobody", ("2021-06-01", "2022-01-01"))]

    async def read_all() -> list[list[Fact]]:
        async with AsyncMemory(options.pop("location"), scope=stored.scope, **options) as memory:
            return [await memory.facts(predicate="WORKS_AT", object=obj, during=(utc(a), utc(b)))
                    for obj, (a, b) in asked]

    expected = [stored.facts(predicate="WORKS_AT", object=obj, during=(utc(a), utc(b))) for obj, (a, b) in asked]
    assert asyncio.run(read_all()) == expected
    assert [[f.subject for f in found] for found in expected] == [["Dana"], ["Dana"], [], []]


def test_recall_in_a_scope_never_written_is_one_round_trip(backend_settings: dict[str, Any],
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    # a session's memory at SessionStart, before its first offload: the scope's state says there is nothing to find
    options = dict(backend_settings)
    with Memory(options.pop("location"), scope=f"trips-{uuid.uuid4().hex[:10]}", **options) as memory:
        memory.upsert(Triple(subject="Dana", predicate="LIVES_IN", object="Paris"))
        session = memory.register_session(f"s-{uuid.uuid4().hex[:8]}")
    with Memory(backend_settings["location"], scope=memory.scope, session=session.id,
                **{k: v for k, v in backend_settings.items() if k != "location"}) as bound:
        counted = Counted(bound, monkeypatch)
        found = bound.recall("where does Dana live", memory_scope="session")
        assert found.facts == [] and found.skipped
        assert counted.statements == 1
        assert [f.object for f in bound.recall("where does Dana live", memory_scope="durable").facts] == ["Paris"]


def test_recall_reads_the_scope_its_term_counts_and_whether_it_holds_facts_in_one_statement(
        stored: Memory, monkeypatch: pytest.MonkeyPatch) -> None:
    # the first round trip was three statements (scope state, term counts, has facts): on Neo4j each costs
    counted = Counted(stored, monkeypatch)
    found = stored.recall("where does Dana live")
    assert [f.object for f in found.facts][:1] == ["Paris"]
    # the state and term counts; the names and memories the question's words match, one statement in a small
    # scope (on Neo4j each statement is a round trip of its own); the facts around; links (the names of the
    # entities the legs found are all known here: no read is sent for them)
    assert (counted.statements, counted.run) == (4, 4)


def test_a_first_page_of_changes_reads_the_records_of_its_changes_and_of_one_event_more(
        stored: Memory, monkeypatch: pytest.MonkeyPatch) -> None:
    # Stored verdicts say which events are changes: a first page without a filter reads the records of the
    # changes it shows and of the next event (to know where the next page begins), not of a quarter more; read
    # by id or given by the entries that store them (an entry gives all of its own: here two events' worth).
    since = utc("2000-01-01")
    for year in range(2010, 2040):
        stored.upsert([
            Triple(subject="Eli", predicate="LIVES_IN", object=f"City {year}", valid_at=utc(f"{year}-01-01")),
            Triple(subject=f"Guest {year}", predicate="VISITED", object="Paris", valid_at=utc("2020-01-01"))])
    backend, shipped = stored.backend, []
    inner = backend.read

    def read(name: Any, params: Any) -> Any:
        found = inner(name, params)
        if str(name) == "changes/change_entries":
            given = [values for entry in found[0]["entries"] if entry[-1] is not None
                     for values in json.loads(entry[-1])]
            shipped.extend(values[FACT_VALUE_COLUMNS.index("id")] for values in [*found[0]["records"], *given])
        return found

    monkeypatch.setattr(backend, "read", read)
    for limit in (8, 20, 40):
        shipped.clear()
        page = stored.changes(since, limit=limit)
        shown = {f.id for c in page.changes for f in (c.fact, c.superseded_by, *c.before) if f is not None}
        assert len(page.changes) == limit and page.next is not None
        assert set(shipped) >= shown and len(set(shipped) - shown) <= 3, (limit, len(set(shipped) - shown))


def test_a_page_of_changes_the_writes_judged_is_one_statement(stored: Memory, monkeypatch: pytest.MonkeyPatch
                                                               ) -> None:
    # Each write stored what its events were (rules/changes.py verdicts): a page reads its entries and the
    # records they show together (changes/change_entries), first page or not. (A page of one change reads two
    # entries at a time: an entry that names nothing, the alias here, can cost it a second.)
    since = utc("2000-01-01")
    for year in range(2010, 2022):
        stored.upsert([
            Triple(subject="Eli", predicate="LIVES_IN", object=f"City {year}", valid_at=utc(f"{year}-01-01")),
            Triple(subject=f"Guest {year}", predicate="VISITED", object="Paris", valid_at=utc("2020-01-01"))])
    stored.feedback(stored.facts("Eli", "LIVES_IN")[0], "helpful")
    whole = stored.changes(since, limit=1_000).changes
    assert len(whole) > 30 and {"added", "ended", "feedback"} <= {c.kind for c in whole}
    counted = Counted(stored, monkeypatch)
    for limit in (100, 7):
        after, pages, seen = None, 0, []
        while True:
            page = stored.changes(since, limit=limit, after=after)
            pages, seen, after = pages + 1, seen + page.changes, page.next
            if after is None:
                break
        assert seen == whole
        assert counted.statements == pages, limit
        counted.statements = 0
