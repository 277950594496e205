"""benchmarks/mcp_roundtrip.py at a tiny size: it runs, and the tool answers exactly what the Python call answers.

Only correctness is asserted here, never times.
"""

from __future__ import annotations

import pytest

from benchmarks.mcp_roundtrip import run

pytestmark = pytest.mark.integration


def test_roundtrip_benchmark_runs_and_both_sides_agree() -> None:
    result = run(size=1_000, backend="falkordb", calls=6, seed=7, keep=False)
    assert result["facts_in_store"] > 800
    for name in ("recall_python", "recall_mcp", "upsert_python", "upsert_mcp"):
        assert result[name]["n"] == 6
    assert result["recall_answers_differing"] == 0
    assert result["facts_per_recall"]["recall_mcp"] == result["facts_per_recall"]["recall_python"] > 0
    assert all(result[f"{op}_ratio_{stat}"] is not None for op in ("recall", "upsert") for stat in ("median", "p95"))
