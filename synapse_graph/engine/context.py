"""What every operation of one memory knows: its scope, who writes, and how secrets are treated."""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

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
    cosines_in_process: bool = False
    """Whether recall computes a small scope's cosines in process from embeddings it keeps (the backend's
    ``cosines_in_process``; engine/recall_vectors.py)."""
    session: str | None = None
    """The session this memory is bound to (its writes record it as their origin), if any."""
    registry: str | None = None
    """When ``scope`` is a session's scope: the durable scope that registered the session. Writes here
    are refused once the session expired or was revoked."""
    recalled: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)
    """What recall last read first in each scope (its state, and how many names each word of the questions
    matched): the next recall guesses them from it and reads them again with its memories,
    in one round trip (engine/recalling.py). Shared by the contexts ``replace`` makes of this one; a guess is
    never trusted."""
    vectors: OrderedDict[str, Any] = field(default_factory=OrderedDict, compare=False, repr=False)
    """Per scope, the embeddings of its memories recall read, by id, within a byte budget: recall computes their
    cosines in process in a small scope (engine/recall_vectors.py); the least recently recalled scope first
    dropped."""
    common: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)
    """Per scope, the full-text calls of recall in a larger scope known to reach their cap (a common stem: none
    of its memories is kept) while the scope's state is the one they were read in, and from which instant on
    (engine/recalling.py :func:`_known_common`): the next recall asks the index for them no more."""
