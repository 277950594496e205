"""FalkorDB backends: an embedded server (a file path) or a server by URL; sync and asyncio.

Both speak to FalkorDB through redis-py (``redis.Redis`` and ``redis.asyncio.Redis``), send
each statement as one ``GRAPH.QUERY`` (atomic on the server) and read its compact reply
(:mod:`.falkordb_wire`). Procedures of several commands (schema, the scope lock) are written
once in :mod:`.falkordb_steps` and driven by either backend.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager
from contextvars import ContextVar
from typing import Any

import redis
import redis.asyncio as aredis
from redis.asyncio.retry import Retry as AsyncRetry
from redis.backoff import NoBackoff
from redis.retry import Retry

from synapse_graph.backends import falkordb_steps as steps
from synapse_graph.backends.aof import shown
from synapse_graph.backends.base import (
    AsyncBackend,
    AsyncStatementRunner,
    Backend,
    Params,
    Requests,
    Row,
    StatementRunner,
)
from synapse_graph.backends.embedded import EmbeddedServer
from synapse_graph.backends.falkordb_wire import (
    RETRY_DELAYS_S,
    TRANSIENT,
    command,
    error,
    pipeline,
    pipeline_rows,
    read_commands,
    reply_rows,
    rows,
)
from synapse_graph.backends.urls import safe_url
from synapse_graph.catalogue import query
from synapse_graph.errors import BackendUnavailableError, ConfigurationError, SynapseError

GRAPH_NAME = "synapse"
DIALECT = "falkordb"
# The backends retry a failed command themselves (RETRY_DELAYS_S); redis-py's own retries on top of
# those would make a dead server take minutes to report. No reply timeout: a big write can keep the
# server busy for many seconds, and a command timed out here would still run there.
# The server's INFO names its socket, whose path may hold bytes that are not UTF-8.
_CLIENT: dict[str, Any] = {"decode_responses": True, "retry": Retry(NoBackoff(), 0), "socket_timeout": None,
                           "encoding_errors": "surrogateescape"}
_WAITING: ContextVar[bool] = ContextVar("synapse_graph_waiting_for_indexes", default=False)
"""Set while this thread or task waits for the indexes (or creates the schema): its own commands do not wait. Each
caller waits for itself: a flag on the backend would let every other task or thread through while one waits."""
_A_WRITE: steps.Command = ("GRAPH.QUERY",)
"""What a writer waits for the indexes as, before it takes its scope's lock (:func:`steps.wait_for_indexes`)."""
_ASYNC_CLIENT: dict[str, Any] = {"decode_responses": True, "retry": AsyncRetry(NoBackoff(), 0),
                                 "socket_timeout": None, "encoding_errors": "surrogateescape"}


def redis_url(url: str) -> str:
    """A FalkorDB URL as redis-py reads it (``falkordb://`` is ``redis://``)."""
    for prefix, replacement in (("falkordbs://", "rediss://"), ("falkors://", "rediss://"),
                                ("falkordb://", "redis://"), ("falkor://", "redis://")):
        if url.startswith(prefix):
            return replacement + url[len(prefix):]
    return url


def _connect_error(exc: Exception, shown: str) -> SynapseError:
    if isinstance(exc, ValueError):
        return ConfigurationError(f"invalid FalkorDB URL {shown}: {exc}")
    if isinstance(exc, redis.RedisError):
        found = error(exc, shown)
        if isinstance(found, BackendUnavailableError):
            return BackendUnavailableError(
                f"cannot reach FalkorDB at {shown}: {exc}. Check that the server is running, that host and port "
                "are right, and the password if one is set.")
        return found
    return BackendUnavailableError(f"cannot connect to FalkorDB at {shown}: {exc}")


