"""Database backends and the choice between them by location."""

from __future__ import annotations

import os
from pathlib import Path

from synapse_graph.backends.base import Backend

FALKORDB_SCHEMES = ("redis://", "rediss://", "falkordb://", "falkordbs://", "falkor://", "falkors://", "unix://")
NEO4J_SCHEMES = ("bolt://", "bolt+s://", "bolt+ssc://", "neo4j://", "neo4j+s://", "neo4j+ssc://")
DEFAULT_DB_ENV = "SYNAPSE_DB"


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
) -> Backend:
    """Open the backend a location names: a file path (embedded FalkorDB), a FalkorDB URL or a Neo4j URL."""
    target = default_location() if location is None else os.fspath(location)
    lowered = target.lower()
    if lowered.startswith(NEO4J_SCHEMES):
        from synapse_graph.backends.neo4j import Neo4jBackend

        return Neo4jBackend.connect(target, auth=auth, database=database)
    from synapse_graph.backends.falkordb import FalkorDBBackend

    if lowered.startswith(FALKORDB_SCHEMES):
        return FalkorDBBackend.from_url(target, graph=graph)
    return FalkorDBBackend.embedded(target, graph=graph)


__all__ = ["Backend", "default_location", "open_backend"]
