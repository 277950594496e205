"""The one reader of ``scripts/neo4j-local``: start it, parse what ``env`` prints, ask for its pid.

Tests and benchmarks share it, so the script's output format has a single parser.
"""

from __future__ import annotations

import os
import shlex
import socket
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

SCRIPT = Path(__file__).resolve().parent.parent / "scripts" / "neo4j-local"


def run(command: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """``scripts/neo4j-local <command>``, output captured, never raising on a non-zero exit."""
    return subprocess.run([str(SCRIPT), command], capture_output=True, text=True, timeout=timeout, check=False)


def parse_env(printed: str) -> dict[str, str]:
    """The ``export KEY=VALUE`` lines of ``scripts/neo4j-local env`` as a dict (shell quoting undone)."""
    values: dict[str, str] = {}
    for line in printed.splitlines():
        words = shlex.split(line)
        if len(words) == 2 and words[0] == "export" and "=" in words[1]:
            key, value = words[1].split("=", 1)
            values[key] = value
    return values


def env() -> dict[str, str]:
    """What ``scripts/neo4j-local env`` prints, parsed (the server need not be running)."""
    return parse_env(run("env", timeout=60).stdout)


def start_and_env() -> dict[str, str]:
    """Start the local server (assembling it on first use) and return its ``SYNAPSE_NEO4J_*`` settings."""
    if not SCRIPT.exists():
        raise RuntimeError("scripts/neo4j-local is missing")
    started = run("start", timeout=900)
    if started.returncode != 0:
        raise RuntimeError(f"scripts/neo4j-local start failed:\n{started.stdout[-2000:]}\n{started.stderr[-2000:]}")
    return env()


def pid() -> int | None:
    """The running server's process id, or None."""
    printed = run("pid").stdout.strip()
    return int(printed) if printed.isdigit() else None


def free_port() -> int:
    """A TCP port nothing listens on now (on the loopback interface)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def private_server(home: Path, *, heap: str = "512m", pagecache: str = "64m") -> Iterator[dict[str, str]]:
    """A second, short-lived server for one test module: the shared server's assembled jars, a state dir of its
    own under ``home``, free ports, and no class-data archive (writing one as it stops takes up to minutes).
    Yields its ``SYNAPSE_NEO4J_*`` settings (the HTTP port too); stops it and deletes its state at the end.
    The shared server is never touched."""
    env = {key: value for key, value in os.environ.items() if not key.startswith("SYNAPSE_NEO4J_")}
    http = str(free_port())
    env.update({"SYNAPSE_NEO4J_HOME": str(home), "SYNAPSE_NEO4J_BOLT_PORT": str(free_port()),
                "SYNAPSE_NEO4J_HTTP_PORT": http, "SYNAPSE_NEO4J_HEAP": heap, "SYNAPSE_NEO4J_PAGECACHE": pagecache,
                "SYNAPSE_NEO4J_CDS": "0"})
    started = subprocess.run([str(SCRIPT), "start"], env=env, capture_output=True, text=True, timeout=900,
                             check=False)
    try:
        if started.returncode != 0:
            raise RuntimeError(f"scripts/neo4j-local start (private server) failed:\n{started.stderr[-3000:]}")
        printed = subprocess.run([str(SCRIPT), "env"], env=env, capture_output=True, text=True, timeout=60,
                                 check=True).stdout
        yield {**parse_env(printed), "SYNAPSE_NEO4J_HTTP_PORT": http}
    finally:
        subprocess.run([str(SCRIPT), "wipe"], env=env, capture_output=True, text=True, timeout=300, check=False)
