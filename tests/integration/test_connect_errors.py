"""Opening a memory that cannot work fails at once with the documented error, and writes nothing:
wrong credentials, a malformed URL, a port that is no Neo4j server, a database the server does not have."""

from __future__ import annotations

import contextlib
import socket
import threading
import uuid
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from synapse_graph import (
    AuthenticationError,
    BackendError,
    ConfigurationError,
    Memory,
    QueryRefusedError,
    SynapseError,
)
from synapse_graph.aio import AsyncMemory
from tests.adapters import EventLoopThread
from tests.integration.helpers import raw_cypher

pytestmark = pytest.mark.integration

Open = Callable[..., Any]
PASSWORD = "s3cret-in-the-url"


@pytest.fixture
def open_memory(api: str, request: pytest.FixtureRequest) -> Iterator[Open]:
    """Opens a memory through the test's API (``Memory``, or ``AsyncMemory.open()``); closes what opened."""
    opened: list[Any] = []

    def open_(location: str, **options: Any) -> Any:
        if api == "sync":
            memory: Any = Memory(location, **options)
            opened.append(memory.close)
        else:
            runner: EventLoopThread = request.getfixturevalue("event_loop_thread")
            memory = runner.run(AsyncMemory(location, **options).open())
            opened.append(lambda: runner.run(memory.close()))
        return memory

    yield open_
    for close in opened:
        close()


@pytest.fixture
def held(backend_settings: dict[str, Any]) -> Iterator[Callable[[str], int]]:
    """How many nodes of a scope the test's live store holds (read through a memory that opens fine)."""
    settings = dict(backend_settings)
    with Memory(settings.pop("location"), scope=f"probe-{uuid.uuid4().hex[:12]}", **settings) as probe:
        probe.upsert(("Probe", "CAN", "write"))  # the store takes writes: a 0 below means nothing was written
        assert raw_cypher(probe, "MATCH (n) WHERE n.scope = $scope RETURN count(n) AS n", scope=probe.scope)[0]["n"]

        def count(scope: str) -> int:
            [row] = raw_cypher(probe, "MATCH (n) WHERE n.scope = $scope RETURN count(n) AS n", scope=scope)
            return int(row["n"])

        yield count
        probe.purge(scope=probe.scope)


def fresh_scope() -> str:
    return f"refused-{uuid.uuid4().hex[:12]}"


@pytest.mark.parametrize("backend_name", ["neo4j"])  # the embedded FalkorDB takes no credentials
def test_a_wrong_password_is_an_authentication_error_that_retrying_cannot_fix(
    neo4j_settings: dict[str, Any], open_memory: Open, held: Callable[[str], int]
) -> None:
    user, password = neo4j_settings["auth"]
    scope = fresh_scope()
    wrong = password + "-wrong"
    with pytest.raises(AuthenticationError) as raised:
        open_memory(neo4j_settings["location"], scope=scope, auth=(user, wrong))
    assert raised.value.is_retryable() is False
    assert "credentials" in str(raised.value) and neo4j_settings["location"] in str(raised.value)
    assert wrong not in str(raised.value) and password not in str(raised.value)
    # The right password still opens the same scope (one failure locks nobody out), and nothing was written.
    assert held(scope) == 0
    with Memory(neo4j_settings["location"], scope=scope, auth=(user, password)) as right:
        assert right.facts() == [] and right.stats().facts == 0
        right.purge(scope=scope)


BAD_URLS = [
    pytest.param("falkordb", "redis://[::1", id="falkordb-unclosed-ipv6"),
    pytest.param("falkordb", "falkordb://localhost:notaport", id="falkordb-port-not-a-number"),
    pytest.param("falkordb", f"redis://dana:{PASSWORD}@[::1:6379", id="falkordb-password-unclosed-ipv6"),
    pytest.param("neo4j", "bolt://[::1", id="neo4j-unclosed-ipv6"),
    pytest.param("neo4j", "bolt://localhost:notaport", id="neo4j-port-not-a-number"),
    pytest.param("neo4j", f"neo4j://neo4j:{PASSWORD}@[::1:7687", id="neo4j-password-unclosed-ipv6"),
    pytest.param("neo4j", "neo4j://127.0.0.1:99999", id="neo4j-port-out-of-range"),
    pytest.param("falkordb", "redis://127.0.0.1:99999", id="falkordb-port-out-of-range"),
]


@pytest.mark.parametrize(("backend_name", "url"), BAD_URLS)
def test_a_malformed_url_is_a_configuration_error(
    backend_name: str, url: str, backend_settings: dict[str, Any], open_memory: Open, held: Callable[[str], int]
) -> None:
    scope = fresh_scope()
    with pytest.raises(ConfigurationError) as raised:
        open_memory(url, scope=scope, auth=backend_settings.get("auth"))
    assert isinstance(raised.value, SynapseError) and raised.value.is_retryable() is False
    message = str(raised.value)
    assert "URL" in message and PASSWORD not in message
    assert held(scope) == 0


@contextlib.contextmanager
def answering(reply: bytes) -> Iterator[int]:
    """A local TCP port that answers ``reply`` to whatever it is sent, while the block runs."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()

    def serve() -> None:
        while True:
            try:
                connection, _ = server.accept()
            except OSError:  # closed: the test is over
                return
            with connection:
                connection.recv(64)
                connection.sendall(reply)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield server.getsockname()[1]
    finally:
        server.close()
        thread.join(timeout=10)


NOT_BOLT = {
    # A port that answers like Redis (FalkorDB's protocol): the driver's own words are kept.
    "redis": (b"-ERR unknown command\r\n", ("does not support communication",)),
    # An HTTP port (Neo4j's own is 7474, Neo4j Browser's): the message names the Bolt port to give instead.
    "http": (b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n", ("HTTP", "7687")),
}


@pytest.mark.parametrize("backend_name", ["neo4j"])
@pytest.mark.parametrize("answers", sorted(NOT_BOLT))
def test_a_port_that_is_no_bolt_server_is_a_configuration_error(
    answers: str, neo4j_settings: dict[str, Any], open_memory: Open, held: Callable[[str], int]
) -> None:
    reply, said = NOT_BOLT[answers]
    scope = fresh_scope()
    with answering(reply) as port, pytest.raises(ConfigurationError) as raised:
        url = f"bolt://127.0.0.1:{port}"
        open_memory(url, scope=scope, auth=neo4j_settings["auth"])
    assert raised.value.is_retryable() is False, "retrying never reaches a Bolt server there"
    assert url in str(raised.value) and all(words in str(raised.value) for words in said)
    assert held(scope) == 0


@pytest.mark.parametrize("backend_name", ["neo4j"])
def test_a_database_the_server_does_not_have_is_refused(
    neo4j_settings: dict[str, Any], open_memory: Open, held: Callable[[str], int]
) -> None:
    database = f"nosuchdb{uuid.uuid4().hex[:8]}"
    scope = fresh_scope()
    with pytest.raises(QueryRefusedError) as raised:
        open_memory(neo4j_settings["location"], scope=scope, auth=neo4j_settings["auth"], database=database)
    assert isinstance(raised.value, BackendError) and raised.value.is_retryable() is False
    assert database in str(raised.value)
    assert held(scope) == 0  # nor in the default database
