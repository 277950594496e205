"""Sessions: a private scope per agent session, beside the durable scope (user or repository).

A durable scope registers a session by id; the session's memory lives in a scope of its own,
``<durable scope>/session:<id>``, so no read of one can see the other unless asked. A session
expires a fixed time after it was registered (registering it again does not extend it);
writes to an expired or revoked session are refused. Revoking a session blocks its writes
and erases its scope. Selected session facts can be promoted into the durable scope, each
recording the session it came from.
"""

from __future__ import annotations

import math
import re
from dataclasses import replace
from datetime import timedelta
from typing import Any

from synapse_graph.catalogue import Q
from synapse_graph.engine.context import Context
from synapse_graph.engine.io import Op, read
from synapse_graph.engine.view import View
from synapse_graph.engine.writes import Mutation
from synapse_graph.errors import InvalidInputError, InvalidScopeError, NotFoundError, SessionClosedError
from synapse_graph.instants import Instant, to_datetime
from synapse_graph.models import MemoryScope, Session
from synapse_graph.rules.text import check_scope
from synapse_graph.rules.timeline import Provenance
from synapse_graph.rules.timeparse import now_micros

DEFAULT_TTL = timedelta(days=7)
MAX_TTL = timedelta(days=36_525)
"""A century: a session's expiry stays a time every reader can hold (years up to 9999)."""
_SESSION_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.:@-]{0,63}")
_SESSION_SEGMENT = re.compile(r"(?:^|/)session:")


def check_id(session: object) -> str:
    """A session id: 1-64 letters, digits and ``_.:@-`` (a UUID fits)."""
    if not isinstance(session, str) or not _SESSION_ID.fullmatch(session):
        raise InvalidInputError(f"invalid session id {str(session)[:70]!r}: use 1-64 letters, digits and _.:@- "
                                "starting with a letter or digit (a UUID fits)")
    return session


def scope_of(durable: str, session: str) -> str:
    """The scope a session's memory lives in."""
    try:
        return check_scope(f"{durable}/session:{session}")
    except InvalidInputError:
        raise InvalidInputError(f"scope {durable!r} with session {session!r} is longer than a scope may be "
                                "(128 characters); use a shorter session id or scope") from None


def check_durable(scope: str) -> str:
    """A scope a memory may be opened on: never a session's own scope (nor one inside it), which is reached
    only through its session, so that a revoked or expired session takes no writes by any path."""
    found = _SESSION_SEGMENT.search(scope)
    if found is None:
        return scope
    durable, rest = scope[:found.start()], scope[found.end():]
    hint = (f"use scope {durable!r} with session {rest!r} (Memory(scope={durable!r}, session={rest!r}) and "
            f"memory_scope='session'; --scope {durable} --session {rest})" if durable and _SESSION_ID.fullmatch(rest)
            else "choose a scope without a 'session:' segment")
    raise InvalidScopeError(f"scope {scope[:140]!r} is a session's memory (a 'session:' segment is reserved for "
                            f"sessions), reachable only through its session: {hint}")


def context_of(ctx: Context, session: str) -> Context:
    """The context of operations on a session's own scope (its writes check the session is open)."""
    return replace(ctx, scope=scope_of(ctx.scope, session), session=session, registry=ctx.scope)


def check_ttl(ttl: object) -> timedelta:
    """How long a session takes writes: positive, at most :data:`MAX_TTL`."""
    if not isinstance(ttl, timedelta) or ttl <= timedelta(0):
        raise InvalidInputError(f"ttl must be a positive timedelta, e.g. timedelta(days=7), got {ttl!r}")
    if ttl > MAX_TTL:
        raise InvalidInputError(f"ttl must be at most {MAX_TTL.days} days (a century), got {ttl.days} days")
    return ttl


def ttl_of_days(days: float) -> timedelta:
    """A ttl given in days (the CLI's ``--days``): a positive, finite number, at most :data:`MAX_TTL`."""
    if isinstance(days, bool) or not isinstance(days, int | float) or not math.isfinite(days) or days <= 0 \
            or days > MAX_TTL.days:
        raise InvalidInputError(f"days must be a positive number of days, at most {MAX_TTL.days} (a century), "
                                f"got {days!r}")
    return check_ttl(timedelta(days=days))


