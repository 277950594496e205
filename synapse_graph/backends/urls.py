"""Locations as users write them: which backend a URL names, and its printable form."""

from __future__ import annotations

from urllib.parse import urlsplit, urlunsplit

FALKORDB_SCHEMES = ("redis://", "rediss://", "falkordb://", "falkordbs://", "falkor://", "falkors://", "unix://")
NEO4J_SCHEMES = ("bolt://", "bolt+s://", "bolt+ssc://", "neo4j://", "neo4j+s://", "neo4j+ssc://")


def safe_url(url: str) -> str:
    """The URL with any password masked, for messages and ``Memory.location``."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    return urlunsplit(parts._replace(netloc=parts.netloc.replace(f":{parts.password}@", ":***@")))
