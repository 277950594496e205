"""The fixed settings of a memory, checked when it is opened (before any connection)."""

from __future__ import annotations

import math

from synapse_graph.embedding import Embedder
from synapse_graph.engine import sessions
from synapse_graph.engine.context import Context
from synapse_graph.engine.inputs import text
from synapse_graph.errors import ConfigurationError
from synapse_graph.rules.text import check_scope


def check_settings(*, scope: str, secrets: str, client: str, embedder: Embedder | None, lock_timeout: float,
                   session: str | None = None) -> Context:
    """The context of a memory; raises for a malformed scope, secret policy, client name or timeout."""
    checked_scope = check_scope(scope)
    if secrets not in ("redact", "reject"):
        raise ConfigurationError(f"secrets must be 'redact' or 'reject', not {secrets!r}")
    if isinstance(lock_timeout, bool) or not isinstance(lock_timeout, int | float) or not math.isfinite(lock_timeout) \
            or lock_timeout <= 0:
        raise ConfigurationError(f"lock_timeout must be a positive number of seconds, got {lock_timeout!r}")
    probe = Context(scope=checked_scope, client="synapse-graph", secrets="redact" if secrets == "redact" else "reject")
    name = text(probe, client, "client", 200)
    if not name:
        raise ConfigurationError("client must name the writer, e.g. 'my-agent'")
    if embedder is not None and not isinstance(embedder, Embedder):
        raise ConfigurationError(f"embedder must implement synapse_graph.embedding.Embedder, got {type(embedder)}")
    if session is not None:
        sessions.scope_of(checked_scope, sessions.check_id(session))
    return Context(scope=checked_scope, client=name, secrets=probe.secrets,
                   embedder=None if embedder is None else embedder.name, session=session)
