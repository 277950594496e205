"""How the inspector is served: where it listens, who may use it, which changes it offers."""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from synapse_graph import listening
from synapse_graph.errors import ConfigurationError
from synapse_graph.listening import Bind

TOKEN_ENV = "SYNAPSE_UI_TOKEN"  # noqa: S105 - the variable's name, not a token
DEFAULT_PORT = 8766
CLIENT = "synapse-graph-ui"
"""The client recorded on every change made through the inspector (facts, reviews, the audit log)."""


@dataclass(frozen=True)
class UiSettings:
    """Where and how to serve the inspector, checked before anything starts (:meth:`resolve`)."""

    bind: Bind = field(default_factory=lambda: Bind("127.0.0.1", DEFAULT_PORT))
    token: str | None = None
    """Bearer token every request must prove (a header, or the session cookie a browser gets for it)."""
    allowed_hosts: tuple[str, ...] = ()
    allow_review: bool = False
    """Offer review: approve and reject candidates."""
    allow_erasure: bool = False
    """Offer erasure: purge an entity, revoke (and erase) a session."""
    page_size: int = 50
    session_hours: float = 12.0
    """How long a browser stays signed in with its session cookie."""

    def __post_init__(self) -> None:
        listening.check_exposure(self.bind, self.token, self.allowed_hosts, TOKEN_ENV)

    @classmethod
    def resolve(cls, host: str = "127.0.0.1", port: int = DEFAULT_PORT, *, token_file: Path | None = None,
                allowed_hosts: Iterable[str] = (), environ: Mapping[str, str] | None = None,
                allow_review: bool = False, allow_erasure: bool = False) -> UiSettings:
        """Load the token (``$SYNAPSE_UI_TOKEN`` or a 0600 file) and refuse unsafe combinations
        (:class:`~synapse_graph.errors.ConfigurationError`): no token off loopback, a wildcard bind without
        ``allowed_hosts``."""
        if not 0 < port < 65536:
            raise ConfigurationError(f"--port must be from 1 to 65535, got {port}")
        token = listening.load_token(os.environ if environ is None else environ, token_file, TOKEN_ENV)
        return cls(bind=Bind(host, port), token=token, allowed_hosts=tuple(allowed_hosts), allow_review=allow_review,
                   allow_erasure=allow_erasure)

    @property
    def host_names(self) -> list[str]:
        """The names a request may be addressed to (its ``Host`` without the port)."""
        return listening.host_names(self.bind, self.allowed_hosts)
