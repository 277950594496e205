"""FalkorDB on the wire: the commands a statement becomes, its compact reply as rows, and its errors.

Both FalkorDB backends (sync and asyncio) send ``GRAPH.QUERY``/``GRAPH.RO_QUERY`` with the
``--compact`` reply format through redis-py and read the reply here. Statements only return
scalars, lists and maps (never nodes or paths), which is all this decoder reads; the
parameters travel as the ``CYPHER name=value`` header built by :mod:`.falkordb_params`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import redis

from synapse_graph.backends.base import Params, Row
from synapse_graph.backends.falkordb_params import EXACT_FLOAT_KEYS, params_header
from synapse_graph.catalogue import query
from synapse_graph.errors import (
    AuthenticationError,
    BackendError,
    BackendUnavailableError,
    ConcurrencyConflictError,
    QueryRefusedError,
)

TRANSIENT = (redis.ConnectionError, redis.TimeoutError, redis.BusyLoadingError)
RETRY_DELAYS_S = (0.05, 0.1, 0.2, 0.4, 0.8)
"""Pauses between attempts of a statement that failed to reach the server (a failed FalkorDB
query changed nothing, so running it again is safe)."""


def command(graph: str, text: str, params: Params, *, read_only: bool) -> tuple[Any, ...]:
    """The redis command that runs one statement with its parameters."""
    return ("GRAPH.RO_QUERY" if read_only else "GRAPH.QUERY", graph, params_header(params) + text, "--compact")


def read_commands(graph: str, dialect: str, requests: Sequence[tuple[str, Params]]) -> list[tuple[Any, ...]]:
    """The commands of independent catalogue reads, for :func:`pipeline`."""
    return [command(graph, query(name, dialect), params, read_only=True) for name, params in requests]


def pipeline(client: Any, commands: list[tuple[Any, ...]]) -> Any:
    """A redis-py pipeline (sync or asyncio client) with the commands queued, ready to execute."""
    pipe = client.pipeline(transaction=False)
    for args in commands:
        pipe.execute_command(*args)
    return pipe


def _string(value: Any) -> str:
    return value.decode() if value.__class__ is bytes else str(value)


def _array(value: list[Any]) -> list[Any]:
    # Strings, integers and nulls inline, as in rows and _map (a page of changes returns ~130 records as
    # lists of ~22 values).
    decode = _DECODE
    return [item if (kind == 2 and item.__class__ is str) or (kind == 3 and item.__class__ is int) else None
            if kind == 1 else decode[kind](item) for kind, item in value]


def _map(value: list[Any]) -> dict[str, Any]:  # key, [kind, value], key, [kind, value]...
    # Strings, nulls and integers, most of every fact, are decoded inline (a fact map holds ~22 values,
    # and a 2-hop read ~130 facts: a call per value was most of a read's client time).
    found: dict[str, Any] = {}
    pairs = iter(value)
    for key, (kind, item) in zip(pairs, pairs, strict=True):
        if key.__class__ is not str:
            key = _string(key)
        if kind == 2:
            text = item if item.__class__ is str else _string(item)
            # A float the parameters sent as its exact text (FalkorDB replies carry 15 digits).
            found[key] = float(text) if key in EXACT_FLOAT_KEYS else text
        elif kind == 1:
            found[key] = None
        elif kind == 3 and item.__class__ is int:
            found[key] = item
        else:
            found[key] = _DECODE[kind](item)
    return found


class _Decoders(dict[int, Callable[[Any], Any]]):
    """Decoders by type number; a type the library does not read is a clear error."""

    def __missing__(self, kind: int) -> Callable[[Any], Any]:
        raise QueryRefusedError(
            f"a statement returned a FalkorDB value of type {kind}, which the library does not read")


_DECODE = _Decoders({
    1: lambda _: None, 2: _string, 3: int, 4: lambda value: _string(value) == "true", 5: float,
    6: _array, 10: _map, 12: lambda value: [float(v) for v in value],
})
"""Decoder of each compact value type: null, string, integer, boolean, double, array, map, vectorf32."""


def rows(reply: list[Any]) -> list[Row]:
    """Rows (dicts by column name) of a compact reply; raises the error the server put inside it."""
    for part in (reply[0], reply[-1]) if reply else ():
        if isinstance(part, redis.ResponseError):
            raise part
    if len(reply) < 3:
        return []
    header = [_string(column[1]) for column in reply[0]]
    decode = _DECODE
    # Strings, integers and nulls, most values, inline (a scope's 100k entities are 300k values).
    found: list[Row] = [dict(zip(header, [value if (kind == 2 and value.__class__ is str) or (
        kind == 3 and value.__class__ is int) else None if kind == 1 else decode[kind](value)
        for kind, value in row], strict=True)) for row in reply[1]]
    for column in EXACT_FLOAT_KEYS.intersection(header):  # maps decode theirs in _map
        for row in found:
            if row[column].__class__ is str:
                row[column] = float(row[column])
    return found


def pipeline_rows(replies: list[Any], location: str) -> list[list[Row]]:
    """The rows of each reply of a pipeline of statements; the first error among them is raised."""
    found: list[list[Row]] = []
    for reply in replies:
        try:
            if isinstance(reply, redis.ResponseError):
                raise reply
            found.append(rows(reply))
        except redis.ResponseError as exc:
            raise error(exc, location) from exc
    return found


def reply_rows(reply: Any, location: str) -> list[Row]:
    """The rows of one statement's reply (as a pipeline returns it: an error reply is the exception)."""
    [found] = pipeline_rows([reply], location)
    return found


def error(exc: redis.RedisError, location: str) -> BackendError:
    """What a redis-py error means for the user, in one place for both FalkorDB backends."""
    if isinstance(exc, redis.AuthenticationError):
        return AuthenticationError(f"FalkorDB at {location} refused the credentials: check the password in the URL")
    if isinstance(exc, TRANSIENT):
        return BackendUnavailableError(f"FalkorDB at {location} is unreachable: {exc}")
    text = str(exc)
    if "unique constraint violation" in text:
        return ConcurrencyConflictError(f"a concurrent writer created the same entity on {location}; retry the call")
    if text.startswith(("NOAUTH", "WRONGPASS")):
        return AuthenticationError(f"FalkorDB at {location} needs a password: put it in the URL "
                                   "(redis://:password@host:port)")
    return QueryRefusedError(f"FalkorDB at {location} refused a query: {text}")


def check_reply(exc_or_reply: Any, location: str, *, tolerate: Callable[[str], bool] = lambda _: False) -> Any:
    """Raise the library's error for a command's failure unless ``tolerate`` accepts its text."""
    if isinstance(exc_or_reply, redis.RedisError):
        if tolerate(str(exc_or_reply)):
            return None
        raise error(exc_or_reply, location) from exc_or_reply
    return exc_or_reply
