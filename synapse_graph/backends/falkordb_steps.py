"""FalkorDB procedures that take several commands, written once for both backends (sans I/O).

Each procedure is a generator that yields steps (:class:`Send` a command, :class:`Pipeline` several
in one round trip, :class:`Sleep`) and receives each reply, or the ``redis.ResponseError`` the server
answered with, so the sync and asyncio backends run the same logic with their own client.

The scope lock: FalkorDB has no transaction spanning statements, so the writers of a scope queue
on a lock held by the server: a list per scope holds the waiting writers' tokens in arrival order
(first come, first served), the head holds the lock. Every waiter keeps a lease (a key that
expires) alive while it waits or holds; a head whose lease ran out (its process died) is dropped
by the next waiter, so a crash never blocks a scope for longer than the lease: a waiter sleeps on
a stream of its own that the releasing writer adds to, and never longer than the head's lease has
left. A holder that was paused past its lease and lost its place finds out at its next renewal
(before its next statement) and plans again; the scope's version guard in ``apply_plan`` stays
behind the lock, so even such a writer cannot apply a stale plan.
"""

from __future__ import annotations

import re
import time
from collections.abc import Generator
from dataclasses import dataclass
from typing import Any

import redis

from synapse_graph.backends.base import Row, indexed_dimensions
from synapse_graph.backends.falkordb_wire import command, error, rows
from synapse_graph.catalogue import Q, data, query, statements
from synapse_graph.errors import BackendError, ConcurrencyConflictError, ScopeBusyError

Command = tuple[Any, ...]
"""A redis command as ``execute_command(*command)`` takes it."""


@dataclass(frozen=True, slots=True)
class Send:
    """Send one command; the reply is the server's, an error reply as the ``redis.ResponseError``."""

    command: Command


@dataclass(frozen=True, slots=True)
class Pipeline:
    """Send the commands in one round trip (the server runs them in order); the reply is the list of
    their replies, an error reply as the ``redis.ResponseError``."""

    commands: tuple[Command, ...]


@dataclass(frozen=True, slots=True)
class Sleep:
    """Pause (``time.sleep`` or ``asyncio.sleep``); the reply is None."""

    seconds: float


Step = Send | Pipeline | Sleep
type Steps[T] = Generator[Step, Any, T]
"""A procedure: yields steps, receives their replies, returns its result."""
VECTOR_INDEX_WAITS = 500
"""Times :func:`ensure_schema` looks whether the vector indexes are built, 10 ms apart."""
INDEX_WAIT_S = 600.0
"""How long a statement waits for the indexes it needs (:func:`wait_for_indexes`)."""
LEASE_S = 10.0
"""How long a writer's lease lives without being renewed (a dead writer blocks its scope at most this long)."""
RENEW_AFTER_S = LEASE_S / 3

# The lock's keys live in memory only: a server restart forgets them (and every lease with them), and
# writing them to the append-only file would cost an fsync per acquisition and release (appendfsync
# always), which made a lone writer 40% slower. Hence REPL_NONE: the scripts' effects are not logged.
_UNLOGGED = "redis.set_repl(redis.REPL_NONE)\n"
# Returns {1, 0} when the caller holds the lock, else {0, milliseconds the head's lease has left}; a
# waiter's wake-up stream starts empty, so it sees every wake-up sent after this call.
_ACQUIRE = _UNLOGGED + """
redis.call('SET', KEYS[2], '1', 'PX', ARGV[2])
redis.call('DEL', KEYS[3])
if not redis.call('LPOS', KEYS[1], ARGV[1]) then redis.call('RPUSH', KEYS[1], ARGV[1]) end
while true do
  local head = redis.call('LINDEX', KEYS[1], 0)
  if not head or head == ARGV[1] then return {1, 0} end
  local left = redis.call('PTTL', ARGV[3] .. head)
  if left ~= -2 then return {0, left} end
  redis.call('LPOP', KEYS[1])
end
"""
# The holder's lease is renewed only while it is still at the head: 0 when another writer went ahead.
_RENEW = _UNLOGGED + """
if redis.call('LINDEX', KEYS[1], 0) ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[2], '1', 'PX', ARGV[2])
return 1
"""
_RELEASE = _UNLOGGED + """
redis.call('LREM', KEYS[1], 1, ARGV[1])
redis.call('DEL', KEYS[2], ARGV[2] .. ARGV[1])
local head = redis.call('LINDEX', KEYS[1], 0)
if head then
  redis.call('XADD', ARGV[2] .. head, 'MAXLEN', '1', '*', 'go', '1')
  redis.call('PEXPIRE', ARGV[2] .. head, 60000)
end
return 1
"""


def lock_keys(graph: str, scope: str) -> tuple[str, str, str]:
    """The redis keys of a scope's lock: its queue, and the prefixes of the writers' leases and wake-up streams."""
    base = f"synapse:{graph}:{scope}"
    return f"{base}:queue", f"{base}:lease:", f"{base}:wake:"


