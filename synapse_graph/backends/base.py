"""The seam every database backend implements: named statements in, plain rows out.

A backend runs catalogue statements (:mod:`synapse_graph.catalogue`) with their parameters
and returns rows as dicts. Times travel as UTC epoch microseconds; an
:class:`~synapse_graph.instants.Instant` parameter is a time, which a driver may store
natively (Neo4j ``DATETIME``). Writes to one scope go through :meth:`Backend.locked`: the
statements of one write run while the backend holds that scope's write lock, so writers of
a scope queue instead of racing. Each database has a synchronous and an asyncio backend
with the same shape.
"""

from __future__ import annotations

from collections.abc import Mapping
from contextlib import AbstractAsyncContextManager, AbstractContextManager
from typing import Any, Protocol

Row = dict[str, Any]
Params = Mapping[str, Any]

DEFAULT_LOCK_TIMEOUT_S = 60.0
"""How long a writer waits for a scope's write lock before :class:`~synapse_graph.errors.ScopeBusyError`."""


class StatementRunner(Protocol):
    """Runs statements: on its own (each one transaction) or inside a locked write."""

    def read(self, name: str, params: Params) -> list[Row]:
        """Run a read-only statement and return its rows as dicts."""

    def write(self, name: str, params: Params) -> list[Row]:
        """Run a writing statement and return its rows."""


class Backend(StatementRunner, Protocol):
    """A connection to one graph database (synchronous).

    A backend may also offer ``read_many(requests: list[tuple[name, params]]) -> list[rows]``,
    running independent reads in one round trip; without it they run one after the other.
    """

    dialect: str
    """Which ``cypher/<dialect>/`` files override the shared statements."""
    location: str
    """Where the data lives, safe to print (no password)."""

    def ensure_schema(self, vector_dimensions: int | None = None) -> None:
        """Create constraints and indexes if missing (idempotent); the vector index too when dimensions are given."""

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


class AsyncBackend(AsyncStatementRunner, Protocol):
    """The asyncio twin of :class:`Backend`."""

    dialect: str
    location: str

    async def ensure_schema(self, vector_dimensions: int | None = None) -> None:
        """Create constraints and indexes if missing (idempotent)."""

    def locked(self, scope: str, init: Params, timeout: float) -> AbstractAsyncContextManager[AsyncStatementRunner]:
        """An asyncio statement runner holding ``scope``'s write lock (see :meth:`Backend.locked`)."""

    async def close(self) -> None:
        """Release connections, and stop a server this backend started."""
