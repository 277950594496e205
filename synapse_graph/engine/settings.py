"""The fixed settings of a memory, checked when it is constructed (before any connection)."""

from __future__ import annotations

import math
import os
from collections.abc import Iterable
from dataclasses import replace
from typing import TYPE_CHECKING

from synapse_graph.backends.base import DEFAULT_LOCK_TIMEOUT_S
from synapse_graph.embedding import Embedder
from synapse_graph.engine import scope_rules, sessions
from synapse_graph.engine.context import Context
from synapse_graph.engine.inputs import text
from synapse_graph.errors import ConfigurationError
from synapse_graph.rules.redaction import SecretMode
from synapse_graph.rules.text import check_scope

if TYPE_CHECKING:
    from synapse_graph.offload.client import ChatClient
    from synapse_graph.offload.offloader import Offloader


def check_settings(*, scope: str, secrets: str, client: str, embedder: Embedder | None, lock_timeout: float,
                   session: str | None = None) -> Context:
    """The context of a memory; raises for a malformed scope, secret policy, client name or timeout."""
    checked_scope = sessions.check_durable(check_scope(scope))
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
                   embedder=None if embedder is None else embedder.name,
                   dimensions=None if embedder is None else embedder.dimensions, session=session)


class MemoryOptions:
    """The constructor ``Memory`` and ``AsyncMemory`` share: it checks every argument before any connection
    and keeps them; :meth:`_connect` then connects (``Memory`` at once, ``AsyncMemory`` when opened).

    The arguments are documented on :class:`~synapse_graph.Memory`.
    """

    def __init__(
        self,
        location: str | os.PathLike[str] | None = None,
        *,
        scope: str = "default",
        max_facts: int | None = None,
        max_entities: int | None = None,
        max_candidates: int | None = None,
        single_valued: Iterable[str] | None = None,
        candidate_below: float | None = None,
        secrets: SecretMode = "redact",
        client: str = "synapse-graph",
        auth: tuple[str, str] | None = None,
        database: str | None = None,
        embedder: Embedder | None = None,
        lock_timeout: float = DEFAULT_LOCK_TIMEOUT_S,
        create: bool = True,
        session: str | None = None,
        offload_model: ChatClient | None = None,
    ) -> None:
        self._ctx = check_settings(scope=scope, secrets=secrets, client=client, embedder=embedder,
                                   lock_timeout=lock_timeout, session=session)
        self._asked = scope_rules.requested(max_facts=max_facts, max_entities=max_entities,
                                            max_candidates=max_candidates, single_valued=single_valued,
                                            candidate_below=candidate_below)
        self._location, self._auth, self._database, self._create = location, auth, database, create
        self.embedder = embedder
        self.lock_timeout = lock_timeout
        self.offload_model = offload_model
        self._offloader: Offloader | None = None
        self._connect()

    def _close_offloader(self) -> None:
        """Finish the queued offload jobs, if this memory offloaded (the offload's modules load with the first)."""
        if self._offloader is not None:
            from synapse_graph.offload.offloader import OFFLOAD_CLOSE_TIMEOUT_S
            self._offloader.close(wait=True, timeout=OFFLOAD_CLOSE_TIMEOUT_S)

    def _connect(self) -> None:
        """Connect to the store (a facade that connects later does nothing here)."""

    def _schema_ready(self, indexed_dimensions: int | None, cosines_in_process: bool = False) -> None:
        """Note what the backend's ``ensure_schema`` found: the dimension of the memories' vector indexes; and
        whether recall computes a small scope's cosines in process there."""
        self._ctx = replace(self._ctx, indexed=indexed_dimensions is not None
                            and indexed_dimensions == self._ctx.dimensions, cosines_in_process=cosines_in_process)

    @property
    def scope(self) -> str:
        """The scope this memory reads and writes, e.g. ``"acme/web"``."""
        return self._ctx.scope

    @property
    def client(self) -> str:
        """The provenance recorded on every fact this memory writes."""
        return self._ctx.client

    @property
    def session(self) -> str | None:
        """The session this memory is bound to (``session=ID``), if any."""
        return self._ctx.session
