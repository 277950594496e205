"""The benchmark harness at its smoke size: correctness only, never absolute times.

Every point-in-time answer of ``Memory.facts`` must equal the generator's oracle and the
raw baseline's answer, and the records, entities, creations, confirmations and closings
counted by the library must be those the stream implies.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from benchmarks.report import markdown
from benchmarks.runner import RunConfig, run

pytestmark = pytest.mark.integration


@pytest.fixture(params=["falkordb", "neo4j"])
def backend(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    if request.param == "neo4j":
        settings: dict[str, Any] = request.getfixturevalue("neo4j_settings")
        monkeypatch.setenv("SYNAPSE_NEO4J_URL", settings["location"])
        monkeypatch.setenv("SYNAPSE_NEO4J_USER", settings["auth"][0])
        monkeypatch.setenv("SYNAPSE_NEO4J_PASSWORD", settings["auth"][1])
    return str(request.param)


def test_smoke_benchmark_is_correct(backend: str, tmp_path: Path) -> None:
    config = RunConfig(size="smoke", backends=(backend,), out=tmp_path, questions=100, neighbourhoods=10,
                       temporal_kg=False, write_files=False, progress=False)
    results = run(config)
    found = results["backends"][backend]
    assert "error" not in found, found.get("traceback", found.get("error"))
    print(markdown(results))
    assert "Single-fact upsert" in markdown(results)

    assert [c["size"] for c in found["checkpoints"]] == [1_000, 3_000]
    for point in found["checkpoints"]:
        read = point["read"]
        assert read["exact_ours"] == read["questions"], read["mismatches"]
        assert read["exact_raw"] == read["questions"], read["mismatches"]
        assert read["agree"] == read["questions"]
        counts = point["counts"]
        assert counts["ours_records"] == counts["raw_records"] == counts["expected_records"]
        assert counts["ours_entities"] == counts["raw_entities"] == counts["expected_entities"]
        assert counts["ours_created"] == counts["expected_created"]
        assert counts["ours_confirmed"] == counts["expected_confirmed"]
        assert counts["ours_closed"] == counts["expected_closed"]
        assert point["neighbourhood_2hop"]["n"] == 10
        single = point["single_write"]  # every probe written once by each system, read back, then removed
        assert single["ours"]["n"] == single["raw"]["n"] == single["writes"] > 0
        assert single["correct"], single
        assert single["median_ratio"] is not None
    shared = found["recall_shared_words"]["points"]
    assert [p["size"] for p in shared] == [1_000, 3_000]
    for point in shared:  # every question names one entity among thousands sharing its words: it comes first
        assert point["questions"] == 33 and point["expected_first"] == point["questions"], point["misses"]
    mix = results["dataset"]["mix"]
    assert mix["supersede"] > 0.15 * results["writes"] and mix["repeat"] > 0.07 * results["writes"]
    assert found["write_total"]["writes"] == results["writes"]


def test_concurrency_benchmark_runs_and_checks_the_end_state(backend: str, tmp_path: Path) -> None:
    """``python -m benchmarks.concurrency`` at a tiny size: every writer acknowledged, the store as they were told."""
    import json

    from benchmarks import concurrency

    assert concurrency.main(["--backend", backend, "--writers", "1,4", "--total", "8", "--rounds", "1",
                             "--out", str(tmp_path)]) == 0
    [written] = tmp_path.glob("*-concurrency.json")
    [result] = json.loads(written.read_text())["backends"]
    assert [(row["writers"], row["acked"], row["errors"], row["end_state_ok"]) for row in result["summary"]] == [
        (1, 8, 0, True), (4, 8, 0, True)]
    assert all(run["check"]["audit_entries"] == 8 for run in result["runs"])


def test_footprint_loads_the_same_stream_into_both_sides_and_measures_each_alone(tmp_path: Path) -> None:
    from benchmarks.footprint import main

    result = main(["--size", "3000", "--out", str(tmp_path / "footprint.json")])
    ours, raw = result["ours"], result["raw"]
    # Both sides hold the stream: the same entities; our records add the expired versions history keeps.
    assert ours["entities"] == raw["entities"] > 500
    assert ours["edges"] >= raw["edges"] > 2_500
    assert ours["used_memory_mb"] > 0 and raw["used_memory_mb"] > 0 and ours["graph_memory_mb"] > 0
    assert result["ratio_used_memory"] == round(ours["used_memory_mb"] / raw["used_memory_mb"], 2)
    assert (tmp_path / "footprint.json").read_text(encoding="utf-8").count('"used_memory_mb"') == 2


def test_node_update_cost_times_each_case_at_each_size(tmp_path: Path) -> None:
    from benchmarks.node_update_cost import CASES, main

    rows = main(["--sizes", "500,3000", "--repeats", "5", "--out", str(tmp_path / "cost.json")])
    assert [row["nodes"] >= size for row, size in zip(rows, (500, 3000), strict=True)] == [True, True]
    for row in rows:
        assert all(0 < row[case]["median_ms"] <= row[case]["p95_ms"] for case in CASES)
    assert (tmp_path / "cost.json").read_text(encoding="utf-8").count('"median_ms"') == 2 * len(CASES)


def test_warm_open_measures_cold_and_warm_commands_and_hooks(tmp_path: Path) -> None:
    from benchmarks.warm_open import SCOPE, main
    from synapse_graph import Memory, Triple

    store = tmp_path / "source" / "store.db"
    with Memory(store, scope=SCOPE) as memory:
        memory.upsert([Triple(subject=f"s{i}", predicate="KNOWS", object=f"o{i}") for i in range(20)])
    result = main(["--store", str(store), "--runs", "1", "--start-runs", "1", "--hook-runs", "1",
                   "--cold-hook-runs", "0", "--commands", "facts", "--work", str(tmp_path),
                   "--out", str(tmp_path / "warm.json")])
    cold, warm = result["variants"]["cold"], result["variants"]["warm"]
    assert cold["times"]["start_s"]["n"] == 1 and cold["times"]["server_cpu_s"]["min_s"] > 0
    assert len(cold["loads"]) == 1 and "base_s" in cold["loads"][0]  # `facts` started and loaded a server
    assert "incr_s" in result["cold_first_open_load"]  # the store as written: its incr file replayed
    assert warm["loads"] == [] and warm["times"]["facts"]["n"] == 1  # joined the warm server: no load
    assert {"hook session-start", "hook pre-compact", "hook stop", "stop: detached offload done"} <= set(
        warm["times"])
    assert sorted(p.name for p in tmp_path.iterdir()) == ["source", "warm.json"]  # the copies are gone


def test_time_reads_benchmark_answers_exactly_and_its_reads_seek_indexes(backend: str, tmp_path: Path) -> None:
    """``python -m benchmarks.time_reads`` at a tiny size: every point-in-time and during answer equals the
    stream's, the day's changes are all found, and every statement of the three reads starts from an index."""
    import json

    from benchmarks import time_reads

    assert time_reads.main(["--size", "600", "--backend", backend, "--day", "60", "--rounds", "20",
                            "--workdir", str(tmp_path / "work"), "--out", str(tmp_path)]) == 0
    [written] = tmp_path.glob("*-time-600-*.json")
    result = json.loads(written.read_text())
    reads = result["reads"]
    assert reads["point_in_time"]["exact"] == reads["point_in_time"]["n"] == 20
    assert reads["during_by_object"]["exact"] == reads["during_by_object"]["n"] == 20, reads["misses"]
    day = reads["whole_day"]
    assert day["kinds"]["added"] > 0 and all(run["changes"] == sum(day["kinds"].values()) for run in day["runs"])
    assert result["plans"]["all_seek_indexes"], result["plans"]