class _LockedRunner(StatementRunner):
    """Statements run while holding a scope's lock; renews the lease during long writes.

    The lock is taken with the first statement: a first read rides in the same round trip as the
    lock's script (:func:`~.falkordb_steps.acquire_with`), and the write the engine marks as its last
    request releases the lock in its own round trip (:func:`~.falkordb_steps.then_release`), so an
    uncontended write pays no round trip for the lock. A writer that lost the lock before its first
    write statement (its reads may no longer describe the scope) raises a retryable error, so the
    write is planned again; once it has written (the apply is guarded by the scope's version), what
    follows runs to the end.
    """

    def __init__(self, backend: FalkorDBBackend, scope: str, token: str, timeout: float) -> None:
        self._backend, self._scope, self.token, self._timeout = backend, scope, token, timeout
        self._renewed = time.monotonic()
        self._wrote = False
        self.holding = False

    def _take(self, first: steps.Command | None = None) -> Any:
        backend = self._backend
        self._renewed = time.monotonic()
        if first is None:
            backend.drive(steps.acquire(backend.graph, self._scope, self.token, self._timeout, backend.location))
            reply = None
        else:
            reply = backend.drive(steps.acquire_with(backend.graph, self._scope, self.token, self._timeout,
                                                     backend.location, first))
        self.holding = True
        return reply

    def _renew(self) -> None:
        if not self.holding:
            self._take()
        elif time.monotonic() - self._renewed > steps.RENEW_AFTER_S:
            backend = self._backend
            held = backend.drive(steps.renew(backend.graph, self._scope, self.token))
            if not held and not self._wrote:
                raise steps.lost_lock(self._scope, backend.location)
            self._renewed = time.monotonic()

    def read(self, name: str, params: Params) -> list[Row]:
        backend = self._backend
        if not self.holding:
            return reply_rows(self._take(backend.command(name, params, read_only=True)), backend.location)
        self._renew()
        return backend.read(name, params)

    def write(self, name: str, params: Params) -> list[Row]:
        self._renew()
        self._wrote = True
        return self._backend.write(name, params)

    def write_last(self, name: str, params: Params) -> list[Row]:
        """:meth:`write`, the operation's last statement: the lock is released in the same round trip."""
        self._renew()
        self._wrote = True
        backend = self._backend
        reply = backend.drive(steps.then_release(backend.graph, self._scope, self.token, backend.command(
            name, params, read_only=False)))
        self.holding = False
        return reply_rows(reply, backend.location)


class FalkorDBBackend(Backend):
    """Runs catalogue statements on one FalkorDB graph."""

    dialect = DIALECT

    def __init__(self, client: redis.Redis, location: str, *, graph: str = GRAPH_NAME,
                 server: EmbeddedServer | None = None) -> None:
        self._client = client
        self.graph = graph
        self._server = server
        self.location = location
        self._building = True  # the server may still be building indexes: looked at until none is

    @classmethod
    def embedded(cls, db_file: str | os.PathLike[str], *, graph: str = GRAPH_NAME, create: bool = True
                 ) -> FalkorDBBackend:
        """Start (or join) the embedded server for ``db_file``.

        Raises ``NotFoundError`` if ``create`` is false and there is no store there, and
        ``StoreDamagedError`` if its files are damaged.
        """
        server = EmbeddedServer(db_file)
        connect_path = server.start(create=create)
        client = redis.Redis(unix_socket_path=connect_path, **_CLIENT)
        return cls(client, shown(server.db_file), graph=graph, server=server)

    @classmethod
    def from_url(cls, url: str, *, graph: str = GRAPH_NAME) -> FalkorDBBackend:
        """Connect to a FalkorDB server at ``redis://``, ``rediss://``, ``falkordb://`` or ``falkor://``."""
        shown = safe_url(url)
        try:
            client = redis.Redis.from_url(redis_url(url), **_CLIENT)
            client.ping()
        except (ValueError, redis.RedisError) as exc:
            raise _connect_error(exc, shown) from exc
        return cls(client, shown, graph=graph)

    @property
    def server(self) -> EmbeddedServer | None:
        """The embedded server, when this backend started one."""
        return self._server

    def ensure_schema(self, vector_dimensions: int | None = None) -> int | None:
        token = _WAITING.set(True)  # its statements run while the indexes are built
        try:
            return self.drive(steps.ensure_schema(self.graph, self.dialect, vector_dimensions, self.location))
        finally:
            _WAITING.reset(token)

    def _wait_for_indexes(self, commands: list[steps.Command]) -> None:
        """While the server still builds indexes, until none of ``commands`` needs one of them (see the steps)."""
        if not self._building or _WAITING.get():
            return
        token = _WAITING.set(True)  # the wait's own commands do not wait
        try:
            for sent in commands:
                if not self.drive(steps.wait_for_indexes(self.graph, self.location, sent)):
                    self._building = False  # every index is built: no caller looks again
                    return
        finally:
            _WAITING.reset(token)

    def read(self, name: str, params: Params) -> list[Row]:
        return self._statement(name, params, read_only=True)

    def write(self, name: str, params: Params) -> list[Row]:
        return self._statement(name, params, read_only=False)

    def read_many(self, requests: Requests) -> list[list[Row]]:
        """Independent reads in one round trip (a pipeline)."""
        return pipeline_rows(self._pipeline(read_commands(self.graph, self.dialect, requests)), self.location)

    def _pipeline(self, commands: list[steps.Command]) -> list[Any]:
        """Commands in one round trip; each reply, an error reply as the exception."""
        self._wait_for_indexes(commands)
        return self._retrying(lambda: pipeline(self._client, commands).execute(raise_on_error=False))  # type: ignore[no-any-return]

    @contextmanager
    def locked(self, scope: str, init: Params, timeout: float) -> Iterator[_LockedRunner]:
        self._wait_for_indexes([_A_WRITE])  # a writer waits for the indexes before it takes the lock, not holding it
        runner = _LockedRunner(self, scope, uuid.uuid4().hex, timeout)
        try:
            yield runner
        finally:
            if runner.holding:
                self.drive(steps.release(self.graph, scope, runner.token))

    def close(self) -> None:
        with contextlib.suppress(redis.RedisError):  # closing a broken connection is fine
            self._client.close()
        if self._server is not None:
            self._server.stop()
            self._server = None

    def drive[T](self, procedure: steps.Steps[T]) -> T:
        """Run a multi-command procedure; the server's error replies go back into it."""
        reply: Any = None
        try:
            while True:
                match procedure.send(reply):
                    case steps.Send(command):
                        try:
                            reply = self._execute(*command)
                        except redis.ResponseError as exc:
                            reply = exc
                    case steps.Pipeline(commands):
                        reply = self._pipeline(list(commands))
                    case steps.Sleep(seconds):
                        time.sleep(seconds)
                        reply = None
        except StopIteration as done:
            return done.value  # type: ignore[no-any-return]

    def command(self, name: str, params: Params, *, read_only: bool) -> steps.Command:
        """The redis command that runs a catalogue statement on this graph."""
        return command(self.graph, query(name, self.dialect), params, read_only=read_only)

    def _statement(self, name: str, params: Params, *, read_only: bool) -> list[Row]:
        try:
            return rows(self._execute(*self.command(name, params, read_only=read_only)))
        except redis.ResponseError as exc:
            raise error(exc, self.location) from exc

    def _execute(self, *args: Any) -> Any:
        self._wait_for_indexes([args])
        return self._retrying(lambda: self._client.execute_command(*args))  # type: ignore[no-untyped-call]

    def _retrying(self, call: Callable[[], Any]) -> Any:
        """``call()``, again after a pause while the server is unreachable (a failed command changed nothing)."""
        for delay in (*RETRY_DELAYS_S, None):
            try:
                return call()
            except TRANSIENT as exc:
                if delay is None:
                    raise error(exc, self.location) from exc
                time.sleep(delay)
        raise AssertionError("unreachable")  # pragma: no cover