def _session(row: dict[str, Any], durable: str) -> Session:
    return Session(id=row["id"], scope=scope_of(durable, row["id"]), registered_at=to_datetime(row["registered_at"]),
                   expires_at=to_datetime(row["expires_at"]),
                   revoked_at=None if row["revoked_at"] is None else to_datetime(row["revoked_at"]))


def sessions(ctx: Context, ids: list[str] | None) -> Op[list[Session]]:
    """The sessions the scope registered (the given ones, or all), oldest first."""
    found = yield from read(Q.SESSIONS, {"scope": ctx.scope, "ids": ids})
    return [_session(row["session"], ctx.scope) for row in found]


def register(view: View, session: str, ttl: timedelta) -> Op[tuple[Mutation | None, Session]]:
    """Register a session; one registered already is returned as it is (its expiry never moves)."""
    known = yield from sessions(view.ctx, [session])
    if known:
        return None, known[0]
    expires = Instant(view.now + ttl // timedelta(microseconds=1))
    row = {"id": session, "registered_at": view.now, "expires_at": expires, "revoked_at": None}
    made = Session(id=session, scope=scope_of(view.ctx.scope, session), registered_at=to_datetime(view.now),
                   expires_at=to_datetime(expires))
    return Mutation(action="session:register", provenance=Provenance(client=view.ctx.client, session=session),
                    sessions=[row], detail={"session": session}), made


def revoke(view: View, session: str) -> Op[tuple[Mutation | None, Session]]:
    """Mark a session revoked (its scope is erased next, by the caller)."""
    known = yield from sessions(view.ctx, [session])
    if not known:
        raise NotFoundError(f"scope {view.ctx.scope!r} registered no session {session!r}")
    if known[0].revoked_at is not None:
        return None, known[0]
    row = {"id": session, "registered_at": None, "expires_at": None, "revoked_at": view.now}
    return Mutation(action="session:revoke", provenance=Provenance(client=view.ctx.client, session=session),
                    sessions=[row], detail={"session": session}), known[0].model_copy(
        update={"revoked_at": to_datetime(view.now)})


def check_open(ctx: Context) -> Op[None]:
    """Refuse a write to a session's scope once the session expired or was revoked (or was never registered)."""
    if ctx.registry is None or ctx.session is None:
        return
    found = yield from read(Q.SESSIONS, {"scope": ctx.registry, "ids": [ctx.session]})
    if not found:
        raise SessionClosedError(f"session {ctx.session!r} is not registered in scope {ctx.registry!r}; register "
                                 "it first (Memory.register_session)")
    session = _session(found[0]["session"], ctx.registry)
    status = session.status(to_datetime(now_micros()))
    if status != "active":
        when = session.revoked_at or session.expires_at
        raise SessionClosedError(f"session {ctx.session!r} is {status} (since {when.isoformat()}): its memory takes "
                                 "no more writes; write to the durable scope, or register a new session")


def on_session(session: str | None, memory_scope: object, *, default: MemoryScope) -> bool:
    """Whether a call with this ``memory_scope`` acts on the bound ``session``'s own scope (``default`` when not
    asked; a ``"session"`` default falls back to the durable scope when no session is bound)."""
    chosen = default if memory_scope is None else memory_scope
    if chosen == "durable" or (chosen == "session" and memory_scope is None and session is None):
        return False
    if chosen != "session":
        raise InvalidInputError(f"memory_scope must be 'session' or 'durable', not {memory_scope!r}")
    if session is None:
        raise InvalidInputError("memory_scope='session' needs a session: open the Memory with session=ID "
                                "(register it first with register_session)")
    return True


def scoped(ctx: Context, memory_scope: object, *, default: MemoryScope) -> Context:
    """The context an operation acts in: the durable scope, or the bound session's own scope."""
    if not on_session(ctx.session, memory_scope, default=default):
        return ctx
    assert ctx.session is not None  # on_session is true only for a bound session
    return context_of(ctx, ctx.session)


def session_id(ctx: Context, session: str | None) -> str:
    """The session an operation names, else the one the memory is bound to."""
    if session is None:
        if ctx.session is None:
            raise InvalidInputError("name the session, or open the Memory with session=ID")
        return ctx.session
    return check_id(session)
