"""The seam every database backend implements: named statements in, plain rows out."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

Row = dict[str, Any]
Params = Mapping[str, Any]


class Backend(Protocol):
    """A connection to one graph database.

    Each call runs one catalogue statement as one transaction (all or nothing),
    retrying transient failures; values travel only as parameters; times are
    UTC epoch microseconds (integers) in both directions.
    """

    dialect: str
    """Which ``cypher/<dialect>/`` files override the shared statements."""
    location: str
    """Where the data lives, safe to print (no password)."""

    def ensure_schema(self, vector_dimensions: int | None = None) -> None:
        """Create constraints and indexes if missing (idempotent); the vector index too when dimensions are given."""

    def read(self, name: str, params: Params) -> list[Row]:
        """Run a read-only statement and return its rows as dicts."""

    def write(self, name: str, params: Params) -> list[Row]:
        """Run a writing statement in its own transaction and return its rows."""

    def close(self) -> None:
        """Release connections, and stop a server this backend started."""
