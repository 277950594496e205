"""The seam every database backend implements: named statements in, plain rows out.

A backend runs catalogue statements (:mod:`synapse_graph.catalogue`) with their parameters
and returns rows as dicts. Times travel as UTC epoch microseconds; an
:class:`~synapse_graph.instants.Instant` parameter is a time, which a driver may store
natively (Neo4j ``DATETIME``). Writes to one scope go through :meth:`Backend.locked`: the
statements of one write run while the backend holds that scope's write lock, so writers of
a scope queue instead of racing. Each database has a synchronous and an asyncio backend
with the same shape.

The protocols below are the whole contract. A backend subclasses them (``class MyBackend(Backend)``)
to inherit the default of each optional capability (:meth:`StatementRunner.read_many`,
:meth:`StatementRunner.write_last`) and overrides the ones its database does better; mypy checks
it defines the rest.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from contextlib import AbstractAsyncContextManager, AbstractContextManager
from typing import Any, Protocol

Row = dict[str, Any]
Params = Mapping[str, Any]

DEFAULT_LOCK_TIMEOUT_S = 60.0
"""How long a writer waits for a scope's write lock before :class:`~synapse_graph.errors.ScopeBusyError`."""


Requests = Sequence[tuple[str, Params]]
"""Independent read statements with their parameters."""


def indexed_dimensions(found: Sequence[Row]) -> int | None:
    """The dimension of the memories' vector indexes from the rows of ``recall/vector_index_dimensions``: None
    unless both (observations', facts') are there, built, and of one dimension (recall then scans its scope)."""
    dimensions = {row["dimensions"] for row in found if row["online"]}
    kinds = {row["kind"] for row in found if row["online"]}
    return int(dimensions.pop()) if kinds == {"observation", "fact"} and len(dimensions) == 1 else None


class StatementRunner(Protocol):
    """Runs statements: on its own (each one transaction) or inside a locked write."""

    def read(self, name: str, params: Params) -> list[Row]:
        """Run a read-only statement and return its rows as dicts."""

    def write(self, name: str, params: Params) -> list[Row]:
        """Run a writing statement and return its rows."""

    def read_many(self, requests: Requests) -> list[list[Row]]:
        """Run independent reads and return the rows of each, in order.

        Default: one after the other. A backend that can runs them in one round trip (FalkorDB: a
        pipeline); Neo4j runs them in one session, a round trip each (auto-commit statements).
        """
        return [self.read(name, params) for name, params in requests]

    def write_last(self, name: str, params: Params) -> list[Row]:
        """:meth:`write` for an operation's last statement (no statement follows, whatever its answer).

        Default: :meth:`write`. A locked runner may release the scope's lock in the same round trip
        (FalkorDB does).
        """
        return self.write(name, params)


class Backend(StatementRunner, Protocol):
    """A connection to one graph database (synchronous)."""

    dialect: str
    """Which ``cypher/<dialect>/`` files override the shared statements."""
    location: str
    """Where the data lives, safe to print (no password)."""
    cosines_in_process: bool = False
    """Whether recall computes a small scope's cosines in process from embeddings it keeps
    (``engine/recall_vectors.py``): worth it where reading a scope's embeddings costs the server more than
    parsing their cosines as parameters (Neo4j; not FalkorDB, whose scan of a small scope is ~0.3 ms)."""

    def ensure_schema(self, vector_dimensions: int | None = None) -> int | None:
        """Create constraints and indexes if missing (idempotent); the vector indexes too when dimensions are
        given, and then returns the dimension of the memories' (:func:`indexed_dimensions`), else None."""

    def locked(self, scope: str, init: Params, timeout: float) -> AbstractContextManager[StatementRunner]:
        """A statement runner whose statements run holding ``scope``'s write lock, released on exit.

        A backend may take the lock with the runner's first statement (FalkorDB does, in that
        statement's round trip) and release it with the write marked last, so the lock is certain to
        be held from the first statement on, not from entering the block.
        ``init`` are the parameters of the scope's first creation (``now``, ``format``).
        Raises :class:`~synapse_graph.errors.ScopeBusyError` when the lock is not had
        within ``timeout`` seconds.
        """

    def close(self) -> None:
        """Release connections, and stop a server this backend started."""


class AsyncStatementRunner(Protocol):
    """The asyncio twin of :class:`StatementRunner`."""

    async def read(self, name: str, params: Params) -> list[Row]:
        """Run a read-only statement and return its rows as dicts."""

    async def write(self, name: str, params: Params) -> list[Row]:
        """Run a writing statement and return its rows."""

    async def read_many(self, requests: Requests) -> list[list[Row]]:
        """See :meth:`StatementRunner.read_many` (default: one after the other)."""
        return [await self.read(name, params) for name, params in requests]

    async def write_last(self, name: str, params: Params) -> list[Row]:
        """See :meth:`StatementRunner.write_last` (default: :meth:`write`)."""
        return await self.write(name, params)


class AsyncBackend(AsyncStatementRunner, Protocol):
    """The asyncio twin of :class:`Backend`."""

    dialect: str
    location: str
    cosines_in_process: bool = False
    """See :attr:`Backend.cosines_in_process`."""

    async def ensure_schema(self, vector_dimensions: int | None = None) -> int | None:
        """Create constraints and indexes if missing (idempotent); see :meth:`Backend.ensure_schema`."""

    def locked(self, scope: str, init: Params, timeout: float) -> AbstractAsyncContextManager[AsyncStatementRunner]:
        """An asyncio statement runner holding ``scope``'s write lock (see :meth:`Backend.locked`)."""

    async def close(self) -> None:
        """Release connections, and stop a server this backend started."""
