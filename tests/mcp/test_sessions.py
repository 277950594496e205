"""A server bound to an agent session, on both backends: recall_context reads the session's private memory by
default and never falls back to the durable one; memory_scope picks the other; a server bound to no session,
or to a revoked one, says what to do instead of writing anywhere."""

from __future__ import annotations

import subprocess
from collections.abc import Callable

import anyio
import pytest

from synapse_graph import Memory, Triple
from tests.mcp.conftest import Serve, ServerCommand, call, connect, error

pytestmark = pytest.mark.integration


def objects(data: dict[str, object]) -> set[str]:
    facts = data["facts"] if "facts" in data else data["memories"]
    assert isinstance(facts, list)
    return {f["fact"][2] for f in facts if "fact" in f}


def test_a_bound_server_recalls_the_session_unless_asked_for_the_durable_memory(
        make_memory: Callable[..., Memory], serve: Serve) -> None:
    memory = make_memory()
    memory.upsert(Triple(subject="Dana", predicate="LIVES_IN", object="Paris"))
    memory.register_session("s1")

    async def main() -> None:
        async with serve(memory, session="s1") as client:
            text, _ = await call(client, "upsert_graph_triples", {
                "triples": [{"subject": "Dana", "predicate": "WORKS_AT", "object": "Acme"}], "memory_scope": "session"})
            assert "to the session's memory" in text
            text, data = await call(client, "recall_context", {"query": "Dana"})
            assert objects(data) == {"Acme"}, text  # the session only: no fall-back to Paris
            assert "in this session's memory only" in text
            _, data = await call(client, "recall_context", {"query": "Dana", "memory_scope": "durable"})
            assert objects(data) == {"Paris"}
            _, data = await call(client, "query_facts", {"subject": "Dana"})  # facts read the durable memory by default
            assert objects(data) == {"Paris"}
            _, data = await call(client, "query_facts", {"subject": "Dana", "memory_scope": "session"})
            assert objects(data) == {"Acme"}
            await call(client, "upsert_graph_triples", {  # writes go to the durable memory by default
                "triples": [{"subject": "Dana", "predicate": "KNOWS", "object": "Bob"}]})

    anyio.run(main)
    assert {f.object for f in memory.facts("Dana")} == {"Paris", "Bob"}
    session = make_memory(memory.scope, session="s1")
    assert [(f.object, f.session) for f in session.facts("Dana", memory_scope="session")] == [("Acme", "s1")]


def test_an_unbound_server_refuses_the_session_scope_and_writes_nothing(
        make_memory: Callable[..., Memory], serve: Serve) -> None:
    memory = make_memory()
    memory.upsert(Triple(subject="Dana", predicate="LIVES_IN", object="Paris"))

    async def main() -> None:
        async with serve(memory) as client:
            for tool, arguments in [
                ("upsert_graph_triples", {"triples": [{"subject": "Dana", "predicate": "WORKS_AT", "object": "Acme"}],
                                          "memory_scope": "session"}),
                ("recall_context", {"query": "Dana", "memory_scope": "session"}),
                ("query_facts", {"subject": "Dana", "memory_scope": "session"}),
            ]:
                assert "--session" in await error(client, tool, arguments)
            assert "must be one of 'session', 'durable'" in await error(
                client, "recall_context", {"query": "Dana", "memory_scope": "both"})
            _, data = await call(client, "recall_context", {"query": "Dana"})  # unbound: the durable memory
            assert objects(data) == {"Paris"}

    anyio.run(main)
    assert [f.object for f in memory.facts(include_history=True)] == ["Paris"]


def test_a_revoked_session_takes_no_more_writes_through_the_server(
        make_memory: Callable[..., Memory], serve: Serve) -> None:
    memory = make_memory()
    memory.register_session("s1")
    session = make_memory(memory.scope, session="s1")
    session.upsert(Triple(subject="Dana", predicate="WORKS_AT", object="Acme"), memory_scope="session")
    memory.revoke_session("s1")

    async def main() -> None:
        async with serve(memory, session="s1") as client:
            refusal = await error(client, "upsert_graph_triples", {
                "triples": [{"subject": "Dana", "predicate": "LIKES", "object": "jazz"}], "memory_scope": "session"})
            assert "s1" in refusal and "revoked" in refusal
            _, data = await call(client, "recall_context", {"query": "Dana"})
            assert objects(data) == set()  # revoking erased the session's memory

    anyio.run(main)
    assert session.facts("Dana", include_history=True, memory_scope="session") == []


def test_mcp_session_registers_the_session_and_serves_its_memory(server: ServerCommand) -> None:
    async def main() -> None:
        async with connect(server, "--session", "agent-7") as client:
            await call(client, "upsert_graph_triples", {
                "triples": [{"subject": "Dana", "predicate": "WORKS_AT", "object": "Acme"}], "memory_scope": "session"})
            await call(client, "upsert_graph_triples", {
                "triples": [{"subject": "Dana", "predicate": "LIVES_IN", "object": "Paris"}]})
        async with connect(server, "--session", "agent-7") as client:  # a new process: same session, same memory
            _, data = await call(client, "recall_context", {"query": "Dana"})
            assert objects(data) == {"Acme"}
        async with connect(server) as client:  # no session: the durable memory
            _, data = await call(client, "recall_context", {"query": "Dana"})
            assert objects(data) == {"Paris"}

    anyio.run(main)
    kwargs = {} if server.backend == "falkordb" else {
        "auth": (server.env["SYNAPSE_NEO4J_USER"], server.env["SYNAPSE_NEO4J_PASSWORD"])}
    with Memory(server.db, scope=server.scope, **kwargs) as memory:
        [registered] = memory.sessions()
        assert registered.id == "agent-7" and registered.revoked_at is None


def test_a_server_on_a_session_scope_refuses_to_start(server: ServerCommand) -> None:
    """A session's memory is served only through its session (--session), so a revoked one takes no writes."""
    kwargs = {} if server.backend == "falkordb" else {
        "auth": (server.env["SYNAPSE_NEO4J_USER"], server.env["SYNAPSE_NEO4J_PASSWORD"])}
    with Memory(server.db, scope=server.scope, **kwargs) as memory:
        memory.register_session("s-gone")
        memory.revoke_session("s-gone")
    inside = ServerCommand(server.backend, server.db, f"{server.scope}/session:s-gone", server.env)
    done = subprocess.run(inside.argv(), env=inside.process_env(), capture_output=True, text=True, timeout=120,
                          stdin=subprocess.DEVNULL, check=False)
    assert done.returncode == 2, done.stderr
    assert len(done.stderr.splitlines()) == 1 and "session" in done.stderr, done.stderr
    assert f"--scope {server.scope} --session s-gone" in done.stderr, done.stderr  # what to do instead
