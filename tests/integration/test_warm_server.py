"""A server that stays warm: consecutive commands share it, none outlives its linger, and it is seen and stopped.

Each test's stores live under ``tmp_path``; the ``store_dir`` fixture fails a test that leaves a
server running past its linger.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from synapse_graph import Memory, Triple
from synapse_graph.backends.aof_ledger import sizes
from synapse_graph.backends.embedded import LINGER_ENV, EmbeddedServer
from synapse_graph.errors import StoreDamagedError
from tests.integration.embedded_processes import (
    CLI,
    LINGER_S,
    Client,
    add,
    alive,
    facts_of,
    incr_file,
    redis_servers_in,
    start_client,
    stop_server,
    wait_until,
)

pytestmark = [pytest.mark.integration, pytest.mark.usefixtures("lingering")]


def cli(*args: str, env: dict[str, str] | None = None, code: int = 0) -> subprocess.CompletedProcess[str]:
    done = subprocess.run([str(CLI), *args], capture_output=True, text=True, timeout=300, check=False,
                          env={**os.environ, **(env or {})})
    assert done.returncode == code, (done.stdout, done.stderr)
    return done


def status(db: Path) -> dict[str, Any]:
    found: dict[str, Any] = json.loads(cli("server", "status", "--db", str(db), "--json").stdout)
    return found


def starts_in_log(db: Path) -> int:
    """How many times a server was started on the store (and so loaded it)."""
    return db.with_name(db.name + ".log").read_text().count("Ready to accept connections")


def test_two_commands_in_a_row_share_one_server_and_the_second_loads_nothing(store_dir: Path) -> None:
    db = store_dir / "warm.db"
    warm = {LINGER_ENV: "60"}
    cli("add", "Dana", "LIVES_IN", "Paris", "--db", str(db), "--scope", "s", env=warm)
    first = status(db)
    assert first["running"] and first["idle_since"] is not None and first["linger_s"] == 60, first
    done = cli("facts", "Dana", "--db", str(db), "--scope", "s", "--json", env=warm)
    assert [f["object"] for f in json.loads(done.stdout)] == ["Paris"]
    assert status(db)["pid"] == first["pid"]  # the same server answered the second command ...
    assert starts_in_log(db) == 1  # ... which started none and loaded nothing
    assert redis_servers_in(store_dir) == {first["pid"]}
    stopped = json.loads(cli("server", "stop", "--db", str(db), "--json").stdout)
    assert stopped == {"store": str(db), "stopped": True, "pid": first["pid"]}
    assert not status(db)["running"] and not alive(first["pid"])
    assert json.loads(cli("server", "stop", "--db", str(db), "--json").stdout)["stopped"] is False
    assert facts_of(db) == {("Dana", "Paris")}


def test_server_stop_is_refused_while_a_client_uses_it(store_dir: Path, clients: list[Client]) -> None:
    db = store_dir / "used.db"
    client = start_client(clients, db)
    pid = client.opened()
    client.send("add a b")
    seen = status(db)
    assert seen["pid"] == pid and seen["idle_since"] is None and seen["stops_in_s"] is None, seen
    text = cli("server", "status", "--db", str(db)).stdout
    assert f"pid {pid}" in text and "in use by a client" in text, text
    refused = cli("server", "stop", "--db", str(db), code=2)
    assert "in use" in refused.stderr and "--force" in refused.stderr, refused.stderr
    assert alive(pid) and client.send("facts")["facts"] == [["a", "b"]]
    cli("server", "stop", "--db", str(db), "--force")
    assert not alive(pid) and not EmbeddedServer(db).running()
    client.finish("kill")
    assert facts_of(db) == {("a", "b")}  # the acknowledged write was kept
    cli("server", "status", "--db", "bolt://127.0.0.1:1", code=2)  # a URL has no server of ours


def test_no_server_outlives_its_linger_counted_from_its_last_client(store_dir: Path) -> None:
    db = store_dir / "linger.db"
    add(db, ("a", "b"))
    pid = EmbeddedServer(db).pid()
    assert pid is not None and alive(pid)  # it lingers
    time.sleep(LINGER_S * 0.6)
    with Memory(db, scope="s") as memory:  # a client within the linger joins it ...
        assert memory.backend.server is not None and memory.backend.server.pid() == pid
        assert [f.object for f in memory.facts()] == ["b"]
    left = time.monotonic()
    time.sleep(LINGER_S * 0.6)
    assert alive(pid)  # ... and the linger counts again from when it left
    assert wait_until(lambda: not alive(pid), LINGER_S + 10)
    assert time.monotonic() - left >= LINGER_S - 0.3


def test_a_linger_of_zero_stops_the_server_with_its_last_client(store_dir: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(LINGER_ENV, "0")
    db = store_dir / "cold.db"
    with Memory(db, scope="s") as memory:
        memory.upsert(Triple(subject="a", predicate="KNOWS", object="b"))
        assert memory.backend.server is not None
        pid = memory.backend.server.pid()
    assert pid is not None and not alive(pid) and not EmbeddedServer(db).running()


def _grow(db: Path, batches: int = 15) -> set[tuple[str, str]]:
    """Write enough to pass the rewrite threshold (1 MiB of incr files)."""
    expected = set()
    with Memory(db, scope="s", max_facts=100_000, max_entities=100_000) as memory:
        for number in range(batches):
            pairs = [(f"subject {number}-{k} " + "x" * 90, f"object {number}-{k}") for k in range(100)]
            memory.upsert([Triple(subject=s, predicate="KNOWS", object=o) for s, o in pairs])
            expected.update(pairs)
    return expected


@pytest.mark.parametrize("linger", ["0", str(LINGER_S)])
def test_a_grown_store_is_folded_into_its_base_and_still_checked(store_dir: Path, linger: str,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(LINGER_ENV, linger)
    db = store_dir / "grown.db"
    aof = db.with_name(db.name + ".aof")
    expected = _grow(db)
    # at close (linger 0), or when the lingering server becomes idle: the incr files are folded into the base
    assert wait_until(lambda: sizes(aof)[0] > 100_000 > sizes(aof)[1], 60), sizes(aof)
    add(db, ("after", "one"))
    add(db, ("after", "two"))
    stop_server(db)
    assert facts_of(db) == expected | {("after", "one"), ("after", "two")}  # the ledger follows the new files
    stop_server(db)
    incr = incr_file(db)
    data = incr.read_bytes()
    incr.write_bytes(data[: data.rindex(b"*3\r\n$12\r\nGRAPH.")])  # cut at a command boundary
    with pytest.raises(StoreDamagedError):
        Memory(db, scope="s")


def test_state_left_by_killed_processes_never_blocks_a_start(store_dir: Path) -> None:
    db = store_dir / "crashed.db"
    add(db, ("a", "b"))
    server = EmbeddedServer(db)
    owner = server.status()
    assert owner.pid is not None and owner.watchdog_pid is not None
    for pid in (owner.watchdog_pid, owner.pid):  # as a crash or a reboot leaves them: nobody cleans up
        os.kill(pid, signal.SIGSTOP)
    for pid in (owner.pid, owner.watchdog_pid):
        os.kill(pid, signal.SIGKILL)
    assert wait_until(lambda: not alive(owner.pid or 0) and not alive(owner.watchdog_pid or 0), 30)
    assert server.socket_path.exists() and server.pid_file.read_text().startswith(str(owner.pid))
    with Memory(db, scope="s") as memory:
        assert memory.backend.server is not None and memory.backend.server.pid() not in (None, owner.pid)
        assert [f.object for f in memory.facts()] == ["b"]
    assert len(redis_servers_in(store_dir)) == 1


# A server on its way out after a kill: its last threads still hold the owner lock, its socket is gone.
EXITING = """
import fcntl, os, sys, time
sys.path.insert(0, sys.argv[2])
from embedded_watchdog import pid_file_text
fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT, 0o644)
fcntl.flock(fd, fcntl.LOCK_EX)
os.ftruncate(fd, 0)
os.pwrite(fd, pid_file_text(os.getpid(), os.getpid(), 2.0, "busy"), 0)
print("held", flush=True)
time.sleep(1.5)
"""


def test_a_client_arriving_while_a_server_exits_waits_for_it_then_starts_one(store_dir: Path) -> None:
    from synapse_graph.backends import embedded_watchdog

    db = store_dir / "exiting.db"
    add(db, ("a", "b"))
    stop_server(db)
    server = EmbeddedServer(db)
    exiting = subprocess.Popen([sys.executable, "-I", "-c", EXITING, str(server.pid_file),
                                str(Path(embedded_watchdog.__file__).parent)], stdout=subprocess.PIPE, text=True)
    try:
        assert exiting.stdout is not None and exiting.stdout.readline() == "held\n"
        assert server.pid() == exiting.pid and not server.socket_path.exists()
        assert facts_of(db) == {("a", "b")}  # it waited for the lock, then started a server of its own
        assert exiting.poll() is not None  # (the server it found was gone first)
    finally:
        exiting.kill()
        exiting.wait(30)


def test_a_killed_watchdog_takes_its_lingering_server_with_it(store_dir: Path) -> None:
    db = store_dir / "orphan.db"
    add(db, ("a", "b"))
    owner = EmbeddedServer(db).status()
    assert owner.pid is not None and owner.watchdog_pid is not None
    os.kill(owner.watchdog_pid, signal.SIGKILL)
    assert wait_until(lambda: not alive(owner.pid or 0), 30)  # the kernel's SIGTERM stops it
    assert facts_of(db) == {("a", "b")}


def test_the_suite_stops_what_processes_with_an_environment_of_their_own_leave_lingering(
        store_dir: Path, clients: list[Client]) -> None:
    from tests.servers import stop_idle_servers

    idle, used = store_dir / "idle.db", store_dir / "used.db"
    plain = {k: v for k, v in os.environ.items() if not k.startswith("SYNAPSE_")}  # as a docs page, an MCP SDK
    subprocess.run([str(CLI), "add", "a", "KNOWS", "b", "--db", str(idle)], env=plain, check=True, timeout=300,
                   capture_output=True)
    assert status(idle)["linger_s"] == 300  # the library's default: minutes
    client = start_client(clients, used)
    pid = client.opened()
    assert stop_idle_servers(store_dir) == {idle}  # after each test (tests/conftest.py)
    assert not EmbeddedServer(idle).running() and EmbeddedServer(used).pid() == pid  # one in use is left alone
    client.finish()
