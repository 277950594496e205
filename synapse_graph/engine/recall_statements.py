"""Which statement reads a larger scope's memories for recall (issue 28, the harness's large-scope rows): the
full-text leg stem by stem with the vector and window legs (``memory_lexical_each``), or, without an embedder,
the full-text leg alone (``memory_lexical_alone``; ``memory_lexical_few`` for a question of at most
:data:`FEW_STEMS` stems). Every branch of a statement costs the server even when it finds nothing: without a
vector the other legs' branches find nothing, and FalkorDB asks stem slots (its ninth holds the stems past the
eighth) that a short question leaves empty. The same calls are made and the same rows come back."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from synapse_graph.catalogue import Q
from synapse_graph.engine import recall_memo as memo
from synapse_graph.engine.io import Read

FEW_STEMS = 5
"""A question of at most this many stems is asked with FalkorDB's first five stem slots only (the statement with
nine and no stem took 2.2 ms of the server at 100,000 writes, with five 1.7, with four 1.5, at load 8: rows A and B
of the harness ask 2-5 stems)."""
VECTOR_ONLY = ("fetch", "kinds")
"""Parameters only the vector legs read."""


def memories_read(memories: Mapping[str, Any], *, cap: int) -> Read | None:
    """The read of a larger scope's memories with ``memories`` (recalling's parameters) and ``cap``, or None
    when, without a vector, every full-text call is known to keep nothing (:func:`memo.all_common`)."""
    if memories["vector"] is not None:
        return Read(Q.MEMORY_LEXICAL_EACH, {**memories, "cap": cap})
    if memo.all_common(memories["stems"], memories):
        return None
    name = Q.MEMORY_LEXICAL_FEW if len(memories["stems"]) <= FEW_STEMS else Q.MEMORY_LEXICAL_ALONE
    return Read(name, {**{k: v for k, v in memories.items() if k not in VECTOR_ONLY}, "cap": cap})
