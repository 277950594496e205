"""Measuring instruments: latency summaries, ratios, per-statement timing, CPU and memory of processes."""

from __future__ import annotations

import contextlib
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from synapse_graph import Memory

REPO = Path(__file__).resolve().parent.parent


def summary(samples: Sequence[float]) -> dict[str, float]:
    """Median, p95 and mean of latencies in seconds, reported in milliseconds."""
    if not samples:
        return {"n": 0, "median_ms": math.nan, "p95_ms": math.nan, "mean_ms": math.nan}
    ordered = sorted(samples)
    p95 = ordered[max(0, math.ceil(0.95 * len(ordered)) - 1)]
    return {
        "n": len(ordered),
        "median_ms": round(statistics.median(ordered) * 1e3, 3),
        "p95_ms": round(p95 * 1e3, 3),
        "mean_ms": round(statistics.fmean(ordered) * 1e3, 3),
    }


def ratio(ours: float, theirs: float) -> float | None:
    if not theirs or math.isnan(ours) or math.isnan(theirs):
        return None
    return round(ours / theirs, 3)


def server_ms(reply: Any) -> float | None:
    """FalkorDB's own execution time of a ``GRAPH.*`` reply (its ``Query internal execution time``), in ms."""
    with contextlib.suppress(Exception):
        for line in reply[-1]:
            text = line.decode() if isinstance(line, bytes) else str(line)
            if text.startswith("Query internal execution time"):
                return float(text.split(":")[1].split()[0])
    return None


class TimedBackend:
    """Wraps a Memory's backend to time each named statement (client side, round trip included).

    Writes run inside :meth:`locked` (the scope's write lock): its acquisition and release are
    timed as the statements ``lock: acquire`` and ``lock: release`` (on Neo4j the release is
    the transaction's commit), and the statements run under it are timed like the others. On
    FalkorDB the lock is taken with a write's first read and released with its last statement, in
    their round trips: their times include it, and ``lock: acquire``/``release`` are what is left.
    On FalkorDB it also sums the server's own execution time of each statement (the
    ``Query internal execution time`` of the reply), so a round trip splits into server work
    and the rest (client encoding of parameters, transfer, parsing the reply).
    """

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.seconds: dict[str, float] = defaultdict(float)
        self.server: dict[str, float] = defaultdict(float)
        self.calls: dict[str, int] = defaultdict(int)
        self.rows: dict[str, int] = defaultdict(int)
        self.current = ""
        client = getattr(inner, "_client", None)
        if getattr(inner, "dialect", "") == "falkordb" and hasattr(client, "execute_command"):
            client.execute_command = self._server_timed(client.execute_command)
            client.pipeline = self._pipelines_timed(client.pipeline)

    def _count_server(self, reply: Any) -> None:
        taken = server_ms(reply) if isinstance(reply, list) and reply else None
        if taken is not None:
            self.server[self.current] += taken / 1e3

    def _server_timed(self, call: Callable[..., Any]) -> Callable[..., Any]:
        def timed(*args: Any, **kwargs: Any) -> Any:
            result = call(*args, **kwargs)
            if args and str(args[0]).startswith("GRAPH."):
                self._count_server(result)
            return result

        return timed

    def _pipelines_timed(self, make: Callable[..., Any]) -> Callable[..., Any]:
        """Pipelines (a lock's script with a statement, independent reads) whose statements' server times count."""
        def pipeline(*args: Any, **kwargs: Any) -> Any:
            pipe = make(*args, **kwargs)
            execute = pipe.execute

            def timed_execute(*a: Any, **k: Any) -> Any:
                replies = execute(*a, **k)
                for reply in replies:
                    self._count_server(reply)
                return replies

            pipe.execute = timed_execute
            return pipe

        return pipeline

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def _add(self, name: str, seconds: float, rows: int = 0) -> None:
        self.seconds[name] += seconds
        self.calls[name] += 1
        self.rows[name] += rows

    def _timed(self, call: Callable[[str, Any], list[dict[str, Any]]], name: str, params: Any) -> list[dict[str, Any]]:
        started = time.perf_counter()
        self.current = str(name)
        rows: list[dict[str, Any]] = []
        try:
            rows = call(name, params)
        finally:
            self._add(str(name), time.perf_counter() - started, len(rows))
        return rows

    def read(self, name: str, params: Any) -> list[dict[str, Any]]:
        return self._timed(self.inner.read, name, params)

    def write(self, name: str, params: Any) -> list[dict[str, Any]]:
        return self._timed(self.inner.write, name, params)

    def read_many(self, requests: list[tuple[str, Any]]) -> list[list[dict[str, Any]]]:
        """Reads the backend runs together, timed as one entry named after them all (``a + b``)."""
        name = " + ".join(str(n) for n, _ in requests)
        started = time.perf_counter()
        self.current = name
        found: list[list[dict[str, Any]]] = []
        try:
            found = self.inner.read_many(requests)
        finally:
            self._add(name, time.perf_counter() - started, sum(len(rows) for rows in found))
        return found

    @contextlib.contextmanager
    def locked(self, scope: str, init: Any, timeout: float) -> Iterator[_TimedSession]:
        started = time.perf_counter()
        self.current = "lock: acquire"
        manager = self.inner.locked(scope, init, timeout)
        session = manager.__enter__()
        self._add("lock: acquire", time.perf_counter() - started)
        failed = True
        try:
            yield _TimedSession(self, session)
            failed = False
        finally:
            started = time.perf_counter()
            self.current = "lock: release"
            try:
                if failed:
                    manager.__exit__(*sys.exc_info())
                else:
                    manager.__exit__(None, None, None)
            finally:
                self._add("lock: release", time.perf_counter() - started)

    def reset(self) -> dict[str, dict[str, float | None]]:
        taken = {
            name: {"seconds": round(self.seconds[name], 4), "calls": self.calls[name], "rows": self.rows[name],
                   "server_exec_seconds": round(self.server[name], 4) if name in self.server else None}
            for name in sorted(self.seconds, key=lambda n: -self.seconds[n])
        }
        self.seconds.clear()
        self.server.clear()
        self.calls.clear()
        self.rows.clear()
        return taken


