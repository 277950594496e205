"""Database backends and the choice between them by location."""

from __future__ import annotations

import os
from pathlib import Path

from synapse_graph.backends.base import AsyncBackend, Backend, Session
from synapse_graph.backends.urls import FALKORDB_SCHEMES, NEO4J_SCHEMES

DEFAULT_DB_ENV = "SYNAPSE_DB"


def default_location() -> str:
    """``$SYNAPSE_DB`` if set, else ``memory.db`` in the user's data directory."""
    configured = os.environ.get(DEFAULT_DB_ENV)
    if configured:
        return configured
    from platformdirs import user_data_dir

    return str(Path(user_data_dir("synapse-graph", appauthor=False)) / "memory.db")


def _target(location: str | os.PathLike[str] | None) -> tuple[str, str]:
    target = default_location() if location is None else os.fspath(location)
    return target, target.lower()


def open_backend(
    location: str | os.PathLike[str] | None,
    *,
    auth: tuple[str, str] | None = None,
    database: str | None = None,
    graph: str = "synapse",
) -> Backend:
    """Open the backend a location names: a file path (embedded FalkorDB), a FalkorDB URL or a Neo4j URL."""
    target, lowered = _target(location)
    if lowered.startswith(NEO4J_SCHEMES):
        from synapse_graph.backends.neo4j import Neo4jBackend

        return Neo4jBackend.connect(target, auth=auth, database=database)
    from synapse_graph.backends.falkordb import FalkorDBBackend

    if lowered.startswith(FALKORDB_SCHEMES):
        return FalkorDBBackend.from_url(target, graph=graph)
    return FalkorDBBackend.embedded(target, graph=graph)


async def open_async_backend(
    location: str | os.PathLike[str] | None,
    *,
    auth: tuple[str, str] | None = None,
    database: str | None = None,
    graph: str = "synapse",
) -> AsyncBackend:
    """The asyncio twin of :func:`open_backend`."""
    target, lowered = _target(location)
    if lowered.startswith(NEO4J_SCHEMES):
        from synapse_graph.backends.neo4j import AsyncNeo4jBackend

        return await AsyncNeo4jBackend.connect(target, auth=auth, database=database)
    from synapse_graph.backends.falkordb import AsyncFalkorDBBackend

    if lowered.startswith(FALKORDB_SCHEMES):
        return await AsyncFalkorDBBackend.from_url(target, graph=graph)
    return await AsyncFalkorDBBackend.embedded(target, graph=graph)


__all__ = [
    "FALKORDB_SCHEMES", "NEO4J_SCHEMES", "AsyncBackend", "Backend", "Session", "default_location",
    "open_async_backend", "open_backend",
]
