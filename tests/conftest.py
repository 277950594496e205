"""Shared fixtures: every integration test runs on each live backend.

FalkorDB runs embedded (the library starts it). Neo4j comes from, in order:
``SYNAPSE_NEO4J_URL`` (+ ``SYNAPSE_NEO4J_USER``/``SYNAPSE_NEO4J_PASSWORD``), or the
local server that ``scripts/neo4j-local`` assembles and starts. Under CI
(``CI`` set) a backend that cannot be had fails the run instead of skipping.
"""

from __future__ import annotations

import os
import subprocess
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings

from benchmarks import neo4j_local
from synapse_graph import Memory
from synapse_graph.aio import AsyncMemory
from tests.adapters import Blocking, EventLoopThread
from tests.ci import unavailable
from tests.servers import stop_idle_servers

ROOT = Path(__file__).resolve().parent.parent
# Embedded servers stop with their last client, as before lingering: hundreds of stores would otherwise each keep a
# server for minutes. The tests of the embedded server itself linger (tests/integration/conftest.py: `lingering`).
os.environ.setdefault("SYNAPSE_FALKORDB_LINGER", "0")
# No test asserts on absolute time: hypothesis's per-example deadline (200 ms) is one, and a loaded CI machine
# missed it (tests/unit/test_distinct.py). Examples are still bounded by their counts.
settings.register_profile("synapse", deadline=None)
settings.load_profile("synapse")
BACKENDS = ("falkordb", "neo4j")
APIS = ("sync", "async")


@pytest.fixture(autouse=True)
def _no_server_lingers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """No embedded server outlives its test idle (a process started with an environment of its own lingers
    minutes by default): those no client uses are stopped (tests/servers.py)."""
    yield
    stop_idle_servers(tmp_path_factory.getbasetemp())


@pytest.fixture(scope="session")
def falkordb_location(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """An embedded FalkorDB file for the session; one Memory keeps its server up throughout."""
    url = os.environ.get("SYNAPSE_FALKORDB_URL")
    if url:
        yield url
        return
    location = str(tmp_path_factory.mktemp("falkordb") / "memory.db")
    keeper = Memory(location, scope="keeper")
    yield location
    keeper.close()


@pytest.fixture(scope="session")
def neo4j_settings() -> dict[str, Any]:
    """Connection settings of a live Neo4j: the configured one, or the local script's server."""
    env = dict(os.environ)
    if not env.get("SYNAPSE_NEO4J_URL"):
        try:
            env.update(neo4j_local.start_and_env())
        except (RuntimeError, OSError, subprocess.SubprocessError) as exc:
            unavailable(f"no Neo4j server: {exc}")
    return {
        "location": env["SYNAPSE_NEO4J_URL"],
        "auth": (env.get("SYNAPSE_NEO4J_USER", "neo4j"), env.get("SYNAPSE_NEO4J_PASSWORD", "")),
    }


@pytest.fixture(params=BACKENDS)
def backend_name(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def backend_settings(backend_name: str, request: pytest.FixtureRequest) -> dict[str, Any]:
    """``Memory`` options of the test's backend: ``location``, and ``auth`` on Neo4j."""
    if backend_name == "falkordb":
        return {"location": request.getfixturevalue("falkordb_location")}
    return dict(request.getfixturevalue("neo4j_settings"))


@pytest.fixture(params=APIS)
def api(request: pytest.FixtureRequest) -> str:
    """Which facade a test drives: ``Memory``, or ``AsyncMemory`` (run blocking by :class:`Blocking`)."""
    return str(request.param)


@pytest.fixture(scope="session")
def event_loop_thread() -> Iterator[EventLoopThread]:
    runner = EventLoopThread()
    yield runner
    runner.stop()


@pytest.fixture
def make_memory(request: pytest.FixtureRequest, backend_name: str, api: str) -> Iterator[Callable[..., Memory]]:
    """Factory of memories on the test's backend and API, each in a fresh scope unless one is given."""
    opened: list[Any] = []
    settings: dict[str, Any] = request.getfixturevalue("backend_settings")

    def factory(scope: str | None = None, **kwargs: Any) -> Memory:
        options = {**settings, **kwargs}
        location = options.pop("location")
        chosen = scope or f"test-{uuid.uuid4().hex[:12]}"
        if api == "sync":
            memory: Any = Memory(location, scope=chosen, **options)
        else:
            runner: EventLoopThread = request.getfixturevalue("event_loop_thread")
            memory = Blocking(runner.run(AsyncMemory(location, scope=chosen, **options).open()), runner)
        opened.append(memory)
        return memory  # type: ignore[no-any-return]

    yield factory
    for memory in opened:
        memory.close()


@pytest.fixture
def memory(make_memory: Callable[..., Memory]) -> Memory:
    """A Memory in a scope of its own on the test's backend."""
    return make_memory()


@pytest.fixture
def purged(make_memory: Callable[..., Memory]) -> Iterator[Callable[..., Memory]]:
    """``make_memory``, each memory's scope purged afterwards (vector indexes span every scope)."""
    scopes: list[str] = []

    def factory(**options: object) -> Memory:
        memory = make_memory(**options)
        scopes.append(memory.scope)
        return memory

    yield factory
    for scope in dict.fromkeys(scopes):  # by a memory without an embedder: one is refused after a reindex
        make_memory(scope=scope).purge(scope=scope)
