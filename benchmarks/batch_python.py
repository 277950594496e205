"""Python's share of a batched write, previous code against this code, side by side (issue 34).

``python -m benchmarks.batch_python --size 20k --baseline-src DIR [--backend falkordb|neo4j] [--probes 30]``

``DIR`` holds the previous code (``git archive <commit> | tar -x -C DIR``). Two worker processes, one importing
the library from ``DIR``, the other from this tree, each load the same generated stream (``generate.py``) into a
store of their own (embedded FalkorDB: a server each; Neo4j: a scope each), ``Memory.upsert`` in batches of 1,000
alongside the raw baseline (``baseline.py``) on the same server. Then ``--probes`` further batches go to both, in
turns (which goes first alternates). For each probe batch a worker reports its own process CPU (the Python share:
validation, redaction, planning, rows, encoding, reading replies) and wall time for ``upsert``, and the same for
the raw batch. Reported: medians per side, the ratio new / old of the client CPU, and raw / ours wall (the
harness's "ratio to the raw batch").
"""

from __future__ import annotations

import argparse
import json
import os
import pickle
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

BATCH = 1_000


def _worker(spec_path: str) -> None:  # runs with the library under test first on sys.path
    from synapse_graph import Memory, Triple

    harness, spec_file = spec_path.split(os.pathsep, 1)
    sys.path.insert(0, harness)  # the raw baseline of this tree, whatever library is first
    from benchmarks.baseline import FalkorRaw, Neo4jRaw, drop_neo4j_scope

    spec = pickle.loads(Path(spec_file).read_bytes())

    writes, raw_batches = spec["writes"], spec["raw_batches"]
    auth = tuple(spec["auth"]) if spec["auth"] else None
    memory = Memory(spec["location"], scope=spec["scope"], auth=auth, max_facts=len(writes) * 2 + 1_000,
                    max_entities=spec["entities"] * 2 + 1_000, single_valued=frozenset(spec["single_valued"]))
    server_pid = None
    if spec["backend"] == "falkordb":
        raw: Any = FalkorRaw(memory.backend.server.connect_path, spec["scope"] + "-raw")  # type: ignore[attr-defined]
        server_pid = memory.backend.server.pid()  # type: ignore[attr-defined]
    else:
        raw = Neo4jRaw(spec["location"], auth, spec["scope"] + "-raw")

    def server_cpu() -> float:  # user + system seconds of the embedded server (0 on Neo4j: shared)
        if server_pid is None:
            return 0.0
        fields = Path(f"/proc/{server_pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def batch(index: int) -> dict[str, float]:
        before = time.process_time()  # the caller's Triples too: no work may move out of the upsert unseen
        triples = [Triple(subject=s, predicate=p, object=o, valid_at=v)
                   for s, p, o, v in writes[index * BATCH:(index + 1) * BATCH]]
        cpu, began, server = time.process_time(), time.perf_counter(), server_cpu()
        memory.upsert(triples)
        ours = {"ours_cpu": time.process_time() - cpu, "ours_wall": time.perf_counter() - began,
                "ours_cpu_with_triples": time.process_time() - before, "ours_server_cpu": server_cpu() - server}
        cpu, began, server = time.process_time(), time.perf_counter(), server_cpu()
        raw.write(raw_batches[index], datetime.now(UTC))
        return {**ours, "raw_cpu": time.process_time() - cpu, "raw_wall": time.perf_counter() - began,
                "raw_server_cpu": server_cpu() - server}

    print(json.dumps({"ready": True}), flush=True)
    for line in sys.stdin:
        command = json.loads(line)
        if command["do"] == "load":
            for index in range(command["from"], command["to"]):
                batch(index)
            print(json.dumps({"loaded": command["to"]}), flush=True)
        elif command["do"] == "probe":
            print(json.dumps(batch(command["index"])), flush=True)
        elif command["do"] == "stop":
            stats = memory.stats()
            if spec["backend"] == "neo4j":
                memory.purge(scope=spec["scope"])
                drop_neo4j_scope(raw._driver, spec["scope"])  # what purge keeps: the scope's node and rules
                raw.drop()
            raw.close()
            memory.close()
            print(json.dumps({"facts": stats.facts, "entities": stats.entities}), flush=True)
            return


def _start(src: Path, spec: dict[str, Any], workdir: Path, name: str) -> subprocess.Popen[str]:
    path = workdir / f"{name}.spec"
    path.write_bytes(pickle.dumps(spec))
    env = {**os.environ, "PYTHONPATH": str(src), "SYNAPSE_FALKORDB_LINGER": "0"}
    where = spec["harness"] + os.pathsep + str(path)
    worker = subprocess.Popen([sys.executable, __file__, "--worker", where], env=env, cwd=workdir, text=True,
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert worker.stdout is not None
    json.loads(worker.stdout.readline())
    return worker


def _ask(worker: subprocess.Popen[str], command: dict[str, Any]) -> dict[str, Any]:
    assert worker.stdin is not None and worker.stdout is not None
    worker.stdin.write(json.dumps(command) + "\n")
    worker.stdin.flush()
    answer: dict[str, Any] = json.loads(worker.stdout.readline())
    return answer


def run(size: int, backend: str, baseline_src: Path, probes: int, workroot: Path,
        new_src: Path | None = None) -> dict[str, Any]:
    from benchmarks.baseline import plan_batches
    from benchmarks.generate import generate
    from benchmarks.targets import neo4j_settings

    total = size + probes * BATCH
    dataset = generate(total, seed=20_260_101, questions=1, neighbourhoods=1)
    writes = [(w.subject, w.predicate, w.object, w.valid_at) for w in dataset.writes]
    url, auth = neo4j_settings() if backend == "neo4j" else ("", None)
    raw_batches = plan_batches(dataset.writes, BATCH, native_times=backend == "neo4j")
    tag = uuid.uuid4().hex[:8]
    here = Path(__file__).resolve().parent.parent
    workdir = Path(tempfile.mkdtemp(prefix="batch-python-", dir=workroot))
    workers = {}
    for name, src in (("old", baseline_src), ("new", new_src or here)):
        location = url if backend == "neo4j" else str(workdir / name / "bench.db")
        (workdir / name).mkdir()
        spec = {"harness": str(here), "backend": backend, "location": location, "auth": auth,
                "scope": f"batch-py-{name}-{tag}", "writes": writes, "raw_batches": raw_batches,
                "entities": dataset.entities, "single_valued": sorted(dataset.single_valued)}
        workers[name] = _start(src, spec, workdir, name)
    began = time.perf_counter()
    for worker in workers.values():  # both load at once
        assert worker.stdin is not None
        worker.stdin.write(json.dumps({"do": "load", "from": 0, "to": size // BATCH}) + "\n")
        worker.stdin.flush()
    for worker in workers.values():
        assert worker.stdout is not None
        json.loads(worker.stdout.readline())
    load_s = time.perf_counter() - began
    loads = [os.getloadavg()[0]]
    rows: dict[str, list[dict[str, float]]] = {"old": [], "new": []}
    for probe in range(probes):
        index = size // BATCH + probe
        for name in ("old", "new") if probe % 2 == 0 else ("new", "old"):
            rows[name].append(_ask(workers[name], {"do": "probe", "index": index}))
        loads.append(os.getloadavg()[0])
    counts = {name: _ask(worker, {"do": "stop"}) for name, worker in workers.items()}
    for worker in workers.values():
        worker.wait(timeout=120)
    shutil.rmtree(workdir, ignore_errors=True)  # the stores (Neo4j scopes were purged by their workers)

    def median(name: str, key: str) -> float:
        return statistics.median(r[key] for r in rows[name]) * 1e3

    keys = ("ours_cpu", "ours_cpu_with_triples", "ours_wall", "ours_server_cpu",
            "raw_cpu", "raw_wall", "raw_server_cpu")
    sides = {name: {key + "_ms_median": median(name, key) for key in keys} for name in rows}
    for name in rows:
        sides[name]["raw_over_ours_wall"] = statistics.median(r["raw_wall"] / r["ours_wall"] for r in rows[name])
    per_batch = [n["ours_cpu"] / o["ours_cpu"] for o, n in zip(rows["old"], rows["new"], strict=True)]
    return {"size": size, "backend": backend, **sources(baseline_src, new_src or here), "batch": BATCH,
            "probes": probes, "load_s": load_s,
            "old": sides["old"], "new": sides["new"], "counts": counts,
            "client_cpu_ratio_new_over_old": sides["new"]["ours_cpu_ms_median"] / sides["old"]["ours_cpu_ms_median"],
            "client_cpu_ratio_per_batch_median": statistics.median(per_batch),
            "load_average": {"min": min(loads), "max": max(loads)}, "cpus": os.cpu_count(), "rows": rows}


def sources(old: Path, new: Path) -> dict[str, str]:
    """The two trees compared, as the results name them: by commit, never by folder (``measure.tree_commit``)."""
    from benchmarks.measure import tree_commit

    return {"old_src": tree_commit(old), "new_src": tree_commit(new)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    parser.add_argument("--size", default="20k")
    parser.add_argument("--backend", choices=("falkordb", "neo4j"), default="falkordb")
    parser.add_argument("--baseline-src", type=Path)
    parser.add_argument("--new-src", type=Path, help="the code to compare (default: this tree)")
    parser.add_argument("--probes", type=int, default=30)
    parser.add_argument("--workroot", type=Path, default=Path(tempfile.gettempdir()))
    parser.add_argument("--out", type=Path)
    args = parser.parse_args(argv)
    if args.worker:
        _worker(args.worker)
        return 0
    size = int(args.size.lower().replace("k", "000").replace("m", "000000"))
    result = run(size, args.backend, args.baseline_src, args.probes, args.workroot, args.new_src)
    text = json.dumps(result, indent=1, default=str)
    if args.out:
        args.out.write_text(text + "\n")
    summary = {k: v for k, v in result.items() if k != "rows"}
    print(json.dumps(summary, indent=1, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
