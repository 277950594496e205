"""The file job log: bounded, atomic, private, shared by processes."""

from __future__ import annotations

import multiprocessing
from datetime import UTC, datetime, timedelta
from pathlib import Path

from synapse_graph.offload.jobs import FileJobLog, Job

T0 = datetime(2024, 1, 1, tzinfo=UTC)


def job(i: int, status: str = "done") -> Job:
    return Job(id=f"job-{i}", scope="s", submitted_at=T0 + timedelta(seconds=i), status=status)  # type: ignore[arg-type]


def test_keeps_the_last_200_newest_first(tmp_path: Path) -> None:
    log = FileJobLog(tmp_path / "jobs.jsonl")
    for i in range(230):
        log.record(job(i))
    recent = log.recent()
    assert len(recent) == 200 and recent[0].id == "job-229" and recent[-1].id == "job-30"
    assert len(log.path.read_text().splitlines()) == 200
    assert log.recent(3) == [job(229), job(228), job(227)]


def test_record_replaces_the_same_job(tmp_path: Path) -> None:
    log = FileJobLog(tmp_path / "jobs.jsonl")
    log.record(job(1, "queued"))
    log.record(job(2, "queued"))
    log.record(job(1, "done"))
    assert [(j.id, j.status) for j in log.recent()] == [("job-2", "queued"), ("job-1", "done")]


def test_private_file_and_no_temp_files_left(tmp_path: Path) -> None:
    log = FileJobLog(tmp_path / "sub" / "jobs.jsonl")
    log.record(job(1))
    assert oct(log.path.stat().st_mode & 0o777) == "0o600"
    assert sorted(p.name for p in log.path.parent.iterdir()) == ["jobs.jsonl", "jobs.jsonl.lock"]


def test_a_damaged_line_is_skipped(tmp_path: Path) -> None:
    log = FileJobLog(tmp_path / "jobs.jsonl")
    log.record(job(1))
    with log.path.open("a") as handle:
        handle.write('{"id": "half\n')
    log.record(job(2))
    assert [j.id for j in log.recent()] == ["job-2", "job-1"]


def _writer(path: str, start: int) -> None:
    log = FileJobLog(path)
    for i in range(start, start + 40):
        log.record(job(i))


def test_processes_writing_at_once_lose_nothing(tmp_path: Path) -> None:
    path = str(tmp_path / "jobs.jsonl")
    context = multiprocessing.get_context("spawn")
    workers = [context.Process(target=_writer, args=(path, start)) for start in (0, 100, 200)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(120)
    assert all(w.exitcode == 0 for w in workers)
    assert {j.id for j in FileJobLog(path).recent()} == {f"job-{i}" for s in (0, 100, 200) for i in range(s, s + 40)}