def acquire(graph: str, scope: str, token: str, timeout: float, location: str) -> Steps[None]:
    """Join the scope's queue and wait until this writer is at its head; ScopeBusyError after ``timeout``."""
    queue, lease, wake = lock_keys(graph, scope)
    deadline = time.monotonic() + timeout
    while True:
        held, head_left_ms = yield Send(("EVAL", _ACQUIRE, 3, queue, lease + token, wake + token, token,
                                         int(LEASE_S * 1000), lease))
        if held == 1:
            return
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            yield from release(graph, scope, token)
            raise ScopeBusyError(
                f"the write lock of scope {scope!r} on {location} was not had within {timeout:g} s (lock_timeout): "
                "other writers held it all that time; retry, or open the Memory with a larger lock_timeout")
        # Woken by the writer ahead releasing (a stream read: unlike a list pop, it writes nothing to the
        # append-only file). The timeout renews this waiter's lease in time, and looks again when the
        # head's lease runs out (the head may have died: nobody would wake us).
        head_left = head_left_ms / 1000 + 0.002 if head_left_ms >= 0 else RENEW_AFTER_S
        wait_ms = max(1, int(1000 * min(remaining, RENEW_AFTER_S, head_left)))
        yield Send(("XREAD", "BLOCK", wait_ms, "STREAMS", wake + token, "0-0"))


def acquire_with(graph: str, scope: str, token: str, timeout: float, location: str, first: Command) -> Steps[Any]:
    """:func:`acquire`, with the writer's first statement (a read) sent in the same round trip: the server
    runs it after the lock's script, so it ran holding the lock when the script granted it (the
    uncontended case: one round trip instead of two). Otherwise its reply is dropped, and the statement
    runs again once the lock is had. Returns the statement's reply."""
    procedure = acquire(graph, scope, token, timeout, location)
    lock = next(procedure)
    assert isinstance(lock, Send)
    granted, reply = yield Pipeline((lock.command, first))
    answer: Any = granted
    ran_holding = True
    while True:
        try:
            step = procedure.send(answer)
        except StopIteration:
            break
        ran_holding = False
        answer = yield step
    return reply if ran_holding else (yield Send(first))


def then_release(graph: str, scope: str, token: str, last: Command) -> Steps[Any]:
    """Run a writer's last statement and release its lock in the same round trip (the server runs the
    release after the statement); returns the statement's reply."""
    reply, _ = yield Pipeline((last, _release(graph, scope, token)))
    return reply


def renew(graph: str, scope: str, token: str) -> Steps[bool]:
    """Keep a holder's lease alive during a long write; False if it lost the lock (it was paused longer
    than its lease, or ran a statement longer than that, and the next writer went ahead)."""
    queue, lease, _ = lock_keys(graph, scope)
    return bool((yield Send(("EVAL", _RENEW, 2, queue, lease + token, token, int(LEASE_S * 1000)))) == 1)


def lost_lock(scope: str, location: str) -> ConcurrencyConflictError:
    """What a writer that lost the lock before writing anything raises: its write is planned again."""
    return ConcurrencyConflictError(
        f"this writer lost the write lock of scope {scope!r} on {location}: it was paused longer than its "
        f"{LEASE_S:g} s lease and another writer went ahead; the write is planned again")


def release(graph: str, scope: str, token: str) -> Steps[None]:
    """Leave the queue (holding or not) and wake the next writer."""
    yield Send(_release(graph, scope, token))


def _release(graph: str, scope: str, token: str) -> Command:
    queue, lease, wake = lock_keys(graph, scope)
    return ("EVAL", _RELEASE, 2, queue, lease + token, token, wake)


def ensure_schema(graph: str, dialect: str, vector_dimensions: int | None, location: str) -> Steps[int | None]:
    """Indexes (no IF NOT EXISTS on FalkorDB: "already indexed" is fine), then the unique constraints,
    which FalkorDB creates by command and builds in the background: wait until they hold. With
    ``vector_dimensions``, the vector indexes too; returns the dimension of the memories' (built ones only:
    :func:`~synapse_graph.backends.base.indexed_dimensions`)."""
    for text in statements(Q.SCHEMA, dialect):
        reply = yield Send(command(graph, text, {}, read_only=False))
        _tolerate(reply, location, "already indexed", "creating the schema")
    for text in statements(Q.VECTOR_INDEX, dialect) if vector_dimensions is not None else ():
        reply = yield Send(command(graph, text, {"dimensions": vector_dimensions}, read_only=False))
        _tolerate(reply, location, "already indexed", "creating the schema")
    existing = yield Send(command(graph, "CALL db.constraints()", {}, read_only=True))
    have = {(row[1], tuple(row[2])) for row in _table(existing, location)}
    for constraint in data("schema/constraints", dialect):
        label, properties = constraint["label"], tuple(constraint["properties"])
        if (label, properties) in have:
            continue
        reply = yield Send(("GRAPH.CONSTRAINT", "CREATE", graph, "UNIQUE", "NODE", label, "PROPERTIES",
                            len(properties), *properties))
        _tolerate(reply, location, "already exists", "creating a unique constraint")
    for _ in range(500):
        states = [row[4] for row in _table((yield Send(command(graph, "CALL db.constraints()", {}, read_only=True))),
                                            location)]
        if any(state == "FAILED" for state in states):
            raise BackendError(f"a unique constraint failed to build on {location}: duplicate data?")
        if all(state == "OPERATIONAL" for state in states):
            break
        yield Sleep(0.01)
    else:
        raise BackendError(f"unique constraints on {location} are still being built; try again")
    if vector_dimensions is None:
        return None
    return (yield from _vector_indexes(graph, dialect, location))