class _AsyncLockedRunner(AsyncStatementRunner):
    """The asyncio twin of :class:`_LockedRunner`."""

    def __init__(self, backend: AsyncFalkorDBBackend, scope: str, token: str, timeout: float) -> None:
        self._backend, self._scope, self.token, self._timeout = backend, scope, token, timeout
        self._renewed = time.monotonic()
        self._wrote = False
        self.holding = False

    async def _take(self, first: steps.Command | None = None) -> Any:
        backend = self._backend
        self._renewed = time.monotonic()
        if first is None:
            await backend.drive(steps.acquire(backend.graph, self._scope, self.token, self._timeout,
                                              backend.location))
            reply = None
        else:
            reply = await backend.drive(steps.acquire_with(backend.graph, self._scope, self.token, self._timeout,
                                                           backend.location, first))
        self.holding = True
        return reply

    async def _renew(self) -> None:
        if not self.holding:
            await self._take()
        elif time.monotonic() - self._renewed > steps.RENEW_AFTER_S:
            backend = self._backend
            held = await backend.drive(steps.renew(backend.graph, self._scope, self.token))
            if not held and not self._wrote:
                raise steps.lost_lock(self._scope, backend.location)
            self._renewed = time.monotonic()

    async def read(self, name: str, params: Params) -> list[Row]:
        backend = self._backend
        if not self.holding:
            return reply_rows(await self._take(backend.command(name, params, read_only=True)), backend.location)
        await self._renew()
        return await backend.read(name, params)

    async def write(self, name: str, params: Params) -> list[Row]:
        await self._renew()
        self._wrote = True
        return await self._backend.write(name, params)

    async def write_last(self, name: str, params: Params) -> list[Row]:
        await self._renew()
        self._wrote = True
        backend = self._backend
        reply = await backend.drive(steps.then_release(backend.graph, self._scope, self.token, backend.command(
            name, params, read_only=False)))
        self.holding = False
        return reply_rows(reply, backend.location)


