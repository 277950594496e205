"""FalkorDB: floats under an exact key (``confidence``) come back bit for bit.

FalkorDB stores doubles exactly but prints them in replies with 15 significant digits
(``%.15g``), so 0.9999999999999999 was read back as 1.0. The driver sends such a float as
its exact text and turns it back into the float when read; floats that 15 digits carry
stay numbers. Checked against the real server (embedded FalkorDB) through the driver's
own row decoding, at the top level of the parameters and inside maps and lists.
"""

from __future__ import annotations

from typing import Any

import pytest
import redis
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from synapse_graph import Memory
from synapse_graph.backends.falkordb_params import exact_float
from synapse_graph.backends.falkordb_wire import command, rows

pytestmark = pytest.mark.integration

finite = st.floats(allow_nan=False, allow_infinity=False)
HARD = [0.9999999999999999, 0.1 + 0.2, 5e-324, 1 / 3, 2.2250738585072014e-308, -0.0, 1e308, 123456789.12345679]


@given(finite)
@example(0.9999999999999999)
@example(5e-324)
@example(-0.0)
def test_what_is_sent_reads_back_exactly(value: float) -> None:
    sent = exact_float(value)
    # What a reply carries: the exact text, or the double printed with 15 significant digits.
    replied = sent if isinstance(sent, str) else f"{sent:.15g}"
    assert float(replied).hex() == value.hex()
    assert isinstance(sent, float) == (float(f"{value:.15g}") == value)  # numbers stay numbers when they can


def test_decoding_touches_only_exact_keys() -> None:
    # A compact reply as the server sends it: header, rows of [type, value] cells, statistics.
    string, array, map_ = 2, 6, 10
    reply = [[[1, "confidence"], [1, "name"], [1, "records"]],
             [[[string, "0.9999999999999999"], [string, "0.5"],
               [array, [[map_, ["confidence", [string, "5e-324"], "name", [string, "0.25"]]]]]]],
             ["Query internal execution time: 0.1 milliseconds"]]
    assert rows(reply) == [{"confidence": 0.9999999999999999, "name": "0.5",
                            "records": [{"confidence": 5e-324, "name": "0.25"}]}]


@pytest.fixture(scope="module")
def graph(falkordb_location: str) -> Any:
    """A plain redis client on the embedded server: the wire format under test, without the backend."""
    memory = Memory(falkordb_location, scope="exact-floats")
    assert memory.backend.server is not None
    client = redis.Redis(unix_socket_path=str(memory.backend.server.connect_path), decode_responses=True)
    yield client
    client.close()
    memory.close()


def through_server(graph: Any, params: dict[str, Any]) -> dict[str, Any]:
    text = "RETURN " + ", ".join(f"${k} AS {k}" for k in params)
    [row] = rows(graph.execute_command(*command("synapse", text, params, read_only=True)))
    return row


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.one_of(finite, st.sampled_from(HARD)), st.one_of(finite, st.sampled_from(HARD)))
def test_confidences_come_back_bit_for_bit(graph: Any, first: float, second: float) -> None:
    row = through_server(graph, {
        "confidence": first,
        "creates": [{"props": {"confidence": second, "valid_at": 1}}],
        "updates": [{"id": "a", "confidence": first}],
    })
    assert row["confidence"].hex() == first.hex()
    assert row["creates"][0]["props"]["confidence"].hex() == second.hex()
    assert row["updates"][0]["confidence"].hex() == first.hex()


def test_other_floats_are_still_numbers(graph: Any) -> None:
    row = through_server(graph, {"score": 0.9999999999999999, "map": {"weight": 0.1 + 0.2}})
    assert row == {"score": 1.0, "map": {"weight": 0.3}}  # FalkorDB's 15 digits: only exact keys are kept whole
