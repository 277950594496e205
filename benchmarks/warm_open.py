"""Cold and warm opens of an embedded store from the CLI and the hooks, side by side in one run (issue 34).

    python -m benchmarks.warm_open --store PATH/store.db [--runs 3] [--hook-runs 20]
        [--baseline-src DIR] [--out results.json]

Each variant gets its own copy of the store (its AOF directory), and the variants are measured
round-robin, so that the machine's load falls on all of them alike:

* ``baseline`` (with ``--baseline-src``, a checkout of an older commit, run with ``PYTHONPATH``):
  every command starts a server and loads the store as it was built;
* ``cold``: this code with ``SYNAPSE_FALKORDB_LINGER=0``: every command starts a server, on the
  copy as its first close left it (the incr files folded into the base);
* ``warm``: this code with a lingering server, which every command joins.

Figures: bare server starts (time until it answers, and the server's CPU time spent loading,
which the machine's load disturbs less); wall-clock (and the command process's own CPU time) of
whole commands (``facts
SUBJECT``, ``stats``) and hooks (SessionStart, PreCompact with a fake model on loopback, Stop),
as a user waits for them; and, for each cold start, what the server's log says loading took (the
RDB base, building its indexes, replaying the incr files). Commands run with ``.pyc`` caching on,
as an installed package does (``PYTHONDONTWRITEBYTECODE`` is dropped from their environment).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from synapse_graph.testing import FakeModelServer, Reply

SCOPE = "warm/bench"
_STAMP = re.compile(r"^\d+:[A-Z] \d+ \w+ \d+ (\d\d:\d\d:\d\d\.\d+) [*#.-] (.*)$")


@dataclass
class Variant:
    name: str
    db: Path
    command: list[str]  # how to run `synapse-graph`
    env: dict[str, str]
    cold: bool
    times: dict[str, list[float]] = field(default_factory=dict)
    cpu: dict[str, list[float]] = field(default_factory=dict)  # the command's own CPU seconds (not the server's)
    loads: list[dict[str, float]] = field(default_factory=list)

    def run(self, *args: str, stdin: str = "", extra: dict[str, str] | None = None) -> float:
        log = self.db.with_name(self.db.name + ".log")
        offset = log.stat().st_size if log.exists() else 0
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}  # as installed: .pyc cached
        used = resource.getrusage(resource.RUSAGE_CHILDREN)
        began = time.perf_counter()
        done = subprocess.run([*self.command, *args], input=stdin, capture_output=True, text=True, check=False,
                              env={**env, **self.env, **(extra or {})}, timeout=3600)
        took = time.perf_counter() - began
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        self.cpu.setdefault(args[0] if args[0] != "hook" else f"hook {args[1]}", []).append(
            after.ru_utime + after.ru_stime - used.ru_utime - used.ru_stime)
        if done.returncode != 0 or "error" in done.stderr:
            raise RuntimeError(f"{self.name}: {' '.join(args)} failed: {done.stderr[-2000:]}")
        if self.cold:
            load = load_profile(log, offset)
            if load:
                self.loads.append(load)
        return took

    def timed(self, key: str, *args: str, **options: Any) -> None:
        self.times.setdefault(key, []).append(self.run(*args, **options))


def load_profile(log: Path, offset: int) -> dict[str, float]:
    """What one start's log says loading took: the base, the index build within it, the incr files."""
    with open(log, "rb") as handle:
        handle.seek(offset)
        lines = handle.read().decode("utf-8", "replace").splitlines()
    found: dict[str, float] = {}
    indexes_from = None
    for line in lines:
        match = _STAMP.match(line)
        if not match:
            continue
        stamp, text = datetime.strptime(match.group(1), "%H:%M:%S.%f"), match.group(2)
        if "Constructing indexes" in text:
            indexes_from = stamp
        elif "Done decoding graph" in text and indexes_from is not None:
            found["indexes_s"] = found.get("indexes_s", 0.0) + (stamp - indexes_from).total_seconds()
            indexes_from = None
        loaded = re.search(r"DB loaded from (base|incr) file .*: ([\d.]+) seconds", text)
        if loaded:
            key = f"{loaded.group(1)}_s"
            found[key] = found.get(key, 0.0) + float(loaded.group(2))
        total = re.search(r"DB loaded from append only file: ([\d.]+) seconds", text)
        if total:
            found["load_s"] = float(total.group(1))
    return found


