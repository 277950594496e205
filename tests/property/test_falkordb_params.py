"""FalkorDB parameters: every value the library sends comes back from the server unchanged.

``params_header`` writes parameters as Cypher literals in front of the query (the form
FalkorDB takes them in) and ``falkordb_wire.rows`` reads the compact reply; hypothesis draws
nested lists and maps of text (quotes, backslashes, newlines, Unicode), integers up to 64
bits, floats, booleans and nulls, and the server must return each exactly (floats to the 15
digits its replies carry).
"""

from __future__ import annotations

import math
from typing import Any

import pytest
import redis
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from synapse_graph import Memory
from synapse_graph.backends.falkordb_params import FLOAT32_KEYS, params_header
from synapse_graph.backends.falkordb_wire import command, rows

TEXT = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00\x01"), max_size=40)
SCALARS = st.one_of(
    st.none(), st.booleans(), TEXT, st.integers(-(2**63), 2**63 - 1),
    st.floats(min_value=-1e300, max_value=1e300, allow_nan=False),  # replies round to 15 digits: no overflow
)
KEYS = st.one_of(
    st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,10}", fullmatch=True),  # written bare
    st.sampled_from(["end", "type", "match", "return", "null", "true", "in", "case"]),  # reserved words, bare
    st.sampled_from(["1a", "a b", "é", "a-b", "$x", "a.b"]),  # in backticks
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.one_of(st.lists(inner, max_size=5), st.dictionaries(KEYS, inner, max_size=5)),
    max_leaves=20,
)


def same(sent: Any, got: Any) -> bool:
    if isinstance(sent, float) and isinstance(got, float):
        # FalkorDB prints doubles in replies with 15 significant digits (what is stored is exact).
        return math.isclose(sent, got, rel_tol=1e-14, abs_tol=1e-300)
    if isinstance(sent, list):
        return isinstance(got, list) and len(sent) == len(got) and all(map(same, sent, got))
    if isinstance(sent, dict):
        return isinstance(got, dict) and sent.keys() == got.keys() and all(same(sent[k], got[k]) for k in sent)
    return type(sent) is type(got) and sent == got


@pytest.fixture(scope="module")
def client(falkordb_location: str) -> Any:
    """A plain redis client on the embedded server (the wire format under test, without the backend)."""
    memory = Memory(falkordb_location, scope="params-roundtrip")
    assert memory.backend.server is not None
    connection = redis.Redis(unix_socket_path=str(memory.backend.server.connect_path), decode_responses=True)
    yield connection
    connection.close()
    memory.close()


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(value=VALUES)
def test_values_come_back_exactly(client: Any, value: Any) -> None:
    [row] = rows(client.execute_command(*command("synapse", "RETURN $v AS v", {"v": value}, read_only=True)))
    assert same(value, row["v"]), (value, row["v"])


def test_names_with_backticks_and_unsendable_values_are_refused() -> None:
    for bad in ({"a`b": 1}, {"": 1}, {"v": {"x`": 1}}):
        with pytest.raises(ValueError, match="backticks"):
            params_header(bad)
    for value in (math.nan, math.inf):
        with pytest.raises(ValueError, match="cannot hold"):
            params_header({"v": value})
    with pytest.raises(TypeError, match="set"):
        params_header({"v": {1, 2}})


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(vector=st.lists(st.one_of(st.floats(min_value=-3e38, max_value=3e38, allow_nan=False),
                                 st.floats(min_value=-1.0, max_value=1.0)), min_size=1, max_size=24))
def test_a_query_vector_written_short_is_the_same_float32_vector(client: Any, vector: list[float]) -> None:
    """``$vector`` (falkordb_params.FLOAT32_KEYS) is written as float32 values with 9 digits: the statements read
    it as float32 only (vecf32), and get exactly the vector the full text of each double gives."""
    assert "vector" in FLOAT32_KEYS and "w" not in FLOAT32_KEYS
    [row] = rows(client.execute_command(*command(
        "synapse", "RETURN vec.euclideanDistance(vecf32($vector), vecf32($w)) AS d", {"vector": vector, "w": vector},
        read_only=True)))
    assert row["d"] == 0.0
