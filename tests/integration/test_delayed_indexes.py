"""A cold open answers before the embedded server has built its indexes (FalkorDB's DELAY_INDEXING, issue 34).

While they build, a statement waits only for the indexes it needs (falkordb_steps.wait_for_indexes): what it
answers right after a cold open is what it answers once every index is built, and a server killed or stopped
while it builds them reopens the store whole.
"""

from __future__ import annotations

import asyncio
import contextlib
import shutil
from pathlib import Path
from typing import Any

import pytest

from synapse_graph import AsyncMemory, Memory, Triple
from synapse_graph.backends import falkordb_steps
from synapse_graph.backends.embedded import LINGER_ENV
from synapse_graph.errors import BackendError
from tests.integration.embedded_processes import stop_server
from tests.integration.test_durability import kill_hard

pytestmark = [pytest.mark.integration, pytest.mark.usefixtures("lingering")]

SUBJECTS = 2000
AS_OF = "2030-01-01T00:00:00Z"


def populate(db: Path) -> None:
    with Memory(db, scope="s") as memory:
        memory.set_rules(max_entities=100_000, max_facts=100_000)
        for start in range(0, SUBJECTS, 1000):
            memory.upsert([Triple(subject=f"person {n}", predicate="WORKS_ON", object=f"project {n % 37}")
                           for n in range(start, start + 1000)]
                          + [Triple(subject=f"person {n}", predicate="LIVES_IN", object=f"city {n % 11}")
                             for n in range(start, start + 1000)])
        memory.upsert([Triple(subject=f"person {n}", predicate="LIVES_IN", object=f"city {(n + 1) % 11}")
                       for n in range(0, 50)], replace=True)  # timelines: what replaced what (fragments/links)
    stop_server(db)


def copy(db: Path, to: Path) -> Path:
    shutil.copytree(db.with_name(db.name + ".aof"), to.with_name(to.name + ".aof"))
    return to


def reads(memory: Memory) -> dict[str, Any]:
    return {
        "facts": [f.model_dump() for f in memory.facts("person 7", include_history=True)],
        "recall": [(f.subject, f.predicate, f.object) for f in
                   memory.recall("where does person 23 live", as_of=AS_OF).facts],
        "search": [e.name for e in memory.search_entities("project 5")],
        "digest": [f.model_dump() for f in memory.digest(limit=10, as_of=AS_OF).facts],
    }


def settled(memory: Memory) -> Memory:
    backend: Any = memory.backend
    assert not backend.drive(falkordb_steps.wait_for_indexes(backend.graph, backend.location, ("GRAPH.QUERY",)))
    return memory


def test_reads_and_a_write_at_once_after_a_cold_open_answer_what_they_answer_once_indexes_are_built(
        store_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(LINGER_ENV, "0")  # every open below starts a server and loads the store
    populate(original := store_dir / "original.db")
    cold, warm = copy(original, store_dir / "cold.db"), copy(original, store_dir / "warm.db")
    with Memory(cold, scope="s") as memory:  # first statements as soon as the server answers
        at_once = reads(memory)
        created = memory.upsert([Triple(subject="newcomer", predicate="LIVES_IN", object="city 3")]).created
    with settled(Memory(warm, scope="s")) as memory:
        built = reads(memory)
    assert at_once == built
    assert at_once["facts"] and at_once["recall"] and at_once["search"] and at_once["digest"]
    assert created == 1
    with Memory(cold, scope="s") as memory:  # the write held, and its entity is not doubled by a second one
        assert memory.upsert([Triple(subject="newcomer", predicate="LIVES_IN", object="city 3")]).created == 0
        assert len(memory.facts("newcomer")) == 1


def test_the_asyncio_twin_answers_at_once_after_a_cold_open_what_it_answers_warm(
        store_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(LINGER_ENV, "0")
    populate(original := store_dir / "original.db")
    cold, warm = copy(original, store_dir / "cold.db"), copy(original, store_dir / "warm.db")

    async def outcomes(db: Path, wait: bool) -> tuple[Any, ...]:
        async with AsyncMemory(db, scope="s") as memory:
            if wait:
                backend: Any = memory.backend
                await backend.drive(falkordb_steps.wait_for_indexes(backend.graph, backend.location, ("GRAPH.QUERY",)))
            facts = [f.model_dump() for f in await memory.facts("person 7", include_history=True)]
            found = [e.name for e in await memory.search_entities("person 2")]
            created = (await memory.upsert([Triple(subject="person 1", predicate="KNOWS", object="person 2")])).created
            return facts, found, created

    at_once, built = asyncio.run(outcomes(cold, False)), asyncio.run(outcomes(warm, True))
    assert at_once == built and at_once[0] and at_once[1] and at_once[2] == 1


def test_a_server_killed_while_it_builds_its_indexes_reopens_the_store_whole(
        store_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(LINGER_ENV, "0")
    populate(db := store_dir / "store.db")
    with settled(Memory(db, scope="s")) as memory:
        expected = reads(memory)
    for stop in ("kill", "close"):
        memory = Memory(db, scope="s")
        if stop == "kill":  # as soon as it answers: the indexes are (most likely) still being built
            server = memory.backend.server
            pid = server.pid() if server is not None else None
            assert pid is not None
            kill_hard(pid, "redis-server")
        with contextlib.suppress(BackendError):
            memory.close()
        with settled(Memory(db, scope="s")) as reopened:
            assert reads(reopened) == expected