# A start of the server alone, in the variant's code: how long until it answers, and the CPU it spent loading.
_START = r"""
import json, os, sys, time
from pathlib import Path
from synapse_graph.backends.embedded import EmbeddedServer
server = EmbeddedServer(sys.argv[1])
began = time.perf_counter()
server.start(create=False)
took = time.perf_counter() - began
try:  # nanoseconds on the CPU (stat's ticks are 10 ms: a small store's whole start can take less than one)
    cpu = int(Path(f"/proc/{server.pid()}/schedstat").read_text().split()[0]) / 1e9
except (OSError, ValueError, IndexError):
    fields = Path(f"/proc/{server.pid()}/stat").read_text().rsplit(")", 1)[1].split()
    cpu = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
server.stop()
print(json.dumps({"start_s": took, "server_cpu_s": cpu}))
"""


def start_once(variant: Variant) -> None:
    """One cold start of the variant's server (no command): wall-clock to answering, and the server's CPU."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    done = subprocess.run([sys.executable, "-P", "-c", _START, str(variant.db)], capture_output=True, text=True,
                          check=True, env={**env, **variant.env}, timeout=3600)
    for key, value in json.loads(done.stdout).items():
        variant.times.setdefault(key, []).append(value)


def copy_store(source: Path, target: Path) -> Path:
    target.mkdir(parents=True)
    shutil.copytree(source.with_name(source.name + ".aof"), target / (source.name + ".aof"))
    return target / source.name


def this_cli() -> list[str]:
    return [str(Path(sys.executable).with_name("synapse-graph"))]


def variants(store: Path, work: Path, baseline_src: Path | None) -> list[Variant]:
    found = []
    if baseline_src is not None:
        found.append(Variant("baseline", copy_store(store, work / "baseline"),  # -P: its code, not the cwd's
                             [sys.executable, "-P", "-c", "from synapse_graph.cli import main; main()"],
                             {"PYTHONPATH": str(baseline_src)}, cold=True))
    found.append(Variant("cold", copy_store(store, work / "cold"), this_cli(),
                         {"SYNAPSE_FALKORDB_LINGER": "0"}, cold=True))
    found.append(Variant("warm", copy_store(store, work / "warm"), this_cli(),
                         {"SYNAPSE_FALKORDB_LINGER": "3600"}, cold=False))
    return found


# -- hooks ------------------------------------------------------------------------------------------------


def transcript(directory: Path, exchanges: int) -> Path:
    """A Claude Code transcript of ``exchanges`` prompts and answers, each stating one fact."""
    session = str(uuid.uuid4())
    path = directory / f"{session}.jsonl"
    parent = None
    with path.open("w", encoding="utf-8") as handle:
        for i in range(exchanges):
            for role, text in (("user", f"Note: service-{i} is owned by team-{i}."),
                               ("assistant", f"Noted: team-{i} owns service-{i}.")):
                record_id = str(uuid.uuid4())
                content: Any = text if role == "user" else [{"type": "text", "text": text}]
                handle.write(json.dumps({"type": role, "uuid": record_id, "parentUuid": parent, "sessionId": session,
                                         "isSidechain": False, "message": {"role": role, "content": content},
                                         "timestamp": "2026-01-05T10:00:00Z", "cwd": "/home/dev/acme"}) + "\n")
                parent = record_id
    return path


def extractor(body: dict[str, Any]) -> Reply:
    found = sorted(set(re.findall(r"service-(\d+) is owned by team-(\d+)", body["messages"][-1]["content"])))
    triples = [{"subject": f"service-{a}", "predicate": "OWNED_BY", "object": f"team-{b}", "confidence": 0.9}
               for a, b in found]
    return Reply(content=json.dumps({"triples": triples}))


def hook_env(variant: Variant, model_url: str, work: Path) -> dict[str, str]:
    return {"SYNAPSE_DB": str(variant.db), "SYNAPSE_SCOPE": SCOPE, "SYNAPSE_OFFLOAD_URL": model_url,
            "SYNAPSE_OFFLOAD_MODEL": "fake-extractor", "SYNAPSE_HOOK_STATE": str(work / f"state-{variant.name}"),
            "SYNAPSE_OFFLOAD_JOBS": str(work / f"jobs-{variant.name}.jsonl"),
            "SYNAPSE_CONFIG": str(work / "no-config.json")}


def run_hooks(variant: Variant, model_url: str, work: Path) -> None:
    env = hook_env(variant, model_url, work)
    folder = work / f"transcripts-{variant.name}"
    folder.mkdir(exist_ok=True)
    for event, command, exchanges in (("SessionStart", "session-start", 3), ("PreCompact", "pre-compact", 14),
                                      ("Stop", "stop", 14)):
        path = transcript(folder, exchanges)
        payload = json.dumps({"session_id": path.stem, "transcript_path": str(path), "cwd": "/home/dev/acme",
                              "hook_event_name": event, "source": "startup", "trigger": "auto"})
        began = time.perf_counter()
        variant.timed(f"hook {command}", "hook", command, stdin=payload, extra=env)
        if command != "session-start":  # the offload's job is logged once done (Stop's, by its detached process)
            finished = wait_for_job(Path(env["SYNAPSE_OFFLOAD_JOBS"]), path.stem)
            if command == "stop":
                variant.times.setdefault("stop: detached offload done", []).append(finished - began)


def wait_for_job(log: Path, session: str, timeout: float = 1800) -> float:
    """When the offload job of ``session`` is logged as finished (perf_counter time)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            jobs = [json.loads(line) for line in log.read_text().splitlines() if line.strip()]
        except (OSError, ValueError):
            jobs = []
        for job in jobs:
            if job.get("session") == session and job.get("status") in ("done", "failed", "cancelled"):
                if job["status"] != "done":
                    raise RuntimeError(f"the offload of {session} {job['status']}: {job.get('error')}")
                return time.perf_counter()
        time.sleep(0.02)
    raise RuntimeError(f"the offload of {session} did not finish within {timeout:.0f} s")


