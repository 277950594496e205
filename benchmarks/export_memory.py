"""Peak client memory of exporting a large scope (issue 32, item 6): ``python -m benchmarks.export_memory``.

Builds (once) an embedded FalkorDB store holding one scope of ``--facts`` fact records (an import of
generated lines: ``facts / 5`` entities, five facts each), then exports it in fresh processes, once per
code tree given (``--code DIR``, e.g. a ``git archive`` of the commit before, beside this tree), each
consumer counting the lines without keeping them. Reports per tree: Python's peak traced allocation
(tracemalloc, with ``--trace``) and, in a run without tracing, the peak resident set growth and the seconds.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any

SCOPE = "export-bench"
_MEASURE = """
import gc, json, resource, sys, time, tracemalloc
from synapse_graph import Memory
store, trace, scope = sys.argv[1], sys.argv[2] == "trace", sys.argv[3]
with Memory(store, scope=scope) as memory:
    gc.collect()
    base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    if trace:
        tracemalloc.start()
    started = time.perf_counter()
    lines = size = 0
    for line in memory.export():
        lines += 1
        size += len(line)
    seconds = time.perf_counter() - started
    peak = tracemalloc.get_traced_memory()[1] if trace else None
    grown = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - base
print(json.dumps({"lines": lines, "chars": size, "seconds": round(seconds, 2), "traced_peak_mib":
                  None if peak is None else round(peak / 2**20, 1), "rss_growth_mib": round(grown / 1024, 1)}))
"""


def lines(facts: int) -> list[str]:
    """An export of ``facts`` records about ``facts / 5`` entities (five objects each, one predicate)."""
    entities = max(6, facts // 5)
    at = "2026-01-01T00:00:00.000000Z"
    out = [json.dumps({"kind": "header", "format": "synapse-graph/3", "scope": SCOPE})]
    out += [json.dumps({"kind": "entity", "name": f"Entity {i}", "key": f"entity {i}", "aliases": [], "type": None,
                        "created_at": at, "updated_at": at}) for i in range(entities)]
    for i in range(facts):
        subject, step = divmod(i, 5)
        out.append(json.dumps({
            "kind": "fact", "id": uuid.uuid4().hex[:25], "subject": f"entity {subject % entities}",
            "predicate": "KNOWS", "object": f"entity {(subject + step + 1) % entities}",
            "valid_at": f"20{10 + i % 15}-0{1 + i % 9}-01T00:00:00+00:00", "invalid_at": None,
            "recorded_at": f"2026-01-01T00:00:{i % 60:02d}.{i % 1_000_000:06d}+00:00", "expired_at": None,
            "confidence": 0.9, "confirmations": 1, "source": f"notes {i % 100}", "client": "bench", "model": None,
            "session": None, "status": "believed", "flag": None, "confirmed_at": None, "pinned": False}))
    return out


def build(store: Path, facts: int) -> None:
    from synapse_graph import Memory

    built = store.with_name(store.name + ".built")
    if built.exists():
        return
    with Memory(str(store), scope=SCOPE, max_facts=10 * facts, max_entities=10 * facts) as memory:
        memory.import_(lines(facts), batch_size=5_000)
    built.touch()


def measure(store: Path, code: Path, modes: tuple[str, ...]) -> dict[str, Any]:
    env = {**os.environ, "PYTHONPATH": str(code)}
    found: dict[str, Any] = {"code": str(code)}
    for mode in modes:  # the seconds and RSS of the untraced run are kept
        done = subprocess.run([sys.executable, "-c", _MEASURE, str(store.resolve()), mode, SCOPE], env=env,
                              cwd=code, check=True, capture_output=True, text=True)  # cwd: first on sys.path
        run = json.loads(done.stdout.strip().splitlines()[-1])
        found.update({k: v for k, v in run.items() if v is not None})
    return found


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--facts", type=int, default=100_000)
    parser.add_argument("--store", type=Path, required=True, help="where the store is built (reused if present)")
    parser.add_argument("--code", type=Path, action="append", default=[],
                        help="a source tree to export with (repeat; default: this one)")
    parser.add_argument("--trace", action="store_true", help="also run traced (tracemalloc: slow)")
    args = parser.parse_args(argv)
    build(args.store, args.facts)
    modes = ("trace", "rss") if args.trace else ("rss",)
    for code in args.code or [Path(__file__).resolve().parent.parent]:
        print(json.dumps({"facts": args.facts, **measure(args.store, code, modes)}), flush=True)


if __name__ == "__main__":
    main()
