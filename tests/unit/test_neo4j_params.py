"""Parameters for Neo4j (backends/neo4j.py encode): plain values pass as they are, an embedding's floats without a
call per value (a recall with MiniLM sends 384 of them), and instants become datetimes (ISO-8601 text in lists)."""

from __future__ import annotations

from datetime import UTC, datetime
from enum import IntEnum

from synapse_graph.backends.neo4j import encode
from synapse_graph.instants import Instant


class _Level(IntEnum):
    LOW = 1


def test_plain_values_and_embeddings_pass_as_they_are_and_instants_become_datetimes() -> None:
    vector = [0.25, -1.5, 3.0e-8, 0.0]
    params = {"vector": vector, "k": 50, "on": True, "none": None, "stems": ["cat", "own"], "index": {"cat": 0},
              "as_of": Instant(1_000_000), "times": [Instant(7), 1.5, "x", None], "nested": {"at": Instant(2)},
              "level": _Level.LOW}
    encoded = encode(params)
    assert encoded["vector"] == vector and all(type(v) is float for v in encoded["vector"])
    assert {k: encoded[k] for k in ("k", "on", "none", "stems", "index", "level")} == {
        "k": 50, "on": True, "none": None, "stems": ["cat", "own"], "index": {"cat": 0}, "level": _Level.LOW}
    assert encoded["as_of"] == datetime(1970, 1, 1, 0, 0, 1, tzinfo=UTC)
    assert encoded["times"] == ["1970-01-01T00:00:00.000007+00:00", 1.5, "x", None]
    assert encoded["nested"] == {"at": datetime(1970, 1, 1, 0, 0, 0, 2, tzinfo=UTC)}