# -- the run ----------------------------------------------------------------------------------------------


def summary(values: list[float]) -> dict[str, float]:
    ordered = sorted(values)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return {"n": len(values), "median_s": round(statistics.median(values), 3), "p95_s": round(p95, 3),
            "min_s": round(ordered[0], 3), "max_s": round(ordered[-1], 3)}


def subject_of(store: Path) -> str:
    from synapse_graph import Memory

    with Memory(store, scope=SCOPE) as memory:
        return memory.facts(limit=1)[0].subject


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--store", type=Path, required=True, help="an embedded store (its AOF directory is copied)")
    parser.add_argument("--runs", type=int, default=3, help="CLI commands per variant and command")
    parser.add_argument("--hook-runs", type=int, default=20, help="hook invocations per hook on the warm variant")
    parser.add_argument("--cold-hook-runs", type=int, default=1, help="... on each cold variant")
    parser.add_argument("--commands", default="facts,stats")
    parser.add_argument("--start-runs", type=int, default=3, help="bare server starts per cold variant")
    parser.add_argument("--baseline-src", type=Path, help="a checkout of the code to compare with")
    parser.add_argument("--work", type=Path, help="where the copies go (default: a temporary directory)")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args(argv)
    work = Path(tempfile.mkdtemp(prefix="warm-open-", dir=args.work))
    result: dict[str, Any] = {**described(args.store, args.baseline_src), "runs": args.runs}
    try:
        found = variants(args.store.resolve(), work, args.baseline_src)
        by_name = {v.name: v for v in found}
        for name in ("cold", "warm"):  # this code's first open: what a store written by older code costs once
            began = time.perf_counter()
            by_name[name].run("stats", "--db", str(by_name[name].db), "--scope", SCOPE,
                              extra={"SYNAPSE_FALKORDB_LINGER": "0"})
            result[f"{name}_first_open_s"] = round(time.perf_counter() - began, 3)
            if by_name[name].loads:  # the store as written: reported apart from this variant's own starts
                result[f"{name}_first_open_load"] = by_name[name].loads.pop()
        for _ in range(args.start_runs):
            for variant in found:
                if variant.cold:
                    start_once(variant)
        subject = subject_of(by_name["warm"].db)  # and starts the warm variant's server
        for _ in range(args.runs):
            for variant in found:
                for command in args.commands.split(","):
                    words = ["facts", subject] if command == "facts" else [command]
                    variant.timed(command, *words, "--db", str(variant.db), "--scope", SCOPE)
        with FakeModelServer(extractor) as model:
            for variant in found:
                for _ in range(args.hook_runs if not variant.cold else args.cold_hook_runs):
                    run_hooks(variant, model.url, work)
        result["variants"] = {v.name: {"times": {k: summary(t) for k, t in v.times.items()},
                                       "client_cpu": {k: summary(t) for k, t in v.cpu.items()},
                                       "loads": v.loads} for v in found}
    finally:
        warm = work / "warm" / args.store.name
        subprocess.run([*this_cli(), "server", "stop", "--db", str(warm), "--force"], capture_output=True,
                       check=False)
        shutil.rmtree(work, ignore_errors=True)
    return reported(result, args.out)


def described(store: Path, baseline_src: Path | None) -> dict[str, str]:
    """The store and the trees compared, as the results name them: never by the machine's folders."""
    from benchmarks.measure import REPO, shown_path, tree_commit

    trees = {"src": tree_commit(REPO)}
    if baseline_src is not None:
        trees["baseline_src"] = tree_commit(baseline_src)
    return {"store": shown_path(store), **trees}


def reported(result: dict[str, Any], out: Path | None) -> dict[str, Any]:
    """Print a run's result as JSON, and write it to ``out`` if given."""
    text = json.dumps(result, indent=1)
    if out is not None:
        out.write_text(text + "\n")
    print(text)
    return result


if __name__ == "__main__":
    main()
