"""Long-running clients of a lingering server (the inspector, an MCP server): the server stays up while they
run, ``server stop`` refuses to stop it under them, and it lingers, then stops, once they are gone."""

from __future__ import annotations

import fcntl
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from synapse_graph.backends.embedded import LINGER_ENV, EmbeddedServer
from synapse_graph.errors import BackendUnavailableError
from tests.ci import require
from tests.integration.embedded_processes import CLI, LINGER_S, add, alive, facts_of, wait_until
from tests.ui.conftest import free_port

pytestmark = [pytest.mark.integration, pytest.mark.usefixtures("lingering")]


def client_holds(db: Path) -> bool:
    """Whether a client holds the store (its shared lock on the users file), whatever the server's state says."""
    fd = os.open(db.with_name(db.name + ".users"), os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)
    return False


def in_use(db: Path) -> bool:
    """What ``server status`` says: a server runs and a client uses it."""
    status = EmbeddedServer(db).status()
    return status.pid is not None and status.idle_since is None


def held_while_running(db: Path) -> int:
    """While the client runs: the server is in use, outlives its linger, and is not stopped under it."""
    assert wait_until(lambda: client_holds(db), 90)  # the client started (its imports take seconds)
    assert wait_until(lambda: in_use(db), 10)  # and the server's watchdog saw it
    pid = EmbeddedServer(db).pid()
    assert pid is not None
    refused = subprocess.run([str(CLI), "server", "stop", "--db", str(db)], capture_output=True, text=True,
                             timeout=120, check=False, env={**os.environ, LINGER_ENV: str(LINGER_S)})
    assert refused.returncode == 2 and "in use by a client" in refused.stderr, refused.stderr
    with pytest.raises(BackendUnavailableError):
        EmbeddedServer(db).shut_down()
    time.sleep(LINGER_S * 2)  # twice its linger: a client is there, so it stays
    assert EmbeddedServer(db).pid() == pid and alive(pid) and in_use(db)
    return pid


@pytest.mark.timeout(180)
def test_the_inspector_keeps_the_server_until_it_stops(store_dir: Path) -> None:
    httpx = require("httpx")
    require("fastapi")
    db = store_dir / "inspected.db"
    add(db, ("Dana", "Paris"))
    port = free_port()
    inspector = subprocess.Popen([str(CLI), "ui", "--db", str(db), "--scope", "s", "--port", str(port)],
                                 stderr=subprocess.PIPE, text=True)
    try:
        assert inspector.stderr is not None and "inspector at" in inspector.stderr.readline()
        pid = held_while_running(db)
        answer = httpx.get(f"http://127.0.0.1:{port}/api/facts", params={"subject": "Dana"}, timeout=30)
        assert [f["object"] for f in answer.json()] == ["Paris"]  # it still serves, from the same server
    finally:
        inspector.terminate()
        inspector.wait(timeout=60)
    assert wait_until(lambda: not in_use(db), 10) and EmbeddedServer(db).pid() == pid  # closed: it lingers ...
    assert wait_until(lambda: not alive(pid), LINGER_S + 15)  # ... then stops
    assert facts_of(db) == {("Dana", "Paris")}


@pytest.mark.timeout(180)
def test_an_mcp_server_keeps_the_server_and_a_killed_one_lets_it_linger_then_stop(store_dir: Path) -> None:
    db = store_dir / "agent.db"
    add(db, ("Dana", "Paris"))
    mcp = subprocess.Popen([str(CLI), "mcp", "--db", str(db), "--scope", "s"], stdin=subprocess.PIPE,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        pid = held_while_running(db)
    finally:
        os.kill(mcp.pid, signal.SIGKILL)  # a crash: nobody closes anything
        mcp.wait(timeout=60)
    assert wait_until(lambda: not in_use(db), 10) and alive(pid)  # its lock went with it: the server lingers ...
    assert wait_until(lambda: not alive(pid), LINGER_S + 15)  # ... then stops
    assert facts_of(db) == {("Dana", "Paris")}
