"""scripts/neo4j-local stops its server promptly and cleanly, and its class-data archive is written once.

A second, private server (its own state dir, free ports, a small heap, a cache of its own that
shares the assembled jars) is started and stopped twice: the first clean stop lets the JVM
write the class-data-sharing archive (and says so) instead of killing it at a timeout; the
next start maps that archive, and its stop has nothing left to write. The shared server of
the test run is never touched.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from benchmarks.neo4j_local import free_port
from tests.ci import unavailable

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "neo4j-local"


def _version() -> str:
    found = re.search(r"^NEO4J_VERSION=(\S+)$", SCRIPT.read_text(encoding="utf-8"), re.MULTILINE)
    assert found
    return found.group(1)


class Server:
    def __init__(self, env: dict[str, str], dist: Path) -> None:
        self.env = env
        self.dist = dist

    def __call__(self, command: str, **extra: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([str(SCRIPT), command], env={**self.env, **extra}, capture_output=True, text=True,
                              timeout=600, check=False)

    def started(self) -> int:
        result = self("start")
        assert result.returncode == 0, result.stderr[-3000:]
        return int(self("pid").stdout.strip())


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    for tool in ("java", "curl"):
        if not shutil.which(tool):
            unavailable(f"{tool} is missing")
    home = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    shared_dist = Path(os.environ.get("SYNAPSE_CACHE_DIR") or home / "synapse-graph") / f"neo4j-{_version()}"
    if not (shared_dist / ".complete").exists():
        assembled = subprocess.run([str(SCRIPT), "assemble"], capture_output=True, text=True, timeout=900, check=False)
        if assembled.returncode != 0:
            unavailable(f"scripts/neo4j-local assemble failed: {assembled.stderr[-2000:]}")
    # A cache of its own (so no archive exists yet) that uses the assembled jars.
    dist = tmp_path / "cache" / shared_dist.name
    dist.mkdir(parents=True)
    (dist / "lib").symlink_to(shared_dist / "lib")
    shutil.copy(shared_dist / "VERSION", dist / "VERSION")
    (dist / ".complete").touch()
    env = {key: value for key, value in os.environ.items() if not key.startswith("SYNAPSE_NEO4J_")}
    env.update({
        "SYNAPSE_CACHE_DIR": str(tmp_path / "cache"), "SYNAPSE_NEO4J_HOME": str(tmp_path / "state"),
        "SYNAPSE_NEO4J_BOLT_PORT": str(free_port()), "SYNAPSE_NEO4J_HTTP_PORT": str(free_port()),
        "SYNAPSE_NEO4J_HEAP": "512m", "SYNAPSE_NEO4J_PAGECACHE": "64m",
    })
    instance = Server(env, dist)
    try:
        yield instance
    finally:
        instance("stop")


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


@pytest.mark.timeout(900)
def test_stop_is_clean_and_the_class_data_archive_is_written_once(server: Server) -> None:
    pid = server.started()
    assert server("status").returncode == 0
    stopped = server("stop")
    assert stopped.returncode == 0, stopped.stderr
    assert "SIGKILL" not in stopped.stderr, stopped.stderr
    assert "writes its class-data archive" in stopped.stderr and f"stopped (pid {pid})" in stopped.stderr
    assert not _alive(pid) and server("status").returncode == 3
    [dump] = (server.dist / "cds").glob(f"*.jsa.{pid}")
    assert dump.stat().st_size > 1_000_000  # written whole, not killed half-way

    pid = server.started()
    [archive] = (server.dist / "cds").glob("*.jsa")  # adopted by this start, and mapped by the JVM
    assert f"-XX:SharedArchiveFile={archive}" in Path(f"/proc/{pid}/cmdline").read_text().split("\0")
    stopped = server("stop")
    assert stopped.returncode == 0 and "SIGKILL" not in stopped.stderr, stopped.stderr
    assert "class-data archive" not in stopped.stderr and f"stopped (pid {pid})" in stopped.stderr
    assert not _alive(pid)
