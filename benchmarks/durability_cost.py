"""What durability costs: write throughput of embedded FalkorDB by fsync setting, side by side.

``python -m benchmarks.durability_cost [--calls 200] [--batch-sizes 1 10 100] [--rounds 3] [--dir DIR]``

Each setting gets its own database file and server (``SYNAPSE_FALKORDB_FSYNC``, read when
the library starts the server; see ``synapse_graph/backends/embedded.py``):

* ``always``: the default; the append-only file is fsynced before each write is acknowledged;
* ``everysec``: fsynced once a second (a power cut may lose the last second);
* ``off``: no append-only file at all (``appendonly no``; nothing survives a restart).

For each batch size, ``Memory.upsert`` is called with that many new facts per call
(a few subjects shared across calls, a new object each time), and facts per second are
measured. Settings are interleaved round by round so that a busy machine slows them
alike; the median round is reported (and the best one). fsync costs what the disk under ``--dir`` makes it
cost (nothing on tmpfs), so the file system is printed too.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

import redis

from synapse_graph import Memory, Triple
from synapse_graph.backends.embedded import FSYNC_ENV, EmbeddedServer

MODES = ("always", "everysec", "off")
SUBJECTS = 20


def file_system(path: Path) -> str:
    """The type of the file system holding ``path`` (from /proc/mounts), e.g. ext4 or tmpfs."""
    best, kind = "", "unknown"
    try:
        mounts = Path("/proc/mounts").read_text().splitlines()
    except OSError:
        return kind
    resolved = str(path.resolve())
    for line in mounts:
        fields = line.split()
        if len(fields) >= 3 and resolved.startswith(fields[1]) and len(fields[1]) > len(best):
            best, kind = fields[1], fields[2]
    return kind


def fsync_latency_ms(directory: Path, count: int = 200) -> float:
    """Median time of appending 200 bytes and fsyncing, in the benchmark's directory: what ``always`` pays per write."""
    path = directory / "fsync-probe"
    times: list[float] = []
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    try:
        for _ in range(count):
            started = time.perf_counter()
            os.write(fd, b"x" * 200)
            os.fsync(fd)
            times.append(time.perf_counter() - started)
    finally:
        os.close(fd)
        path.unlink()
    return statistics.median(times) * 1_000


def server_settings(db_file: Path) -> dict[str, str]:
    """appendonly/appendfsync as the running server reports them (checks the knob took effect)."""
    client = redis.Redis(unix_socket_path=str(EmbeddedServer(db_file).socket_path), decode_responses=True)
    try:
        found = client.config_get("append*")
    finally:
        client.close()
    return {k: str(found.get(k)) for k in ("appendonly", "appendfsync")}


def open_memory(directory: Path, mode: str) -> Memory:
    previous = os.environ.get(FSYNC_ENV)
    os.environ[FSYNC_ENV] = mode
    try:
        return Memory(directory / f"{mode}.db", scope="bench", max_facts=10_000_000, max_entities=10_000_000)
    finally:
        if previous is None:
            del os.environ[FSYNC_ENV]
        else:
            os.environ[FSYNC_ENV] = previous


def measure(memory: Memory, batch: int, calls: int, tag: str) -> float:
    """Facts per second over ``calls`` upserts of ``batch`` new facts each."""
    batches = [
        [Triple(subject=f"s{(c * batch + i) % SUBJECTS}", predicate="MENTIONS", object=f"{tag}-{c}-{i}")
         for i in range(batch)]
        for c in range(calls)
    ]
    started = time.perf_counter()
    for triples in batches:
        memory.upsert(triples)
    return calls * batch / (time.perf_counter() - started)


def run(directory: Path, batch_sizes: Sequence[int], calls: int, rounds: int, modes: Sequence[str] = MODES
        ) -> dict[tuple[str, int], list[float]]:
    memories = {mode: open_memory(directory, mode) for mode in modes}
    try:
        for mode, memory in memories.items():
            found = server_settings(Path(memory.location))
            expected = {"appendonly": "no"} if mode == "off" else {"appendonly": "yes", "appendfsync": mode}
            assert found | expected == found, f"{mode}: the server runs with {found}"
            measure(memory, 10, 5, "warm-up")
        samples: dict[tuple[str, int], list[float]] = {}
        for round_ in range(rounds):
            for batch in batch_sizes:
                count = calls if batch <= 10 else max(5, calls * 10 // batch)  # fewer calls for big batches
                for mode in modes:
                    samples.setdefault((mode, batch), []).append(
                        measure(memories[mode], batch, count, f"r{round_}b{batch}"))
        return samples
    finally:
        for memory in memories.values():
            memory.close()


def table(samples: dict[tuple[str, int], list[float]], batch_sizes: Sequence[int], modes: Sequence[str] = MODES
          ) -> str:
    """Median facts/s (best round in brackets) per setting, and the ratios of the medians."""
    head = ["facts per call", *(f"{m}: facts/s (best)" for m in modes), "always / everysec", "always / off"]
    rows = [head, ["---"] * len(head)]
    median = {key: statistics.median(values) for key, values in samples.items()}
    for batch in batch_sizes:
        cells = [f"{median[(m, batch)]:,.0f} ({max(samples[(m, batch)]):,.0f})" for m in modes]
        ratio = [f"{median[('always', batch)] / median[(m, batch)]:.2f}"
                 if ("always", batch) in median and (m, batch) in median else "n/a" for m in ("everysec", "off")]
        rows.append([str(batch), *cells, *ratio])
    return "\n".join("| " + " | ".join(row) + " |" for row in rows)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.durability_cost", description=__doc__.split("\n")[0])
    parser.add_argument("--calls", type=int, default=100, help="upserts per measurement at batch sizes 1 and 10")
    parser.add_argument("--batch-sizes", type=int, nargs="+", default=[1, 10, 100])
    parser.add_argument("--rounds", type=int, default=5, help="interleaved rounds; the median is reported")
    parser.add_argument("--dir", type=Path, default=None, help="where the database files go (default: a temp dir)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="durability-cost-", dir=args.dir) as tmp:
        directory = Path(tmp)
        print(f"embedded FalkorDB, databases in {directory} ({file_system(directory)}; write+fsync "
              f"{fsync_latency_ms(directory):.2f} ms), {args.rounds} interleaved rounds", flush=True)
        started = time.perf_counter()
        results = run(directory, args.batch_sizes, args.calls, args.rounds)
    print(table(results, args.batch_sizes))
    print("\nratio = throughput with appendfsync always / throughput with the other setting "
          "(1.00 = durability is free; 0.50 = half as fast)")
    print(f"took {time.perf_counter() - started:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
