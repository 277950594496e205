"""Database backends and the choice between them by location."""

from __future__ import annotations

import os
import re
from pathlib import Path

from synapse_graph.backends.base import Backend
from synapse_graph.errors import ConfigurationError

FALKORDB_SCHEMES = ("redis://", "rediss://", "falkordb://", "falkordbs://", "falkor://", "falkors://", "unix://")
NEO4J_SCHEMES = ("bolt://", "bolt+s://", "bolt+ssc://", "neo4j://", "neo4j+s://", "neo4j+ssc://")
DEFAULT_DB_ENV = "SYNAPSE_DB"
_URL = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")


def default_location() -> str:
    """``$SYNAPSE_DB`` if set, else ``memory.db`` in the user's data directory."""
    configured = os.environ.get(DEFAULT_DB_ENV)
    if configured:
        return configured
    from platformdirs import user_data_dir

    return str(Path(user_data_dir("synapse-graph", appauthor=False)) / "memory.db")


def open_backend(
    location: str | os.PathLike[str] | None,
    *,
    auth: tuple[str, str] | None = None,
    database: str | None = None,
    graph: str = "synapse",
    create: bool = True,
) -> Backend:
    """Open the backend a location names: a file path (embedded FalkorDB), a FalkorDB URL or a Neo4j URL.

    ``create=False`` is for reading: a file path where no store exists raises
    ``NotFoundError`` instead of creating an empty store (``None``, the default location,
    is always created). An empty location, or a URL whose scheme is not a FalkorDB or Neo4j
    one (``http://x``), raises ``ConfigurationError``: it is never taken for a file name.
    """
    if location is None:
        target, create = default_location(), create or not os.environ.get(DEFAULT_DB_ENV)
    else:
        target = os.fspath(location)
    lowered = target.strip().lower()
    if not lowered:
        raise ConfigurationError(
            f"{target!r} is not a database location: give a file path, a FalkorDB URL or a Neo4j URL "
            "(or nothing, for the default)"
        )
    if lowered.startswith(NEO4J_SCHEMES):
        from synapse_graph.backends.neo4j import Neo4jBackend

        return Neo4jBackend.connect(target, auth=auth, database=database)
    from synapse_graph.backends.falkordb import FalkorDBBackend

    if lowered.startswith(FALKORDB_SCHEMES):
        return FalkorDBBackend.from_url(target, graph=graph)
    if _URL.match(lowered):
        schemes = ", ".join(s.removesuffix("://") for s in FALKORDB_SCHEMES + NEO4J_SCHEMES)
        raise ConfigurationError(
            f"{target!r} is a URL of no database synapse-graph knows; use one of {schemes}, "
            "or a file path for the embedded database"
        )
    return FalkorDBBackend.embedded(target, graph=graph, create=create)


__all__ = ["Backend", "default_location", "open_backend"]
