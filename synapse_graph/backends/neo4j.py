"""Neo4j 5 backend through the official driver (bolt://, neo4j:// routing, Aura).

The seam speaks UTC epoch microseconds; Neo4j stores native ``DATETIME`` values so
the graph reads naturally in Neo4j Browser. This driver converts at the boundary:
parameters named ``*_at``, ``as_of`` or ``now`` go in as aware datetimes (as ISO-8601
text inside the lists of a bulk write, converted by the statement), and every datetime
that comes back becomes microseconds again.
Comparisons are then between datetimes of microsecond precision on both sides,
so the half-open interval rules are the same as on FalkorDB.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime, timedelta
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import neo4j
from neo4j import GraphDatabase, RoutingControl
from neo4j import exceptions as neo4j_errors
from neo4j.time import DateTime

from synapse_graph.backends.base import Params, Row
from synapse_graph.catalogue import Q, query, statements
from synapse_graph.errors import BackendError, BackendUnavailableError, ConcurrencyConflictError

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_TIME_KEYS = frozenset({"as_of", "now"})


def _to_datetime(micros: int) -> datetime:
    return _EPOCH + timedelta(microseconds=micros)


def _to_micros(value: DateTime | datetime) -> int:
    native = value.to_native() if isinstance(value, DateTime) else value
    if native.tzinfo is None:
        native = native.replace(tzinfo=UTC)
    delta = native - _EPOCH
    return (delta.days * 86_400 + delta.seconds) * 1_000_000 + delta.microseconds


def _to_iso(micros: int) -> str:
    return (_EPOCH + timedelta(microseconds=micros)).isoformat()


def encode(value: Any, key: str = "", *, in_list: bool = False) -> Any:
    """Parameters for Neo4j: instants under time keys become datetimes.

    Inside lists (the rows of a bulk write) they become ISO-8601 text instead, which the
    Neo4j forms of those statements turn into ``DATETIME`` with ``datetime()``: the driver
    packs a Python datetime hundreds of times slower than a string.
    """
    kind = type(value)
    if kind is str or value is None:  # most values: passed through without a call per item below
        return value
    if isinstance(value, Mapping):
        return {k: v if type(v) is str or v is None else encode(v, k, in_list=in_list) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [v if type(v) is str else encode(v, key, in_list=True) for v in value]
    if kind is int and (key in _TIME_KEYS or key.endswith("_at")):
        return _to_iso(value) if in_list else _to_datetime(value)
    return value


def decode(value: Any) -> Any:
    """Rows from Neo4j: datetimes become epoch microseconds again."""
    if isinstance(value, DateTime | datetime):
        return _to_micros(value)
    if isinstance(value, Mapping):
        return {k: decode(v) for k, v in value.items()}
    if isinstance(value, list):
        return [decode(v) for v in value]
    return value


def safe_url(url: str) -> str:
    parts = urlsplit(url)
    if parts.password is None:
        return url
    return urlunsplit(parts._replace(netloc=parts.netloc.replace(f":{parts.password}@", ":***@")))


class Neo4jBackend:
    """Runs catalogue statements on a Neo4j 5 database with managed, retried transactions."""

    dialect = "neo4j"

    def __init__(self, driver: neo4j.Driver, location: str, *, database: str | None = None) -> None:
        self._driver = driver
        self._database = database
        self.location = location

    @classmethod
    def connect(cls, url: str, *, auth: tuple[str, str] | None = None, database: str | None = None) -> Neo4jBackend:
        """Connect and check the server answers; routing URIs (``neo4j://``) send reads to followers."""
        shown = safe_url(url)
        try:
            # Sparse properties (status, flag, embedding...) are expected: no warning when one is absent.
            driver = GraphDatabase.driver(url, auth=auth, notifications_disabled_classifications=["UNRECOGNIZED"])
        except (ValueError, neo4j_errors.ConfigurationError) as exc:
            raise BackendUnavailableError(f"invalid Neo4j URL {shown}: {exc}") from exc
        try:
            driver.verify_connectivity()
        except neo4j_errors.AuthError as exc:
            driver.close()
            raise BackendUnavailableError(
                f"Neo4j at {shown} refused the credentials: check the user and password given as auth=(user, password)"
            ) from exc
        except (neo4j_errors.ServiceUnavailable, neo4j_errors.SessionExpired, OSError) as exc:
            driver.close()
            raise BackendUnavailableError(
                f"cannot reach Neo4j at {shown}: {exc}. Check that the server is running, the host and Bolt port "
                "(default 7687), and TLS (neo4j+s:// for Aura)."
            ) from exc
        except neo4j_errors.Neo4jError as exc:
            driver.close()
            raise BackendUnavailableError(f"Neo4j at {shown} did not accept the connection: {exc.message}") from exc
        return cls(driver, shown, database=database)

    def ensure_schema(self, vector_dimensions: int | None = None) -> None:
        for statement in statements(Q.SCHEMA, self.dialect):
            self._run(statement, {}, RoutingControl.WRITE)
        if vector_dimensions is not None:
            self._run(query(Q.VECTOR_INDEX, self.dialect), {"dimensions": vector_dimensions}, RoutingControl.WRITE)

    def read(self, name: str, params: Params) -> list[Row]:
        return self._run(query(name, self.dialect), params, RoutingControl.READ)

    def write(self, name: str, params: Params) -> list[Row]:
        return self._run(query(name, self.dialect), params, RoutingControl.WRITE)

    def close(self) -> None:
        self._driver.close()

    def _run(self, text: str, params: Params, routing: RoutingControl) -> list[Row]:
        try:
            records, _, _ = self._driver.execute_query(
                text, parameters_=encode(params), routing_=routing, database_=self._database,
            )
        except neo4j_errors.ConstraintError as exc:
            raise ConcurrencyConflictError(
                f"a concurrent writer created the same entity on {self.location}; retry the call") from exc
        except (neo4j_errors.ServiceUnavailable, neo4j_errors.SessionExpired) as exc:
            raise BackendUnavailableError(f"Neo4j at {self.location} is unreachable: {exc}") from exc
        except neo4j_errors.Neo4jError as exc:
            error = BackendError(f"Neo4j at {self.location} refused a query: {exc.message}")
            error.retryable = exc.is_retryable()
            raise error from exc
        return [{key: decode(record[key]) for key in record.keys()} for record in records]  # noqa: SIM118