class _TimedSession:
    """A locked session whose statements the probe times."""

    def __init__(self, probe: TimedBackend, inner: Any) -> None:
        self.probe, self.inner = probe, inner

    def read(self, name: str, params: Any) -> list[dict[str, Any]]:
        return self.probe._timed(self.inner.read, name, params)

    def write(self, name: str, params: Any) -> list[dict[str, Any]]:
        return self.probe._timed(self.inner.write, name, params)

    def write_last(self, name: str, params: Any) -> list[dict[str, Any]]:
        """A write that may release the lock with it (FalkorDB), timed as a statement."""
        return self.probe._timed(self.inner.write_last, name, params)

    def read_many(self, requests: list[tuple[str, Any]]) -> list[list[dict[str, Any]]]:
        return [self.read(n, p) for n, p in requests]


def timed_backend(memory: Memory) -> TimedBackend:
    timed = TimedBackend(memory.backend)
    memory._backend = timed  # the benchmark's probe, not library code
    return timed


# -- backends ----------------------------------------------------------------------------------------


def dir_bytes(path: Path) -> int:
    if path.is_file():
        return path.stat().st_size
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file()) if path.exists() else 0


def rss(pid: int | None) -> int | None:
    """Resident set size of a process: psutil (the ``bench`` extra) if installed, else /proc."""
    if pid is None:
        return None
    try:
        import psutil

        return int(psutil.Process(pid).memory_info().rss)
    except ImportError:
        pass
    except Exception:
        return None
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    return None


CPU_KEYS = ("ours_client", "ours_server", "raw_client", "raw_server")


def server_cpu(pid: int | None) -> float:
    """User + system CPU seconds a process has used (0 when unknown): robust to a busy machine, unlike wall time."""
    if pid is None:
        return 0.0
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return 0.0


def cpu_per_1000(cpu: dict[str, float], before: dict[str, float], writes: int) -> dict[str, float]:
    return {k: round(1000 * (cpu[k] - before.get(k, 0.0)) / max(writes, 1), 4) for k in CPU_KEYS}


def _git(tree: Path, *args: str) -> str:
    done = subprocess.run(["git", "-C", str(tree), *args], capture_output=True, text=True, check=False)
    return done.stdout.strip()


def library_info() -> dict[str, Any]:
    """Which synapse-graph was measured: its folder, the repository's commit and whether the tree differs."""
    import synapse_graph

    module = Path(synapse_graph.__file__).resolve().parent
    # Named without the machine's folders: the repository's own copy, or another checkout or snapshot.
    shown = "synapse_graph" if module.parent == REPO else f"synapse_graph (copy in {module.parent.name}/)"
    snapshot = module.parent / "SNAPSHOT"  # a `git archive <commit>` copy measured while the tree changes
    if snapshot.is_file():
        return {"module": shown, "commit": snapshot.read_text().strip(), "source": "git archive snapshot"}
    changed = _git(REPO, "status", "--porcelain", "--", "synapse_graph", "cypher").splitlines()
    return {"module": shown, "commit": _git(REPO, "rev-parse", "--short", "HEAD"),
            "source": f"working tree, {len(changed)} library files differ from the commit"}


def tree_commit(tree: Path) -> str:
    """A checkout of the code (one a harness compares with) as results name it, never by its folder (the
    machine's): its commit (``git rev-parse``; a ``git archive`` copy's SNAPSHOT file), ``+N changed`` when N of
    its library files differ from it; another folder by :func:`shown_path`."""
    snapshot = tree / "SNAPSHOT"
    if snapshot.is_file():
        return snapshot.read_text().strip()
    commit = _git(tree, "rev-parse", "--short", "HEAD")
    if not commit:
        return f"{shown_path(tree)} (no commit: not a git checkout)"
    changed = _git(tree, "status", "--porcelain", "--", "synapse_graph", "cypher").splitlines()
    return f"{commit} +{len(changed)} changed" if changed else commit


def shown_path(path: Path | str) -> str:
    """A path as results show it, without the machine's folders: relative to the repository, ``<tmp>/...`` under
    the temporary directory, ``~/...`` under the home directory, else its last folder and name."""
    resolved = Path(path).expanduser().resolve()
    for root, shown in ((REPO, ""), (Path(tempfile.gettempdir()).resolve(), "<tmp>/"), (Path.home().resolve(), "~/")):
        if resolved.is_relative_to(root) and resolved != root:
            return shown + resolved.relative_to(root).as_posix()
    return "/".join(resolved.parts[-2:]) if len(resolved.parts) > 2 else resolved.name


def machine_tag() -> str:
    memory_gib = round(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30)
    return f"{os.cpu_count()}cpu-{memory_gib}g"
