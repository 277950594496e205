"""``duplicates()`` of two versions of the library side by side, in turns, over one stored scope.

    python -m benchmarks.duplicates.side_by_side --before <git rev> [--size 100000] [--repeat 3] [--store PATH]

The scope is loaded once (embedded FalkorDB, ``store.synthetic``: the labelled sets and people made of their
names; ``--store`` keeps it for another run). The version at ``--before`` is taken from git into a temporary
folder; each turn runs one ``duplicates()`` in a fresh process of each version, alternating, so both see the
same load. Each reports its wall time, its process's CPU time, the embedded server's CPU time meanwhile (a
server of its own per store: nothing else uses it), the wall time of its database reads, and a hash of its
proposals (the two must agree).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tarfile
import tempfile
import time
from io import BytesIO
from pathlib import Path
from statistics import median
from typing import Any

from benchmarks.duplicates import store
from benchmarks.duplicates.dataset import DEFAULT_SEED, build

ROOT = Path(__file__).resolve().parents[2]
SCOPE = "dupes-side-by-side"
TURN = r"""
import hashlib, json, os, sys, time
from synapse_graph import Memory
auth = (os.environ["SYNAPSE_NEO4J_USER"], os.environ["SYNAPSE_NEO4J_PASSWORD"]) if "://" in sys.argv[1] else None
with Memory(sys.argv[1], scope=sys.argv[2], **({"auth": auth} if auth else {})) as memory:
    backend, spent = memory._backend, [0.0]
    read, many = backend.read, getattr(backend, "read_many", None)
    def timed(call):
        def run(*args):
            started = time.perf_counter()
            try:
                return call(*args)
            finally:
                spent[0] += time.perf_counter() - started
        return run
    backend.read = timed(read)
    if many is not None:
        backend.read_many = timed(many)
    embedded = getattr(backend, "_server", None)
    server = embedded.pid() if embedded is not None else None
    def server_cpu():
        if not server:
            return 0.0
        fields = open(f"/proc/{server}/stat").read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    served, started, cpu = server_cpu(), time.perf_counter(), time.process_time()
    found = memory.duplicates(limit=10**6)
    wall, used, served = time.perf_counter() - started, time.process_time() - cpu, server_cpu() - served
    digest = hashlib.sha256(json.dumps([p.model_dump(mode="json") for p in found]).encode()).hexdigest()[:16]
    scores = hashlib.sha256(json.dumps([(p.canonical, p.other, p.score) for p in found]).encode()).hexdigest()[:16]
    print(json.dumps({"wall_s": round(wall, 2), "cpu_s": round(used, 2), "server_cpu_s": round(served, 2),
                      "reads_wall_s": round(spent[0], 2),
                      "proposals": len(found), "digest": digest, "pairs_scores": scores}))
"""


def checkout(rev: str, into: Path) -> Path:
    """The library's source at ``rev`` (git archive), to import instead of this checkout's."""
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", rev, "synapse_graph", "cypher"], check=True,
                             capture_output=True).stdout
    with tarfile.open(fileobj=BytesIO(archive)) as tar:
        tar.extractall(into, filter="data")
    return into


def turn(source: Path, where: str, scope: str) -> dict[str, Any]:
    env = {**os.environ, "PYTHONPATH": str(source)}
    if "://" in where:
        from benchmarks.targets import neo4j_settings

        _, (user, password) = neo4j_settings()
        env |= {"SYNAPSE_NEO4J_USER": user, "SYNAPSE_NEO4J_PASSWORD": password}
    done = subprocess.run([sys.executable, "-c", TURN, where, scope], check=True, capture_output=True, text=True,
                          env=env, cwd=str(source))
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


def loaded(size: int, where: str | None, scope: str) -> str:
    """A stored scope of ``size`` entities (made now unless ``where`` holds one already)."""
    from synapse_graph import Memory

    path = where or f"{tempfile.mkdtemp(prefix='dupes-sbs-')}/memory.db"
    labelled = [build(name, DEFAULT_SEED) for name in ("yago11k", "wikidata12k")]
    written, entities = store.synthetic(labelled if size > 12_000 else labelled[:1], size)
    options: dict[str, Any] = {}
    if path == "neo4j":
        from benchmarks.targets import neo4j_settings

        path, options["auth"] = neo4j_settings()
    with Memory(path, scope=scope, max_entities=entities * 2 + 1_000, max_facts=entities * 6 + 10_000,
                **options) as memory:
        if memory.stats().entities >= entities:
            return path
        seconds = store.load(memory, written)
        print(json.dumps({"loaded_entities": memory.stats().entities, "load_s": round(seconds, 1)}), flush=True)
    return path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--before", required=True, help="the git revision to compare this checkout with")
    parser.add_argument("--size", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--store", help="an embedded store file to keep (made if missing), or neo4j: a scope on the "
                        "Neo4j server of SYNAPSE_NEO4J_* or scripts/neo4j-local (kept: purge it after)")
    parser.add_argument("--scope", default=SCOPE, help="the scope of an existing --store")
    args = parser.parse_args(argv)
    where = loaded(args.size, args.store, args.scope)
    with tempfile.TemporaryDirectory(prefix="dupes-before-") as folder:
        versions = {"before": checkout(args.before, Path(folder)), "after": ROOT}
        runs: dict[str, list[dict[str, Any]]] = {name: [] for name in versions}
        for n in range(args.repeat):
            for name in (("before", "after") if n % 2 == 0 else ("after", "before")):
                runs[name].append(turn(versions[name], where, args.scope))
                print(json.dumps({"version": name, **runs[name][-1]}), flush=True)
    summary = {name: {key: median(r[key] for r in rows) for key in ("wall_s", "cpu_s", "server_cpu_s",
                                                                                    "reads_wall_s")}
               for name, rows in runs.items()}
    digests = {r["digest"] for rows in runs.values() for r in rows}
    scores = {r.get("pairs_scores") for rows in runs.values() for r in rows}
    print(json.dumps({"size": args.size, "before": args.before, "median": summary, "same_proposals": len(digests) == 1,
                      "same_pairs_and_scores": len(scores) == 1,
                      "load_average": os.getloadavg(), "at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
