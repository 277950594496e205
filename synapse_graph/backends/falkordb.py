"""FalkorDB backend: an embedded server (a file path) or a server by URL."""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Callable
from typing import Any, TypeVar
from urllib.parse import urlsplit, urlunsplit

import redis
from falkordb import FalkorDB

from synapse_graph.backends.aof import shown
from synapse_graph.backends.base import Params, Row
from synapse_graph.backends.embedded import EmbeddedServer
from synapse_graph.backends.falkordb_params import params_header
from synapse_graph.catalogue import Q, query, statements
from synapse_graph.errors import BackendError, BackendUnavailableError, ConcurrencyConflictError

T = TypeVar("T")
GRAPH_NAME = "synapse"
# (label, properties) held unique by the database itself; FalkorDB creates
# constraints with a command rather than Cypher, so they live here, not in schema.cypher.
UNIQUE_NODE_KEYS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("Entity", ("scope", "key")),
    ("Alias", ("scope", "key")),
    ("Scope", ("scope",)),
)
_TRANSIENT = (redis.ConnectionError, redis.TimeoutError, redis.BusyLoadingError)
_RETRIES = 5


def safe_url(url: str) -> str:
    """The URL with any password masked, for messages."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    netloc = parts.netloc.replace(f":{parts.password}@", ":***@")
    return urlunsplit(parts._replace(netloc=netloc))


class FalkorDBBackend:
    """Runs catalogue statements on one FalkorDB graph."""

    dialect = "falkordb"

    def __init__(
        self, client: FalkorDB, location: str, *, graph: str = GRAPH_NAME, server: EmbeddedServer | None = None
    ) -> None:
        self._client = client
        self._graph = client.select_graph(graph)
        self._graph_name = graph
        self._server = server
        self.location = location

    @classmethod
    def embedded(cls, db_file: str | os.PathLike[str], *, graph: str = GRAPH_NAME, create: bool = True
                 ) -> FalkorDBBackend:
        """Start (or join) the embedded server for ``db_file``.

        Raises ``NotFoundError`` if ``create`` is false and there is no store there, and
        ``StoreDamagedError`` if its files are damaged.
        """
        server = EmbeddedServer(db_file)
        connect_path = server.start(create=create)
        try:
            # The server's INFO names its socket, whose path may hold bytes that are not UTF-8.
            client = FalkorDB(unix_socket_path=connect_path, encoding_errors="surrogateescape")
        except redis.RedisError as exc:
            server.stop()
            raise BackendUnavailableError(
                f"cannot connect to the embedded FalkorDB for {shown(server.db_file)}: {exc}"
            ) from exc
        return cls(client, shown(server.db_file), graph=graph, server=server)

    @classmethod
    def from_url(cls, url: str, *, graph: str = GRAPH_NAME) -> FalkorDBBackend:
        """Connect to a FalkorDB server at ``redis://``, ``rediss://``, ``falkordb://`` or ``falkor://``."""
        normalised = url
        for prefix, replacement in (("falkordb://", "redis://"), ("falkordbs://", "rediss://")):
            if url.startswith(prefix):
                normalised = replacement + url[len(prefix) :]
        try:
            client = FalkorDB.from_url(normalised)
            client.connection.ping()
        except redis.RedisError as exc:
            raise BackendUnavailableError(
                f"cannot reach FalkorDB at {safe_url(url)}: {exc}. Check that the server is running, "
                "that host and port are right, and the password if one is set."
            ) from exc
        return cls(client, safe_url(url), graph=graph)

    def ensure_schema(self, vector_dimensions: int | None = None) -> None:
        schema: list[tuple[str, dict[str, Any]]] = [(s, {}) for s in statements(Q.SCHEMA, self.dialect)]
        if vector_dimensions is not None:
            schema.append((query(Q.VECTOR_INDEX, self.dialect), {"dimensions": vector_dimensions}))
        for statement, params in schema:
            try:
                self._graph.query(statement, params)
            except redis.ResponseError as exc:
                if "already indexed" not in str(exc):  # FalkorDB has no IF NOT EXISTS for indexes
                    raise BackendError(f"creating the schema on {self.location} failed: {exc}") from exc
        existing = {(row[1], tuple(row[2])) for row in self._graph.query("CALL db.constraints()").result_set}
        for label, properties in UNIQUE_NODE_KEYS:
            if (label, properties) in existing:
                continue
            try:
                self._client.execute_command(
                    "GRAPH.CONSTRAINT",
                    "CREATE",
                    self._graph_name,
                    "UNIQUE",
                    "NODE",
                    label,
                    "PROPERTIES",
                    len(properties),
                    *properties,
                )
            except redis.ResponseError as exc:
                if "already exists" not in str(exc).lower():
                    raise BackendError(f"creating a unique constraint on {self.location} failed: {exc}") from exc
        self._await_constraints()

    def _await_constraints(self) -> None:
        # Constraints are built in the background; writes must not start before they hold.
        for _ in range(500):
            rows = self._graph.query("CALL db.constraints()").result_set
            if all(row[4] == "OPERATIONAL" for row in rows):
                return
            if any(row[4] == "FAILED" for row in rows):
                raise BackendError(f"a unique constraint failed to build on {self.location}: duplicate data?")
            time.sleep(0.01)
        raise BackendError(f"unique constraints on {self.location} are still being built; try again")

    def read(self, name: str, params: Params) -> list[Row]:
        text = params_header(params) + query(name, self.dialect)
        return self._retry(lambda: self._rows(self._graph.ro_query(text)))

    def write(self, name: str, params: Params) -> list[Row]:
        text = params_header(params) + query(name, self.dialect)
        return self._retry(lambda: self._rows(self._graph.query(text)))

    def close(self) -> None:
        with contextlib.suppress(redis.RedisError):  # closing a broken connection is fine
            self._client.connection.close()
        if self._server is not None:
            self._server.stop()
            self._server = None

    @property
    def server(self) -> EmbeddedServer | None:
        """The embedded server, when this backend started one."""
        return self._server

    @staticmethod
    def _rows(result: Any) -> list[Row]:
        header = [column[1] if isinstance(column, list | tuple) else column for column in result.header]
        return [dict(zip(header, row, strict=True)) for row in result.result_set]

    def _retry(self, call: Callable[[], T]) -> T:
        # A FalkorDB query is atomic: a failed one changed nothing, so re-running is safe.
        delay = 0.05
        for attempt in range(_RETRIES):
            try:
                return call()
            except _TRANSIENT as exc:
                if attempt == _RETRIES - 1:
                    raise BackendUnavailableError(f"FalkorDB at {self.location} is unreachable: {exc}") from exc
                time.sleep(delay)
                delay *= 2
            except redis.ResponseError as exc:
                if "unique constraint violation" in str(exc):
                    raise ConcurrencyConflictError(
                        f"a concurrent writer created the same entity on {self.location}; retry the call"
                    ) from exc
                raise BackendError(f"FalkorDB at {self.location} refused a query: {exc}") from exc
        raise AssertionError("unreachable")  # pragma: no cover
