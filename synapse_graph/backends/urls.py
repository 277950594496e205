"""Locations as users write them: which backend a URL names, and its printable form."""

from __future__ import annotations

from urllib.parse import urlsplit, urlunsplit

from synapse_graph.errors import ConfigurationError

FALKORDB_SCHEMES = ("redis://", "rediss://", "falkordb://", "falkordbs://", "falkor://", "falkors://", "unix://")
NEO4J_SCHEMES = ("bolt://", "bolt+s://", "bolt+ssc://", "neo4j://", "neo4j+s://", "neo4j+ssc://")


def safe_url(url: str) -> str:
    """The URL with any password masked, for messages and ``Memory.location``.

    A URL that cannot be parsed (``bolt://[::1``: an unclosed IPv6 bracket; a port that is no number or
    not in 0-65535) raises ``ConfigurationError``; its message shows the URL with everything before the
    host masked.
    """
    try:
        parts = urlsplit(url)
        _ = parts.port  # parsed on access: a bad port raises here, not as a retryable "cannot reach"
    except ValueError as exc:
        scheme, separator, rest = url.partition("://")
        masked = f"{scheme}{separator}***@{rest.rsplit('@', 1)[1]}" if "@" in rest else url
        hint = " (an IPv6 host goes in closed brackets, as in [::1])" if "[" in url else ""
        raise ConfigurationError(f"invalid database URL {masked!r}: {exc}{hint}") from None
    if parts.password is None:
        return url
    return urlunsplit(parts._replace(netloc=parts.netloc.replace(f":{parts.password}@", ":***@")))
