"""Real temporal data (WIKIDATA12k, YAGO11k) through the public API, checked against an independent oracle.

A CI-sized share of both data sets (whole subjects, so their timelines and merges stay
complete) is loaded on each backend and asked point-in-time questions; every answer
must be exact. The full run is ``python -m benchmarks.temporal_kg``.
"""

from __future__ import annotations

import os
from collections.abc import Callable

import pytest

from benchmarks.temporal_kg import DATA_ROOT, DATASETS, Dataset, evaluate, load_dataset, memory_options, subset
from synapse_graph import Memory

pytestmark = [pytest.mark.integration]


@pytest.fixture(autouse=True, scope="module")
def _data_present() -> None:
    if not all((DATA_ROOT / name / "train.txt").exists() for name in DATASETS):
        reason = (f"the temporal-KG data sets are not at {DATA_ROOT}: they ship with the repository in "
                  "benchmarks/data/temporal-kg (or set SYNAPSE_TEMPORAL_KG_DATA to a copy)")
        if os.environ.get("CI"):
            pytest.fail(reason, pytrace=False)
        pytest.skip(reason)

SHARES = {"yago11k": 20, "wikidata12k": 40}
"""Every n-th subject of each data set: about 1,100 facts each."""


@pytest.fixture(scope="module")
def datasets() -> dict[str, Dataset]:
    return {name: load_dataset(name) for name in DATASETS}


def test_yago_lines_are_loaded_or_rejected_with_the_known_reasons(datasets: dict[str, Dataset]) -> None:
    yago = datasets["yago11k"]
    assert yago.lines == 20_509
    assert dict(yago.rejected) == {"BCE year": 10, "imprecise year": 13, "malformed date": 2, "end before start": 70}
    assert len(yago.facts) == yago.lines - sum(yago.rejected.values())
    assert [example.split(":")[:2] for example in yago.rejected_examples["malformed date"]] == [
        ["train.txt", "7436"],  # 307-13047-09
        ["train.txt", "11454"],  # 1963-64-65
    ]


def test_wikidata_lines_are_loaded_or_rejected_with_the_known_reasons(datasets: dict[str, Dataset]) -> None:
    wikidata = datasets["wikidata12k"]
    assert wikidata.lines == 40_621
    assert dict(wikidata.rejected) == {"unknown start": 1_405, "end before start": 10}
    assert len(wikidata.facts) == wikidata.lines - sum(wikidata.rejected.values())


@pytest.mark.parametrize("name", sorted(SHARES))
def test_every_answer_matches_the_oracle(
    make_memory: Callable[..., Memory], datasets: dict[str, Dataset], name: str
) -> None:
    data = subset(datasets[name], SHARES[name])
    memory = make_memory(**memory_options(data))
    try:
        result = evaluate(memory, data, questions=250, batch_size=500, history_pairs=50)
    finally:
        memory.purge(scope=memory.scope)

    assert result["load_errors"] == []
    assert result["mismatches"] == []
    assert result["exact"] == result["questions"] == 250
    assert {kind: tally["asked"] for kind, tally in result["by_kind"].items()} == {
        "at_end": 50,
        "at_start": 50,
        "before_start": 50,
        "gap": 50,
        "inside": 50,
    }
    assert result["history_mismatches"] == []
    assert result["histories_exact"] == result["histories"] == 50
    assert result["records_stored"] == result["records_expected"]