# An embedded server loads a store with DELAY_INDEXING: it answers once the graph is decoded and builds the indexes in
# the background (most of a big store's start: the FACT index ~70% of it at 1M facts), node labels first. An index a
# schema change adds to a label that already holds many entities is built in the background too (store format 13's
# FACT end keys). While an index is built, the planner plans without it (a scan of its label: correct, but a read
# of one record's links took 40 s at 1M), its full-text and vector procedures answer nothing, and a write's unique
# check and MERGE run without it. So while any index is building, a statement waits until it needs none of them: a
# write for all; a read until its plan scans no label (nor every node) and it calls no index procedure of a label
# still building. A read that seeks an entity by key and walks its records (facts SUBJECT) runs once the node
# indexes are built; recall (the facts' full-text) and the digest (the FACT and COUNTED indexes) wait for those.
_INDEXES = "CALL db.indexes() YIELD label, status RETURN label, status"
_STATEMENTS = ("GRAPH.QUERY", "GRAPH.RO_QUERY")
_SCANS = ("All Node Scan", "Label Scan")
_INDEX_CALL = re.compile(r"db\.idx\.\w+\.query\w*\(\s*'(\w+)'")
INDEX_POLL_S = 0.2
"""How often a waiting statement looks again (looking every 20 ms cost the server ~15% more CPU in a 1M load)."""


def wait_for_indexes(graph: str, location: str, sent: Command) -> Steps[bool]:
    """Waits (at most :data:`INDEX_WAIT_S`) until ``sent`` needs none of the indexes the server is still building;
    returns whether any is still building (False: the caller need not ask again)."""
    if sent[0] not in _STATEMENTS:
        return True
    deadline = time.monotonic() + INDEX_WAIT_S
    while True:
        reply = yield Send(command(graph, _INDEXES, {}, read_only=True))
        if isinstance(reply, redis.ResponseError):
            return False  # no graph yet: nothing to build
        building = {row["label"] for row in _dicts(reply, location) if row["status"] != "OPERATIONAL"}
        if not building:
            return False
        if not (yield from _needs(graph, sent, building)) or time.monotonic() > deadline:
            return True
        yield Sleep(INDEX_POLL_S)


def _needs(graph: str, sent: Command, building: set[str]) -> Steps[bool]:
    """Whether a statement needs one of the indexes still ``building``."""
    if sent[0] != "GRAPH.RO_QUERY":
        return True
    text = sent[2]
    if "db.idx." in text:
        called = set(_INDEX_CALL.findall(text))
        if not called or called & building:
            return True
    plan = yield Send(("GRAPH.EXPLAIN", graph, text))
    if isinstance(plan, redis.ResponseError):
        return False  # the statement reports its error itself
    return any(scan in str(line) for line in plan for scan in _SCANS)


def _vector_indexes(graph: str, dialect: str, location: str) -> Steps[int | None]:
    """The dimension of the memories' vector indexes, once built (a few seconds at most; one still being built
    after that, over a store of many memories embedded before, is not asked until the next open)."""
    found: list[Row] = []
    for _ in range(VECTOR_INDEX_WAITS):
        found = _dicts((yield Send(command(graph, query(Q.VECTOR_INDEX_DIMENSIONS, dialect), {}, read_only=True))),
                       location)
        if all(row["online"] for row in found):
            break
        yield Sleep(0.01)
    return indexed_dimensions(found)


def _table(reply: Any, location: str) -> list[list[Any]]:
    return [list(row.values()) for row in _dicts(reply, location)]


def _dicts(reply: Any, location: str) -> list[Row]:
    if isinstance(reply, redis.RedisError):
        raise error(reply, location) from reply
    return list(rows(reply))


def _tolerate(reply: Any, location: str, fine: str, doing: str) -> None:
    if isinstance(reply, redis.RedisError) and fine not in str(reply).lower():
        raise BackendError(f"{doing} on {location} failed: {reply}") from reply
