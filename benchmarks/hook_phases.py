"""The hooks on a warm server, two code trees side by side, with where SessionStart's time goes (issue 34).

    python -m benchmarks.hook_phases --store PATH/store.db --before-src OLD_CHECKOUT [--runs 15] [--mode MODE]
        [--out results.json]

Copies the store twice (its AOF directory): one copy served by ``--before-src`` (a checkout, run with
``PYTHONPATH``), one by this tree, each by its own lingering server (the first command on each starts it;
this tree's first open upgrades an older store format, timed apart). Then, round-robin so that the machine's
load falls on both alike, ``--runs`` times:

* ``wall`` (default): ``synapse-graph hook session-start`` as Claude Code runs it: wall-clock and the hook
  process's own CPU; the first output of each tree is kept, to compare;
* ``profile``: the same hook run in a child process that times itself: its imports, the rest of the process
  (interpreter start and exit), and, inside, every ``Memory`` call and every statement by name;
* ``offloads``: PreCompact and Stop (a fake model on loopback), each until its offload job is logged done.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks.measure import shown_path, tree_commit
from benchmarks.warm_open import SCOPE, extractor, reported, summary, transcript, wait_for_job
from synapse_graph.testing import FakeModelServer

THIS = Path(__file__).resolve().parents[1]

# The hook in a process that times itself (run with the tree's PYTHONPATH): one JSON line on stdout.
_PROFILE = r"""
import time
began = time.perf_counter()
import io, json, sys
from synapse_graph.hooks import commands
imported = time.perf_counter()
from synapse_graph.engine import io as engine_io
import synapse_graph.memory as memory_module
events = []

def timed(label, call, *args, **kwargs):
    start = time.perf_counter()
    try:
        return call(*args, **kwargs)
    finally:
        events.append((label, time.perf_counter() - start))

class Timed:
    def __init__(self, inner):
        self.inner = inner
    def __getattr__(self, name):
        return getattr(self.inner, name)
    def read(self, name, params):
        return timed(f"read {name}", self.inner.read, name, params)
    def read_many(self, requests):
        return timed("read " + "+".join(n for n, _ in requests), self.inner.read_many, requests)
    def write(self, name, params):
        return timed(f"write {name}", self.inner.write, name, params)
    def write_last(self, name, params):
        return timed(f"write {name}", self.inner.write_last, name, params)

drive = engine_io.drive
engine_io.drive = memory_module.drive = lambda op, runner, embedder: drive(op, Timed(runner), embedder)

def wrap(owner, name, label):
    call = getattr(owner, name)
    setattr(owner, name, lambda *args, **kwargs: timed(label, call, *args, **kwargs))

wrap(memory_module.Memory, "__init__", "Memory(): open")
for name in ("digest", "recall", "sessions", "changes", "register_session", "close"):
    wrap(memory_module.Memory, name, f"Memory.{name}")
out, err = io.StringIO(), io.StringIO()
start = time.perf_counter()
commands.run("session-start", io.StringIO(sys.argv[1]), out, err)
print(json.dumps({"imports_s": imported - began, "run_s": time.perf_counter() - start, "events": events,
                  "error": err.getvalue()[-500:]}))
"""


class Tree:
    def __init__(self, name: str, source: Path, store: Path, work: Path, model_url: str) -> None:
        self.name, self.source, self.store = name, source, store
        self.env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}  # .pyc cached
        self.env.update({"PYTHONPATH": str(source), "SYNAPSE_DB": str(store), "SYNAPSE_SCOPE": SCOPE,
                         "SYNAPSE_FALKORDB_LINGER": "3600", "SYNAPSE_HOOK_STATE": str(work / f"state-{name}"),
                         "SYNAPSE_CONFIG": str(work / "no-config.json"),
                         "SYNAPSE_OFFLOAD_JOBS": str(work / f"jobs-{name}.jsonl"), "SYNAPSE_OFFLOAD_URL": model_url,
                         "SYNAPSE_OFFLOAD_MODEL": "fake-extractor"})
        self.times: dict[str, list[float]] = {}

    def run(self, args: list[str], stdin: str = "") -> tuple[float, float, str]:
        """Wall-clock, the process's CPU and its stdout."""
        used = resource.getrusage(resource.RUSAGE_CHILDREN)
        began = time.perf_counter()
        done = subprocess.run([sys.executable, "-P", *args], input=stdin, capture_output=True, text=True,
                              env=self.env, cwd=self.store.parent, timeout=3600, check=False)
        took = time.perf_counter() - began
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if done.returncode != 0 or done.stderr.strip():
            raise RuntimeError(f"{self.name}: {args[-1]} failed: {done.stderr[-2000:]}")
        return took, after.ru_utime + after.ru_stime - used.ru_utime - used.ru_stime, done.stdout

    def hook(self, command: str, payload: str) -> tuple[float, float, str]:
        return self.run(["-c", "from synapse_graph.cli import main; main()", "hook", command], payload)

    def add(self, key: str, value: float) -> None:
        self.times.setdefault(key, []).append(value)