class AsyncFalkorDBBackend(AsyncBackend):
    """The asyncio twin of :class:`FalkorDBBackend`, on ``redis.asyncio``."""

    dialect = DIALECT

    def __init__(self, client: aredis.Redis, location: str, *, graph: str = GRAPH_NAME,
                 server: EmbeddedServer | None = None) -> None:
        self._client = client
        self.graph = graph
        self._server = server
        self.location = location
        self._building = True  # the server may still be building indexes: looked at until none is

    @classmethod
    async def embedded(cls, db_file: str | os.PathLike[str], *, graph: str = GRAPH_NAME, create: bool = True
                       ) -> AsyncFalkorDBBackend:
        """Start (or join) the embedded server for ``db_file`` (in a worker thread: it waits on file locks)."""
        server = EmbeddedServer(db_file)
        connect_path = await asyncio.to_thread(server.start, create=create)
        client = aredis.Redis(unix_socket_path=connect_path, **_ASYNC_CLIENT)
        return cls(client, shown(server.db_file), graph=graph, server=server)

    @classmethod
    async def from_url(cls, url: str, *, graph: str = GRAPH_NAME) -> AsyncFalkorDBBackend:
        shown = safe_url(url)
        try:
            client = aredis.Redis.from_url(redis_url(url), **_ASYNC_CLIENT)
            await client.ping()
        except (ValueError, redis.RedisError) as exc:
            raise _connect_error(exc, shown) from exc
        return cls(client, shown, graph=graph)

    @property
    def server(self) -> EmbeddedServer | None:
        return self._server

    async def ensure_schema(self, vector_dimensions: int | None = None) -> int | None:
        token = _WAITING.set(True)
        try:
            return await self.drive(steps.ensure_schema(self.graph, self.dialect, vector_dimensions, self.location))
        finally:
            _WAITING.reset(token)

    async def _wait_for_indexes(self, commands: list[steps.Command]) -> None:
        """The asyncio twin of :meth:`FalkorDBBackend._wait_for_indexes`."""
        if not self._building or _WAITING.get():
            return
        token = _WAITING.set(True)
        try:
            for sent in commands:
                if not await self.drive(steps.wait_for_indexes(self.graph, self.location, sent)):
                    self._building = False
                    return
        finally:
            _WAITING.reset(token)

    async def read(self, name: str, params: Params) -> list[Row]:
        return await self._statement(name, params, read_only=True)

    async def write(self, name: str, params: Params) -> list[Row]:
        return await self._statement(name, params, read_only=False)

    async def read_many(self, requests: Requests) -> list[list[Row]]:
        """Independent reads in one round trip (a pipeline)."""
        return pipeline_rows(await self._pipeline(read_commands(self.graph, self.dialect, requests)), self.location)

    async def _pipeline(self, commands: list[steps.Command]) -> list[Any]:
        await self._wait_for_indexes(commands)
        return await self._retrying(lambda: pipeline(self._client, commands).execute(raise_on_error=False))  # type: ignore[no-any-return]

    @asynccontextmanager
    async def locked(self, scope: str, init: Params, timeout: float) -> AsyncIterator[_AsyncLockedRunner]:
        await self._wait_for_indexes([_A_WRITE])
        runner = _AsyncLockedRunner(self, scope, uuid.uuid4().hex, timeout)
        try:
            yield runner
        finally:
            if runner.holding:
                await self.drive(steps.release(self.graph, scope, runner.token))

    async def close(self) -> None:
        with contextlib.suppress(redis.RedisError):
            await self._client.aclose()
        if self._server is not None:
            server, self._server = self._server, None
            await asyncio.to_thread(server.stop)

    async def drive[T](self, procedure: steps.Steps[T]) -> T:
        reply: Any = None
        try:
            while True:
                match procedure.send(reply):
                    case steps.Send(command):
                        try:
                            reply = await self._execute(*command)
                        except redis.ResponseError as exc:
                            reply = exc
                    case steps.Pipeline(commands):
                        reply = await self._pipeline(list(commands))
                    case steps.Sleep(seconds):
                        await asyncio.sleep(seconds)
                        reply = None
        except StopIteration as done:
            return done.value  # type: ignore[no-any-return]

    def command(self, name: str, params: Params, *, read_only: bool) -> steps.Command:
        return command(self.graph, query(name, self.dialect), params, read_only=read_only)

    async def _statement(self, name: str, params: Params, *, read_only: bool) -> list[Row]:
        try:
            reply = await self._execute(*self.command(name, params, read_only=read_only))
            return rows(reply)
        except redis.ResponseError as exc:
            raise error(exc, self.location) from exc

    async def _execute(self, *args: Any) -> Any:
        await self._wait_for_indexes([args])
        return await self._retrying(lambda: self._client.execute_command(*args))  # type: ignore[no-untyped-call]

    async def _retrying(self, call: Callable[[], Awaitable[Any]]) -> Any:
        """The asyncio twin of :meth:`FalkorDBBackend._retrying`."""
        for delay in (*RETRY_DELAYS_S, None):
            try:
                return await call()
            except TRANSIENT as exc:
                if delay is None:
                    raise error(exc, self.location) from exc
                await asyncio.sleep(delay)
        raise AssertionError("unreachable")  # pragma: no cover
