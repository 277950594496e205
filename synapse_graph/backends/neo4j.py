"""Neo4j 5 backends through the official driver (bolt://, neo4j:// routing, Aura): sync and asyncio.

The seam speaks UTC epoch microseconds; Neo4j stores native ``DATETIME`` values so the
graph reads naturally in Neo4j Browser. This driver converts at the boundary, by type: an
:class:`~synapse_graph.instants.Instant` parameter becomes a ``DATETIME``; inside lists
(the rows of a bulk write) it becomes ISO-8601 text instead, which the Neo4j forms of those
statements turn into ``DATETIME`` with ``datetime()`` (the driver packs a Python datetime
about twenty times slower than a string). Every datetime that comes back becomes
microseconds again. A locked write is one transaction whose first statement takes the
scope node's write lock, held until commit.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import AsyncIterator, Iterator, Mapping
from contextlib import asynccontextmanager, contextmanager
from datetime import datetime
from functools import cache
from typing import Any

import neo4j
from neo4j import AsyncGraphDatabase, GraphDatabase, RoutingControl
from neo4j import exceptions as neo4j_errors
from neo4j.time import DateTime

from synapse_graph.backends.base import (
    AsyncBackend,
    AsyncStatementRunner,
    Backend,
    Params,
    Requests,
    Row,
    StatementRunner,
    indexed_dimensions,
)
from synapse_graph.backends.neo4j_rows import ROWS, collected, merged_text
from synapse_graph.backends.urls import safe_url
from synapse_graph.catalogue import Q, query, statements
from synapse_graph.errors import (
    AuthenticationError,
    BackendError,
    BackendUnavailableError,
    ConcurrencyConflictError,
    ConfigurationError,
    QueryRefusedError,
    ScopeBusyError,
    SynapseError,
)
from synapse_graph.instants import Instant, from_datetime, to_datetime, to_iso

DIALECT = "neo4j"
# Sparse properties (status, flag, embedding...) are expected: no warning when one is absent.
_DRIVER_OPTIONS: dict[str, Any] = {"notifications_disabled_classifications": ["UNRECOGNIZED"]}


_PLAIN = frozenset({str, int, float, bool, type(None)})
"""Values sent and read back as they are, checked by exact type (no isinstance chain; an Instant is an int of a
type of its own, so it is not one of them)."""


def encode(value: Any, *, in_list: bool = False) -> Any:
    """Parameters for Neo4j: instants become datetimes (ISO-8601 text inside lists)."""
    kind = type(value)
    if kind in _PLAIN:
        return value
    if kind is Instant:
        return to_iso(value) if in_list else to_datetime(value)
    if isinstance(value, Mapping):
        return {k: v if type(v) in _PLAIN else encode(v, in_list=in_list) for k, v in value.items()}
    if isinstance(value, list | tuple):  # an embedding: 384 floats, each passed as it is (no call per value)
        return [v if type(v) in _PLAIN else encode(v, in_list=True) for v in value]
    return value


def decode(value: Any) -> Any:
    """Rows from Neo4j: datetimes become epoch microseconds again."""
    kind = value.__class__
    if kind in _PLAIN:
        return value
    if kind is dict:
        return {k: v if v.__class__ in _PLAIN else decode(v) for k, v in value.items()}
    if kind is list:
        return [v if v.__class__ in _PLAIN else decode(v) for v in value]
    if isinstance(value, DateTime):
        return from_datetime(value.to_native())
    if isinstance(value, datetime):
        return from_datetime(value)
    if isinstance(value, Mapping):
        return {k: decode(v) for k, v in value.items()}
    if isinstance(value, list):
        return [decode(v) for v in value]
    return value


def _rows(records: Any) -> list[Row]:
    if not records:
        return []
    keys = records[0].keys()
    return [dict(zip(keys, [v if v.__class__ in _PLAIN else decode(v) for v in record], strict=True))
            for record in records]


STREAMED = frozenset({Q.EXPORT_ENTITIES, Q.EXPORT_ALIASES, Q.EXPORT_FACTS, Q.EXPORT_OBSERVATIONS,
                      Q.EXPORT_TOMBSTONES, Q.AUDIT_LOG, Q.AUDIT_IDS})
"""Reads whose rows grow with the whole scope: they stream record by record (collected, the server would hold
the scope in its heap at once)."""


COLLECTED_UNIONS = frozenset({Q.STATE_AND_TERM_HITS, Q.STATE_AND_TERM_HITS_FEW, Q.MEMORY_LEXICAL,
                               Q.MEMORY_LEXICAL_SCANNED, Q.MEMORY_LEXICAL_EACH, Q.MEMORY_LEXICAL_ALONE,
                               Q.MEMORY_LEXICAL_FEW, Q.MEMORY_VECTOR_SCAN})
"""Recall's reads: unions of legs whose rows are bounded (a leg's best, a row a term), collected in one record
(neo4j_rows._union); other unions stream (some read as many rows as a scope holds)."""


READ_RETRY_SECONDS = 30.0
"""Reads run as auto-commit statements (see :meth:`Neo4jBackend.read_many`), which the driver does not retry: a
read that fails with an error the driver calls retryable (a cluster's leader changed, a transient error) is run
again after 0.1, 0.2, 0.4 ... s (2 s at most between two) for as long as the driver's managed transactions would
retry it (their ``max_transaction_retry_time``, 30 s by default)."""


class _ReadRetries:
    """The attempts of one request's reads, sync or async: after a failed attempt, :meth:`wait` says how long to
    wait before the next (longer each time), or raises the failure as the library's error when the driver does not
    call it retryable or :data:`READ_RETRY_SECONDS` would pass."""

    def __init__(self, location: str) -> None:
        self._location, self._started, self._attempt = location, time.monotonic(), 0

    def wait(self, exc: neo4j_errors.Neo4jError | neo4j_errors.DriverError) -> float:
        wait = min(0.1 * 2.0**self._attempt, 2.0)
        if not exc.is_retryable() or time.monotonic() - self._started + wait > READ_RETRY_SECONDS:
            raise query_error(exc, self._location) from exc
        self._attempt += 1
        return wait


@cache
def read_text(name: str) -> tuple[str, bool]:
    """A read statement's text, and whether it returns its rows collected in one record (see neo4j_rows)."""
    text = query(name, DIALECT)
    form = None if name in STREAMED else collected(text, union=name in COLLECTED_UNIONS)
    return (text, False) if form is None else (form, True)


def _read_rows(records: Any, is_collected: bool) -> list[Row]:
    if not is_collected:
        return _rows(records)
    return [decode(row) for row in records[0][ROWS]] if records else []


Statement = tuple[str, bool, dict[str, Any]]
"""A read as sent: its text, whether it returns its rows collected (see neo4j_rows), its encoded parameters."""


def merged(statements_: list[Statement]) -> tuple[str, dict[str, Any]] | None:
    """Several reads as one statement, one round trip (each statement is one on Neo4j: a read transaction adds
    two): when every read returns its rows collected (one record, so each subquery gives one row) and no
    parameter of one has another value in another; else None, and they are sent one after another."""
    if len(statements_) < 2 or not all(is_collected for _, is_collected, _ in statements_):
        return None
    params: dict[str, Any] = {}
    for _, _, given in statements_:
        for key, value in given.items():
            if key in params and params[key] != value:
                return None
            params[key] = value
    return merged_text(tuple(text for text, _, _ in statements_)), params


def _merged_rows(records: Any, count: int) -> list[list[Row]]:
    return [[decode(row) for row in records[0][f"synapse_{i}"]] for i in range(count)]


def connect_error(exc: Exception, shown: str) -> SynapseError:
    """What a failure to connect means for the user: bad URL, bad credentials, or no server."""
    if isinstance(exc, ValueError | neo4j_errors.ConfigurationError):
        return ConfigurationError(f"invalid Neo4j URL {shown}: {exc}")
    if isinstance(exc, neo4j_errors.AuthError):
        return AuthenticationError(
            f"Neo4j at {shown} refused the credentials: check the user and password given as auth=(user, password)")
    if isinstance(exc, neo4j_errors.ServiceUnavailable) and "looks like HTTP" in str(exc):
        return ConfigurationError(
            f"{shown} answers HTTP, not Bolt: that is Neo4j's HTTP port (Neo4j Browser, default 7474); "
            "give the Bolt port, default 7687 (bolt://host:7687 or neo4j://host:7687)")
    if isinstance(exc, neo4j_errors.ServiceUnavailable | neo4j_errors.SessionExpired | OSError):
        return BackendUnavailableError(
            f"cannot reach Neo4j at {shown}: {exc}. Check that the server is running, the host and Bolt port "
            "(default 7687), and TLS (neo4j+s:// for Aura).")
    if isinstance(exc, neo4j_errors.Neo4jError):
        return BackendUnavailableError(f"Neo4j at {shown} did not accept the connection: {exc.message}")
    return BackendUnavailableError(f"cannot connect to Neo4j at {shown}: {exc}")


_TIMED_OUT = ("TransactionTimedOut", "LockAcquisitionTimeout", "LockClientStopped")


def query_error(exc: BaseException, location: str, *, locking: bool = False, timeout: float = 0.0) -> BackendError:
    """A driver error while running a statement, as the library's error."""
    if isinstance(exc, neo4j_errors.ConstraintError):
        return ConcurrencyConflictError(f"a concurrent writer created the same entity on {location}; retry the call")
    if isinstance(exc, neo4j_errors.ServiceUnavailable | neo4j_errors.SessionExpired):
        return BackendUnavailableError(f"Neo4j at {location} is unreachable: {exc}")
    if isinstance(exc, neo4j_errors.Neo4jError):
        # A transaction that times out while it waits for a lock is stopped as a lock client (LockClientStopped).
        if any(code in (exc.code or "") for code in _TIMED_OUT):
            if locking:
                return ScopeBusyError(f"the scope's write lock on {location} was not had within {timeout:g} s "
                                      "(lock_timeout); another writer holds it: retry, or open the Memory with a "
                                      "larger lock_timeout")
            return QueryRefusedError(f"a write on {location} took longer than lock_timeout={timeout:g} s, which "
                                     "bounds a whole write transaction on Neo4j; write smaller batches or raise it")
        error = QueryRefusedError(f"Neo4j at {location} refused a query: {exc.message}")
        error.retryable = exc.is_retryable()
        return error
    return BackendUnavailableError(f"the connection to Neo4j at {location} failed: {exc}")


class _TxRunner(StatementRunner):
    """Statements inside one locked write transaction."""

    def __init__(self, tx: neo4j.Transaction, location: str) -> None:
        self._tx = tx
        self._location = location

    def read(self, name: str, params: Params) -> list[Row]:
        return self._run(*read_text(name), params)

    def write(self, name: str, params: Params) -> list[Row]:
        return self._run(query(name, DIALECT), False, params)

    def _run(self, text: str, is_collected: bool, params: Params) -> list[Row]:
        try:
            return _read_rows(list(self._tx.run(text, encode(params))), is_collected)
        except (neo4j_errors.Neo4jError, neo4j_errors.DriverError, OSError) as exc:
            raise query_error(exc, self._location) from exc


class Neo4jBackend(Backend):
    """Runs catalogue statements on a Neo4j 5 database with managed, retried transactions."""

    dialect = DIALECT
    cosines_in_process = True

    def __init__(self, driver: neo4j.Driver, location: str, *, database: str | None = None) -> None:
        self._driver = driver
        self._database = database
        self.location = location

    @classmethod
    def connect(cls, url: str, *, auth: tuple[str, str] | None = None, database: str | None = None) -> Neo4jBackend:
        """Connect and check the server answers; routing URIs (``neo4j://``) send reads to followers."""
        shown = safe_url(url)
        try:
            driver = GraphDatabase.driver(url, auth=auth, **_DRIVER_OPTIONS)
        except (ValueError, neo4j_errors.ConfigurationError) as exc:
            raise connect_error(exc, shown) from exc
        try:
            driver.verify_connectivity()
        except Exception as exc:
            driver.close()
            raise connect_error(exc, shown) from exc
        return cls(driver, shown, database=database)

    def ensure_schema(self, vector_dimensions: int | None = None) -> int | None:
        for statement in statements(Q.SCHEMA, self.dialect):
            self._run(statement, {}, RoutingControl.WRITE)
        if vector_dimensions is None:
            return None
        for statement in statements(Q.VECTOR_INDEX, self.dialect):
            self._run(statement, {"dimensions": vector_dimensions}, RoutingControl.WRITE)
        return indexed_dimensions(self._run(query(Q.VECTOR_INDEX_DIMENSIONS, self.dialect), {}, RoutingControl.READ))

    def read(self, name: str, params: Params) -> list[Row]:
        [rows] = self._reads([(name, params)])
        return rows

    def write(self, name: str, params: Params) -> list[Row]:
        return self._run(query(name, self.dialect), params, RoutingControl.WRITE)

    def read_many(self, requests: Requests) -> list[list[Row]]:
        return self._reads(requests)

    def _reads(self, requests: Requests) -> list[list[Row]]:
        """Reads in one session, each an auto-commit statement: one round trip each (RUN and PULL go together),
        where a read transaction adds a BEGIN and a COMMIT of their own (the driver waits for the BEGIN's answer
        before it sends the first statement), or all in one statement when :func:`merged` can; retried as
        :data:`READ_RETRY_SECONDS` says."""
        statements_ = [(*read_text(name), encode(params)) for name, params in requests]
        one = merged(statements_)
        retries = _ReadRetries(self.location)
        while True:
            try:
                with self._driver.session(database=self._database, default_access_mode=neo4j.READ_ACCESS,
                                          bookmark_manager=self._driver.execute_query_bookmark_manager) as session:
                    if one is not None:
                        return _merged_rows(list(session.run(*one)), len(statements_))
                    return [_read_rows(list(session.run(text, params)), is_collected)
                            for text, is_collected, params in statements_]
            except (neo4j_errors.Neo4jError, neo4j_errors.DriverError) as exc:
                time.sleep(retries.wait(exc))

    @contextmanager
    def locked(self, scope: str, init: Params, timeout: float) -> Iterator[_TxRunner]:
        with self._driver.session(database=self._database, default_access_mode=neo4j.WRITE_ACCESS) as session:
            tx = self._lock(session, scope, timeout)
            if tx is None:  # the scope's first write: create its node, then lock it
                self.write(Q.CREATE_SCOPE, {**init, "scope": scope})
                tx = self._lock(session, scope, timeout)
            if tx is None:
                raise QueryRefusedError(f"the node of scope {scope!r} vanished on {self.location}; retry")
            try:
                with tx:
                    yield _TxRunner(tx, self.location)
                    tx.commit()
            except (neo4j_errors.Neo4jError, neo4j_errors.DriverError, OSError) as exc:
                raise query_error(exc, self.location, timeout=timeout) from exc

    def _lock(self, session: neo4j.Session, scope: str, timeout: float) -> neo4j.Transaction | None:
        """A transaction holding the scope node's write lock, or None if the scope has no node yet."""
        try:
            tx = session.begin_transaction(timeout=timeout)
            if tx.run(query(Q.LOCK_SCOPE, DIALECT), {"scope": scope, "token": uuid.uuid4().hex}).single() is not None:
                return tx
            tx.close()
            return None
        except neo4j_errors.Neo4jError as exc:
            raise query_error(exc, self.location, locking=True, timeout=timeout) from exc
        except (neo4j_errors.DriverError, OSError) as exc:
            raise query_error(exc, self.location) from exc

    def close(self) -> None:
        self._driver.close()

    def _run(self, text: str, params: Params, routing: RoutingControl) -> list[Row]:
        try:
            records, _, _ = self._driver.execute_query(
                text, parameters_=encode(params), routing_=routing, database_=self._database,
            )
        except (neo4j_errors.Neo4jError, neo4j_errors.DriverError) as exc:
            raise query_error(exc, self.location) from exc
        return _rows(records)


class _AsyncTxRunner(AsyncStatementRunner):
    """Statements inside one locked asyncio write transaction."""

    def __init__(self, tx: neo4j.AsyncTransaction, location: str) -> None:
        self._tx = tx
        self._location = location

    async def read(self, name: str, params: Params) -> list[Row]:
        return await self._run(*read_text(name), params)

    async def write(self, name: str, params: Params) -> list[Row]:
        return await self._run(query(name, DIALECT), False, params)

    async def _run(self, text: str, is_collected: bool, params: Params) -> list[Row]:
        try:
            result = await self._tx.run(text, encode(params))
            return _read_rows([record async for record in result], is_collected)
        except (neo4j_errors.Neo4jError, neo4j_errors.DriverError, OSError) as exc:
            raise query_error(exc, self._location) from exc


class AsyncNeo4jBackend(AsyncBackend):
    """The asyncio twin of :class:`Neo4jBackend`, on ``neo4j.AsyncDriver``."""

    dialect = DIALECT
    cosines_in_process = True

    def __init__(self, driver: neo4j.AsyncDriver, location: str, *, database: str | None = None) -> None:
        self._driver = driver
        self._database = database
        self.location = location

    @classmethod
    async def connect(cls, url: str, *, auth: tuple[str, str] | None = None, database: str | None = None
                      ) -> AsyncNeo4jBackend:
        shown = safe_url(url)
        try:
            driver = AsyncGraphDatabase.driver(url, auth=auth, **_DRIVER_OPTIONS)
        except (ValueError, neo4j_errors.ConfigurationError) as exc:
            raise connect_error(exc, shown) from exc
        try:
            await driver.verify_connectivity()
        except Exception as exc:
            await driver.close()
            raise connect_error(exc, shown) from exc
        return cls(driver, shown, database=database)

    async def ensure_schema(self, vector_dimensions: int | None = None) -> int | None:
        for statement in statements(Q.SCHEMA, self.dialect):
            await self._run(statement, {}, RoutingControl.WRITE)
        if vector_dimensions is None:
            return None
        for statement in statements(Q.VECTOR_INDEX, self.dialect):
            await self._run(statement, {"dimensions": vector_dimensions}, RoutingControl.WRITE)
        return indexed_dimensions(await self._run(query(Q.VECTOR_INDEX_DIMENSIONS, self.dialect), {},
                                                  RoutingControl.READ))

    async def read(self, name: str, params: Params) -> list[Row]:
        [rows] = await self._reads([(name, params)])
        return rows

    async def write(self, name: str, params: Params) -> list[Row]:
        return await self._run(query(name, self.dialect), params, RoutingControl.WRITE)

    async def read_many(self, requests: Requests) -> list[list[Row]]:
        return await self._reads(requests)

    async def _reads(self, requests: Requests) -> list[list[Row]]:
        """Reads in one session, each an auto-commit statement (see :meth:`Neo4jBackend._reads`)."""
        statements_ = [(*read_text(name), encode(params)) for name, params in requests]
        one = merged(statements_)
        retries = _ReadRetries(self.location)
        while True:
            try:
                async with self._driver.session(database=self._database, default_access_mode=neo4j.READ_ACCESS,
                                                bookmark_manager=self._driver.execute_query_bookmark_manager
                                                ) as session:
                    if one is not None:
                        return _merged_rows([record async for record in await session.run(*one)], len(statements_))
                    return [_read_rows([record async for record in await session.run(text, params)], is_collected)
                            for text, is_collected, params in statements_]
            except (neo4j_errors.Neo4jError, neo4j_errors.DriverError) as exc:
                await asyncio.sleep(retries.wait(exc))

    @asynccontextmanager
    async def locked(self, scope: str, init: Params, timeout: float) -> AsyncIterator[_AsyncTxRunner]:
        async with self._driver.session(database=self._database, default_access_mode=neo4j.WRITE_ACCESS) as session:
            tx = await self._lock(session, scope, timeout)
            if tx is None:  # the scope's first write: create its node, then lock it
                await self.write(Q.CREATE_SCOPE, {**init, "scope": scope})
                tx = await self._lock(session, scope, timeout)
            if tx is None:
                raise QueryRefusedError(f"the node of scope {scope!r} vanished on {self.location}; retry")
            try:
                async with tx:
                    yield _AsyncTxRunner(tx, self.location)
                    await tx.commit()
            except (neo4j_errors.Neo4jError, neo4j_errors.DriverError, OSError) as exc:
                raise query_error(exc, self.location, timeout=timeout) from exc

    async def _lock(self, session: neo4j.AsyncSession, scope: str, timeout: float
                    ) -> neo4j.AsyncTransaction | None:
        try:
            tx = await session.begin_transaction(timeout=timeout)
            locked = await tx.run(query(Q.LOCK_SCOPE, DIALECT), {"scope": scope, "token": uuid.uuid4().hex})
            if await locked.single() is not None:
                return tx
            await tx.close()
            return None
        except neo4j_errors.Neo4jError as exc:
            raise query_error(exc, self.location, locking=True, timeout=timeout) from exc
        except (neo4j_errors.DriverError, OSError) as exc:
            raise query_error(exc, self.location) from exc

    async def close(self) -> None:
        await self._driver.close()

    async def _run(self, text: str, params: Params, routing: RoutingControl) -> list[Row]:
        try:
            records, _, _ = await self._driver.execute_query(
                text, parameters_=encode(params), routing_=routing, database_=self._database,
            )
        except (neo4j_errors.Neo4jError, neo4j_errors.DriverError) as exc:
            raise query_error(exc, self.location) from exc
        return _rows(records)