def payload(folder: Path, event: str, exchanges: int) -> tuple[str, str]:
    path = transcript(folder, exchanges)
    return path.stem, json.dumps({"session_id": path.stem, "transcript_path": str(path), "cwd": "/home/dev/acme",
                                  "hook_event_name": event, "source": "startup", "trigger": "auto"})


def once(tree: Tree, mode: str, work: Path, kept: dict[str, str]) -> None:
    if mode == "offloads":
        for event, command in (("PreCompact", "pre-compact"), ("Stop", "stop")):
            session, text = payload(work, event, 14)
            took, cpu, _ = tree.hook(command, text)
            tree.add(f"{command} wall", took)
            tree.add(f"{command} cpu", cpu)
            wait_for_job(Path(tree.env["SYNAPSE_OFFLOAD_JOBS"]), session)
        return
    _, text = payload(work, "SessionStart", 3)
    if mode == "wall":
        took, cpu, out = tree.hook("session-start", text)
        tree.add("session-start wall", took)
        tree.add("session-start cpu", cpu)
        kept.setdefault(tree.name, out)
        return
    took, _, out = tree.run(["-c", _PROFILE, text])
    found = json.loads(out.strip().splitlines()[-1])
    phases: dict[str, float] = {"process: interpreter, imports and exit (wall - run)": took - found["run_s"],
                                "imports (in the process)": found["imports_s"], "hook run (in the process)":
                                found["run_s"]}
    for label, seconds in found["events"]:
        phases[label] = phases.get(label, 0.0) + seconds
    for label, seconds in phases.items():
        tree.add(label, seconds)


def described(store: Path, before_src: Path) -> dict[str, str]:
    """The store and the trees compared, as the results name them: never by the machine's folders."""
    return {"store": shown_path(store), "before_src": tree_commit(before_src), "after_src": tree_commit(THIS)}


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--store", type=Path, required=True)
    parser.add_argument("--before-src", type=Path, required=True, help="a checkout of the code to compare with")
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--mode", choices=("wall", "profile", "offloads"), default="wall")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args(argv)
    work = Path(tempfile.mkdtemp(prefix="hook-phases-"))
    (work / "no-config.json").write_text("{}")
    store = args.store.resolve()
    trees: list[Tree] = []
    loads: list[float] = []
    kept: dict[str, str] = {}
    result: dict[str, Any] = {**described(store, args.before_src), "mode": args.mode, "runs": args.runs}
    try:
        with FakeModelServer(extractor) as model:
            for name, source in (("before", args.before_src.resolve()), ("after", THIS)):
                (work / name).mkdir()
                shutil.copytree(store.with_name(store.name + ".aof"), work / name / (store.name + ".aof"))
                tree = Tree(name, source, work / name / store.name, work, model.url)
                took, _, _ = tree.run(["-c", "from synapse_graph.cli import main; main()", "stats", "--db",
                                       str(tree.store), "--scope", SCOPE])
                result[f"{name}_first_open_s"] = round(took, 3)  # starts its server (and upgrades the store)
                trees.append(tree)
            for _ in range(args.runs):
                for tree in trees:
                    loads.append(os.getloadavg()[0])
                    once(tree, args.mode, work, kept)
        result["load_average_1m"] = {"min": round(min(loads), 2), "max": round(max(loads), 2)}
        result["trees"] = {t.name: {k: summary(v) for k, v in t.times.items()} for t in trees}
        if kept:
            result["same_output"] = len(set(kept.values())) == 1
    finally:
        for tree in trees:
            subprocess.run([sys.executable, "-P", "-c", "from synapse_graph.cli import main; main()", "server", "stop",
                            "--db", str(tree.store), "--force"], capture_output=True, env=tree.env, check=False)
        shutil.rmtree(work, ignore_errors=True)
    return reported(result, args.out)


if __name__ == "__main__":
    main()
