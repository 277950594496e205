"""What every operation of one memory knows: its scope, who writes, and how secrets are treated."""

from __future__ import annotations

from dataclasses import dataclass

from synapse_graph.rules.redaction import SecretMode


@dataclass(frozen=True)
class Context:
    """The fixed settings of one ``Memory``/``AsyncMemory``."""

    scope: str
    client: str
    secrets: SecretMode = "redact"
    embedder: str | None = None
    """The embedder's model name (vectors are stored under it), or None without an embedder."""
    dimensions: int | None = None
    """The embedder's vectors' dimension."""
    indexed: bool = False
    """Whether the store's vector indexes over memories hold vectors of this dimension, so recall's vector leg
    asks them (else it scans the scope's; the backend's ``ensure_schema`` tells)."""
    session: str | None = None
    """The session this memory is bound to (its writes record it as their origin), if any."""
    registry: str | None = None
    """When ``scope`` is a session's scope: the durable scope that registered the session. Writes here
    are refused once the session expired or was revoked."""
