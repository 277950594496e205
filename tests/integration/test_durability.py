"""Crash durability: every acknowledged batch survives ``kill -9``, and no batch is ever half there.

A writer process upserts a stream of small batches (3 facts each, tagged with the batch
number) and reports a batch number only after ``upsert`` returned. In the middle of
the stream the test kills, with SIGKILL, either the database server (the embedded
FalkorDB ``redis-server``; the Neo4j JVM) or the Python writer itself. Then it opens
a new ``Memory`` on the same database (for the embedded file: a new server that loads
the append-only file) and checks that

* every acknowledged batch is there in full;
* every batch that is there is complete: 3 facts or none (each batch is one transaction);
* at most one batch beyond the acknowledged ones is there (the one in flight).

The Neo4j test kills the server the whole session shares (``scripts/neo4j-local``)
and starts it again before it ends, so these tests are ordered last.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import signal
import time
import uuid
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from benchmarks import neo4j_local as neo4j_local_script
from synapse_graph import Memory, SynapseError, Triple
from synapse_graph.backends.embedded import EmbeddedServer
from tests.ci import unavailable
from tests.integration.embedded_processes import LINGER_S

pytestmark = [pytest.mark.integration, pytest.mark.order(-1)]

ROOT = Path(__file__).resolve().parents[2]
PARTS = 3
ACKED_BEFORE_KILL = 25  # batches acknowledged before the kill: mid-stream, with the writer going full speed
MAX_BATCHES = 100_000


def batch(number: int) -> list[Triple]:
    subject = f"batch-{number:06d}"
    return [Triple(subject=subject, predicate="HAS_PART", object=f"part-{number}-{k}") for k in range(PARTS)]


def writer(settings: dict[str, Any], scope: str, acks: str) -> None:
    """The writer process: one batch after the other; a batch number is reported only once acknowledged."""
    if "auth" in settings:  # Neo4j: give up after 1 s of retrying, not the driver's default 30 s
        import neo4j

        connect = neo4j.GraphDatabase.driver
        neo4j.GraphDatabase.driver = lambda *a, **k: connect(*a, max_transaction_retry_time=1.0, **k)  # type: ignore
    fd = os.open(acks, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    options = dict(settings)
    location = options.pop("location")
    try:
        with Memory(location, scope=scope, **options) as memory:
            os.write(fd, b"open\n")
            for number in range(MAX_BATCHES):
                memory.upsert(batch(number), source="durability")
                os.write(fd, f"{number}\n".encode())  # unbuffered: in the kernel before the next write starts
    except SynapseError as exc:
        os.write(fd, f"error {type(exc).__name__}: {exc}".replace("\n", " ").encode() + b"\n")
        os._exit(3)
    except BaseException as exc:
        os.write(fd, f"unexpected {type(exc).__name__}: {exc}".replace("\n", " ").encode() + b"\n")
        os._exit(4)


def read_acks(path: Path) -> tuple[list[int], list[str]]:
    try:
        lines = path.read_text().splitlines()
    except FileNotFoundError:
        return [], []
    numbers = [int(line) for line in lines if line.isdigit()]
    return numbers, [line for line in lines if not line.isdigit() and line != "open"]


def start_writer(settings: dict[str, Any], scope: str, acks: Path) -> multiprocessing.process.BaseProcess:
    process = multiprocessing.get_context("spawn").Process(target=writer, args=(settings, scope, str(acks)))
    process.start()
    return process


def wait_for_acks(process: multiprocessing.process.BaseProcess, acks: Path, count: int, timeout: float = 180) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        numbers, other = read_acks(acks)
        assert not other, f"the writer failed before the kill: {other}"
        if len(numbers) >= count:
            return
        assert process.is_alive(), f"the writer exited early (code {process.exitcode})"
        time.sleep(0.01)
    raise AssertionError(f"the writer acknowledged only {len(read_acks(acks)[0])} batches in {timeout} s")


def check_batches(memory: Memory, acknowledged: list[int]) -> dict[str, int]:
    """All acknowledged batches in full, no partial batch, nothing but the one in flight beyond them."""
    assert acknowledged == list(range(len(acknowledged))), "acknowledgements out of order"
    facts = memory.facts(limit=1_000_000)
    parts = Counter(int(f.subject.removeprefix("batch-")) for f in facts)
    partial = {n: k for n, k in parts.items() if k != PARTS}
    assert not partial, f"batches partially visible: {partial}"
    missing = set(acknowledged) - set(parts)
    assert not missing, f"acknowledged batches lost: {sorted(missing)}"
    extra = set(parts) - set(acknowledged)
    assert extra <= {len(acknowledged)}, f"unacknowledged batches beyond the one in flight: {sorted(extra)}"
    expected = {(f"batch-{n:06d}", f"part-{n}-{k}") for n in parts for k in range(PARTS)}
    assert {(f.subject, f.object) for f in facts} == expected
    assert all(f.confirmations == 1 for f in facts)
    return {"acknowledged": len(acknowledged), "found": len(parts), "in_flight_found": len(extra)}


def report(what: str, figures: dict[str, int], seconds: float) -> None:
    print(f"\n[durability] {what}: {figures['acknowledged']} batches acknowledged, {figures['found']} found complete "
          f"({figures['in_flight_found']} in flight found), 0 partial; {seconds:.1f} s")


# -- processes ----------------------------------------------------------------------------------------------


def alive(pid: int | None) -> bool:
    """True if the process runs (a zombie, killed but not yet reaped, does not count)."""
    if pid is None:
        return False
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state not in ("Z", "X")


def cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def kill_hard(pid: int, must_contain: str, timeout: float = 30) -> None:
    """SIGKILL a process we identified (checking its command line, never a reused pid) and wait until it is gone."""
    assert alive(pid) and must_contain in cmdline(pid), f"pid {pid} is not the expected process ({must_contain})"
    os.kill(pid, signal.SIGKILL)
    deadline = time.monotonic() + timeout
    while alive(pid):
        assert time.monotonic() < deadline, f"pid {pid} survived SIGKILL"
        time.sleep(0.01)


def stop_writer(process: multiprocessing.process.BaseProcess, timeout: float = 60) -> int | None:
    process.join(timeout)
    if process.is_alive():
        process.kill()
        process.join(10)
        raise AssertionError("the writer did not stop after the server died")
    return process.exitcode


# -- embedded FalkorDB --------------------------------------------------------------------------------------


@pytest.fixture
def db_file(tmp_path: Path, lingering: None) -> Iterator[Path]:
    """The store of an embedded test, whose servers linger (every guarantee holds lingering)."""
    path = tmp_path / "durable.db"
    yield path
    server = EmbeddedServer(path)
    deadline = time.monotonic() + LINGER_S + 15
    while server.running() and time.monotonic() < deadline:  # none outlives its linger
        time.sleep(0.05)
    pid = server.pid()
    if pid is not None and alive(pid) and str(server.socket_path) in cmdline(pid):  # never leave a server behind
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
        raise AssertionError(f"the server {pid} outlived its linger")


def test_embedded_server_killed_mid_stream(db_file: Path, tmp_path: Path) -> None:
    acks = tmp_path / "acks"
    started = time.monotonic()
    process = start_writer({"location": str(db_file)}, "durable", acks)
    wait_for_acks(process, acks, ACKED_BEFORE_KILL)
    server = EmbeddedServer(db_file)
    pid = server.pid()
    assert pid is not None
    kill_hard(pid, str(server.socket_path))

    assert stop_writer(process) == 3, "the writer must stop on a SynapseError"
    acknowledged, other = read_acks(acks)
    assert len(other) == 1 and other[0].startswith("error BackendUnavailableError"), other

    with Memory(db_file, scope="durable") as memory:  # a new server, which loads the append-only file
        assert memory.backend.server is not None and memory.backend.server.pid() != pid
        figures = check_batches(memory, acknowledged)
    report("embedded FalkorDB server killed -9", figures, time.monotonic() - started)


def test_python_writer_killed_mid_stream(db_file: Path, tmp_path: Path) -> None:
    acks = tmp_path / "acks"
    started = time.monotonic()
    process = start_writer({"location": str(db_file)}, "durable", acks)
    wait_for_acks(process, acks, ACKED_BEFORE_KILL)
    server_pid = EmbeddedServer(db_file).pid()
    assert server_pid is not None
    assert process.pid is not None
    kill_hard(process.pid, "multiprocessing")
    process.join(10)
    acknowledged, other = read_acks(acks)
    assert other == []

    deadline = time.monotonic() + 60
    while alive(server_pid):  # its watchdog stops a server whose last client is gone, crashed or not, after its linger
        assert time.monotonic() < deadline, "the server outlived its last client, the killed writer"
        time.sleep(0.05)
    with Memory(db_file, scope="durable") as memory:  # a new server, which loads the append-only file
        assert memory.backend.server is not None and memory.backend.server.pid() != server_pid
        figures = check_batches(memory, acknowledged)
        reader_pid = memory.backend.server.pid()
    assert alive(reader_pid), "the server lingers after its last client"
    deadline = time.monotonic() + LINGER_S + 15
    while alive(reader_pid):
        assert time.monotonic() < deadline, "the server outlived its linger"
        time.sleep(0.05)
    report("Python writer killed -9 (embedded FalkorDB)", figures, time.monotonic() - started)


# -- Neo4j ----------------------------------------------------------------------------------------------------


neo4j_local = neo4j_local_script.run


@pytest.fixture
def local_neo4j(neo4j_settings: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """The session's Neo4j if ``scripts/neo4j-local`` runs it (only then can it be killed and started again).

    Whatever happens in the test, the server is running and answering again afterwards.
    """
    env = neo4j_local_script.env()
    if neo4j_local("pid").returncode != 0 or env.get("SYNAPSE_NEO4J_URL") != neo4j_settings["location"]:
        unavailable("the session's Neo4j is not the scripts/neo4j-local server; it cannot be killed and restarted")
    try:
        yield neo4j_settings
    finally:
        if neo4j_local("status").returncode != 0:
            restart_neo4j(neo4j_settings)


def restart_neo4j(settings: dict[str, Any]) -> None:
    started = neo4j_local("start", timeout=900)
    assert started.returncode == 0, f"scripts/neo4j-local start failed:\n{started.stderr[-3000:]}"
    deadline = time.monotonic() + 120
    while True:  # the script waits until it answers; this checks the library connects as well
        try:
            with Memory(settings["location"], scope="durable-probe", auth=settings["auth"]) as probe:
                probe.stats()
            return
        except SynapseError:
            if time.monotonic() > deadline:
                raise
            time.sleep(1)


def test_python_writer_killed_mid_stream_neo4j(neo4j_settings: dict[str, Any], tmp_path: Path) -> None:
    scope = f"durable-{uuid.uuid4().hex[:12]}"
    acks = tmp_path / "acks"
    started = time.monotonic()
    process = start_writer(neo4j_settings, scope, acks)
    wait_for_acks(process, acks, ACKED_BEFORE_KILL)
    assert process.pid is not None
    kill_hard(process.pid, "multiprocessing")
    process.join(10)
    acknowledged, other = read_acks(acks)
    assert other == []
    with Memory(neo4j_settings["location"], scope=scope, auth=neo4j_settings["auth"]) as memory:
        figures = check_batches(memory, acknowledged)
        memory.purge(scope=scope)
    report("Python writer killed -9 (Neo4j)", figures, time.monotonic() - started)


def test_neo4j_server_killed_mid_stream(local_neo4j: dict[str, Any], tmp_path: Path) -> None:
    scope = f"durable-{uuid.uuid4().hex[:12]}"
    acks = tmp_path / "acks"
    started = time.monotonic()
    process = start_writer(local_neo4j, scope, acks)
    try:
        wait_for_acks(process, acks, ACKED_BEFORE_KILL)
        jvm = int(neo4j_local("pid").stdout.strip())
        kill_hard(jvm, "org.neo4j.server.CommunityEntryPoint")
        exitcode = stop_writer(process, timeout=120)
    finally:
        if process.is_alive():
            process.kill()
        restart_neo4j(local_neo4j)
    acknowledged, other = read_acks(acks)
    assert exitcode == 3, other
    assert len(other) == 1 and other[0].startswith("error Backend"), other

    with Memory(local_neo4j["location"], scope=scope, auth=local_neo4j["auth"]) as memory:
        figures = check_batches(memory, acknowledged)
        memory.purge(scope=scope)
    report("Neo4j JVM killed -9", figures, time.monotonic() - started)
