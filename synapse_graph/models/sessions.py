"""Agent sessions: a private scope registered by a durable scope."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict

from synapse_graph import render
from synapse_graph.models.readable import Readable

MemoryScope = Literal["session", "durable"]
"""Which memory a call of a ``Memory`` bound to an agent session acts on: the session's own (``"session"``) or the
durable scope's (``"durable"``); not to be confused with the tenant ``scope`` itself."""


class Session(Readable, BaseModel):
    """A private scope for one agent session, registered by a durable scope (``Memory.register_session``)."""

    model_config = ConfigDict(frozen=True)

    id: str
    scope: str
    """The session's own scope (where its memory lives)."""
    registered_at: datetime
    expires_at: datetime
    """Writes are refused from here on; reconnecting does not extend it."""
    revoked_at: datetime | None = None

    def status(self, now: datetime | None = None) -> Literal["active", "expired", "revoked"]:
        if self.revoked_at is not None:
            return "revoked"
        return "expired" if (now or datetime.now(UTC)) >= self.expires_at else "active"

    def __str__(self) -> str:
        return (f"session {self.id} ({self.status()}): registered {render.time_text(self.registered_at)}, "
                f"expires {render.time_text(self.expires_at)}")
