"""Processes and stores for the embedded-server tests (not a test module): clients, servers, damaged files."""

from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

from synapse_graph import Memory, Triple
from synapse_graph.backends.embedded import EmbeddedServer

CLI = Path(sys.executable).with_name("synapse-graph")
LINGER_S = 2.0  # the linger of the servers these tests start: short, so that waiting for one to stop is cheap

# A client process: opens a Memory on argv[1], then obeys one command per line on stdin.
CLIENT = r"""
import json, os, sys
from synapse_graph import Memory, Triple

def say(**fields):
    print(json.dumps(fields), flush=True)

try:
    memory = Memory(sys.argv[1], scope="s")
except Exception as exc:
    say(error=type(exc).__name__, message=str(exc))
    sys.exit(3)
say(opened=True, pid=memory.backend.server.pid())
for line in sys.stdin:
    command, *args = line.split()
    if command == "add":
        memory.upsert(Triple(subject=args[0], predicate="KNOWS", object=args[1]))
        say(ok=True)
    elif command == "facts":
        say(facts=sorted([f.subject, f.object] for f in memory.facts()))
    elif command == "pid":
        say(pid=memory.backend.server.pid())
    elif command == "abandon":  # exit without closing anything
        os._exit(0)
    elif command == "close":
        memory.close()
        say(closed=True)
        sys.exit(0)
"""


class Client:
    """A Python process holding a Memory on a store, driven line by line."""

    def __init__(self, db: Path, env: dict[str, str] | None = None) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-c", CLIENT, os.fsencode(db)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, env={**os.environ, **(env or {})},
        )
        self._lines: queue.Queue[bytes] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self._lines.put(line)

    def reply(self, timeout: float = 180) -> dict[str, Any]:
        try:
            answer: dict[str, Any] = json.loads(self._lines.get(timeout=timeout))
        except queue.Empty:
            raise AssertionError(f"client {self.process.pid} did not answer within {timeout} s") from None
        assert "error" not in answer, answer
        return answer

    def send(self, line: str) -> dict[str, Any]:
        self.write(line)
        return self.reply()

    def write(self, line: str) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(line.encode() + b"\n")
        self.process.stdin.flush()

    def opened(self) -> int:
        return int(self.reply()["pid"])

    def finish(self, how: str = "close") -> None:
        if how == "kill":
            os.kill(self.process.pid, signal.SIGKILL)
        else:
            self.write(how)
        assert self.process.wait(timeout=120) in (0, -signal.SIGKILL)


# -- processes ----------------------------------------------------------------------------------------------


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state not in ("Z", "X")


def servers_in(directory: Path) -> set[int]:
    """Pids of redis-server and watchdog processes running in ``directory`` (or below)."""
    prefix = os.fsencode(directory)
    found = set()
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            cwd = os.readlink(f"/proc/{entry}/cwd".encode())
            command = Path(f"/proc/{entry}/cmdline").read_bytes()
        except OSError:
            continue
        if cwd.startswith(prefix) and (b"redis-server" in command or b"embedded_watchdog" in command) \
                and alive(int(entry)):
            found.add(int(entry))
    return found


def redis_servers_in(directory: Path) -> set[int]:
    return {pid for pid in servers_in(directory) if os.readlink(f"/proc/{pid}/exe").endswith("redis-server")}


def wait_until(condition: Any, timeout: float = 60) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return bool(condition())


def start_client(clients: list[Client], db: Path, env: dict[str, str] | None = None) -> Client:
    client = Client(db, env)
    clients.append(client)
    return client


def facts_of(db: Path) -> set[tuple[str, str]]:
    with Memory(db, scope="s") as memory:
        return {(f.subject, f.object) for f in memory.facts(limit=100_000)}


def add(db: Path, *pairs: tuple[str, str]) -> None:
    with Memory(db, scope="s") as memory:
        memory.upsert([Triple(subject=s, predicate="KNOWS", object=o) for s, o in pairs])


def stop_server(db: Path) -> None:
    """Stop the store's lingering server (as `synapse-graph server stop` does): its files are then at rest."""
    EmbeddedServer(db).shut_down()


def populate(db: Path, batches: int = 40) -> set[tuple[str, str]]:
    """Write ``batches`` batches of 3 facts, then stop the server: the store's files are at rest."""
    expected = set()
    with Memory(db, scope="s") as memory:
        for number in range(batches):
            pairs = [(f"s{number}", f"o{number}-{k}") for k in range(3)]
            memory.upsert([Triple(subject=s, predicate="KNOWS", object=o) for s, o in pairs])
            expected.update(pairs)
    stop_server(db)
    return expected


def aof_files(db: Path) -> dict[str, bytes]:
    directory = db.with_name(db.name + ".aof")
    return {p.name: p.read_bytes() for p in sorted(directory.iterdir())}


def incr_file(db: Path) -> Path:
    (incr,) = db.with_name(db.name + ".aof").glob("*.incr.aof")
    return incr
