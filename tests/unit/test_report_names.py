"""Benchmark reports: runs of each backend on one day keep their own files."""

from __future__ import annotations

from pathlib import Path

from benchmarks.report import report_stem

RUN = {"date": "2026-11-30T23:06:34+00:00", "machine": "2cpu-24g", "size": "1m"}


def test_a_run_of_one_backend_is_named_after_it() -> None:
    names = {report_stem({**RUN, "ran": ran}, Path("out")).name for ran in (["falkordb"], ["neo4j"])}
    assert names == {"2026-11-30-2cpu-24g-1m-falkordb", "2026-11-30-2cpu-24g-1m-neo4j"}
    assert report_stem({**RUN, "ran": ["falkordb", "neo4j"]}, Path("out")).name == "2026-11-30-2cpu-24g-1m"
    assert report_stem(RUN, Path("out")).name == "2026-11-30-2cpu-24g-1m"  # results written before "ran"
