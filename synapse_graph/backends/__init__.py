"""Database backends and the choice between them by location."""

from __future__ import annotations

import os
import re
from pathlib import Path

from synapse_graph.backends.base import AsyncBackend, Backend, StatementRunner
from synapse_graph.backends.urls import FALKORDB_SCHEMES, NEO4J_SCHEMES
from synapse_graph.datadir import data_path
from synapse_graph.errors import ConfigurationError
from synapse_graph.extras import needs_extra

DEFAULT_DB_ENV = "SYNAPSE_DB"
_NEO4J_LOCATION = "a Neo4j location (bolt://, neo4j://)"
_URL = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")


def default_location() -> str:
    """``$SYNAPSE_DB`` if set, else ``memory.db`` in the user's data directory."""
    return str(data_path("memory.db", DEFAULT_DB_ENV))


def _target(location: str | os.PathLike[str] | None, create: bool) -> tuple[str, str, bool]:
    """The location, in lower case, and whether a missing embedded store may be created.

    ``create=False`` is for reading: a file path where no store exists (the default location
    included) raises ``NotFoundError`` instead of creating an empty store.
    An empty location, or a URL whose scheme is not a FalkorDB or Neo4j one (``http://x``),
    raises ``ConfigurationError``: it is never taken for a file name.
    """
    target = default_location() if location is None else os.fspath(location)
    lowered = target.strip().lower()
    if not lowered:
        raise ConfigurationError(
            f"{target!r} is not a database location: give a file path, a FalkorDB URL or a Neo4j URL "
            "(or nothing, for the default)")
    if _URL.match(lowered) and not lowered.startswith(FALKORDB_SCHEMES + NEO4J_SCHEMES):
        schemes = ", ".join(s.removesuffix("://") for s in FALKORDB_SCHEMES + NEO4J_SCHEMES)
        raise ConfigurationError(f"{target!r} is a URL of no database synapse-graph knows; use one of {schemes}, "
                                 "or a file path for the embedded database")
    return target, lowered, create


def embedded_store(location: str | os.PathLike[str] | None) -> Path | None:
    """The store file an embedded location names (``None``: the default location), or None for a URL."""
    target, lowered, _ = _target(location, False)
    if lowered.startswith(FALKORDB_SCHEMES + NEO4J_SCHEMES):
        return None
    from synapse_graph.backends.embedded import store_path

    return store_path(target)


def open_backend(
    location: str | os.PathLike[str] | None,
    *,
    auth: tuple[str, str] | None = None,
    database: str | None = None,
    graph: str = "synapse",
    create: bool = True,
) -> Backend:
    """Open the backend a location names: a file path (embedded FalkorDB), a FalkorDB URL or a Neo4j URL.

    With ``create=False`` a missing embedded store raises ``NotFoundError`` (see :func:`_target`).
    """
    target, lowered, create = _target(location, create)
    if lowered.startswith(NEO4J_SCHEMES):
        with needs_extra("neo4j", _NEO4J_LOCATION):
            from synapse_graph.backends.neo4j import Neo4jBackend

        return Neo4jBackend.connect(target, auth=auth, database=database)
    from synapse_graph.backends.falkordb import FalkorDBBackend

    if lowered.startswith(FALKORDB_SCHEMES):
        return FalkorDBBackend.from_url(target, graph=graph)
    return FalkorDBBackend.embedded(target, graph=graph, create=create)


async def open_async_backend(
    location: str | os.PathLike[str] | None,
    *,
    auth: tuple[str, str] | None = None,
    database: str | None = None,
    graph: str = "synapse",
    create: bool = True,
) -> AsyncBackend:
    """The asyncio twin of :func:`open_backend`."""
    target, lowered, create = _target(location, create)
    if lowered.startswith(NEO4J_SCHEMES):
        with needs_extra("neo4j", _NEO4J_LOCATION):
            from synapse_graph.backends.neo4j import AsyncNeo4jBackend

        return await AsyncNeo4jBackend.connect(target, auth=auth, database=database)
    from synapse_graph.backends.falkordb import AsyncFalkorDBBackend

    if lowered.startswith(FALKORDB_SCHEMES):
        return await AsyncFalkorDBBackend.from_url(target, graph=graph)
    return await AsyncFalkorDBBackend.embedded(target, graph=graph, create=create)


__all__ = [
    "FALKORDB_SCHEMES", "NEO4J_SCHEMES", "AsyncBackend", "Backend", "StatementRunner", "default_location",
    "embedded_store", "open_async_backend", "open_backend",
]
