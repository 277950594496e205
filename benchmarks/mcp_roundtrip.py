"""What the MCP layer costs: a tool call's round trip vs the Python call it wraps, side by side, in one run.

``python -m benchmarks.mcp_roundtrip [--size smoke|10k|100k|1m|N] [--backend falkordb|neo4j] [--calls 200]``

1. ``--size`` generated writes (``benchmarks/generate.py``: Zipf entities, supersessions, repeats) are loaded
   with ``Memory.upsert`` in batches of 1,000, as the main benchmark loads them.
2. ``synapse-graph mcp`` is started on that store (stdio, a separate process) and the SDK's own client
   connects to it, as an agent would.
3. Then, ``--calls`` times, in alternating order: ``Memory.recall(question)`` in this process against
   ``recall_context`` through the server (the same question, about an entity of the store), and
   ``Memory.upsert`` of one new fact against ``upsert_graph_triples`` of another.

The ratio tool / Python call is the cost of the protocol, the process hop and the result shaping
(validation, text lines, structured content). Both sides read and write the same store at the same size,
interleaved, so a busy machine slows them alike.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import sys
import time
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import anyio
from mcp import Client, StdioServerParameters

from benchmarks.generate import SIZES, generate
from benchmarks.measure import REPO, ratio, summary
from benchmarks.runner import _triples
from benchmarks.targets import drop_scopes, open_target
from synapse_graph import Triple

BATCH = 1_000


def load(memory: Any, dataset: Any) -> float:
    began = time.perf_counter()
    for start in range(0, len(dataset.writes), BATCH):
        memory.upsert(_triples(dataset, start, min(start + BATCH, len(dataset.writes))))
        if (start // BATCH) % 50 == 49:
            print(f"  loaded {start + BATCH:,} writes in {time.perf_counter() - began:.0f} s", file=sys.stderr)
    return time.perf_counter() - began


def server_parameters(target: Any, scope: str, dataset: Any) -> StdioServerParameters:
    executable = Path(sys.executable).with_name("synapse-graph")
    env = {}
    if target.auth is not None:
        env = {"SYNAPSE_NEO4J_USER": target.auth[0], "SYNAPSE_NEO4J_PASSWORD": target.auth[1]}
    # The server obeys the rules the benchmark stored with the scope when it loaded it.
    return StdioServerParameters(command=str(executable), env=env, args=["mcp", "--db", target.location,
                                                                         "--scope", scope])


async def compare(memory: Any, params: StdioServerParameters, questions: list[str], calls: int) -> dict[str, Any]:
    timings: dict[str, list[float]] = {"recall_python": [], "recall_mcp": [], "upsert_python": [], "upsert_mcp": []}
    facts = {"recall_python": 0, "recall_mcp": 0}
    answers: dict[str, list[str]] = {}
    mismatches = 0
    async with Client(params) as client:
        await client.call_tool("recall_context", {"query": questions[0]})  # warm both sides up
        memory.recall(questions[0])
        for i in range(calls):
            question = questions[i % len(questions)]

            async def recall_mcp(question: str = question) -> None:
                result = await client.call_tool("recall_context", {"query": question})
                assert not result.is_error and result.structured_content is not None, result.content
                answers["mcp"] = [m["id"] for m in result.structured_content["memories"]]
                facts["recall_mcp"] += len(answers["mcp"])

            async def recall_python(question: str = question) -> None:
                answers["python"] = [m.id for m in memory.recall(question).memories]
                facts["recall_python"] += len(answers["python"])

            async def upsert_mcp(i: int = i) -> None:
                result = await client.call_tool("upsert_graph_triples", {"triples": [
                    {"subject": f"Bench writer {i % 50}", "predicate": "NOTED", "object": f"mcp note {i}"}]})
                assert not result.is_error, result.content

            async def upsert_python(i: int = i) -> None:
                memory.upsert(Triple(subject=f"Bench writer {i % 50}", predicate="NOTED", object=f"python note {i}"))

            pairs = ((recall_python, recall_mcp), (upsert_python, upsert_mcp))
            for pair in pairs:
                for step in pair if i % 2 == 0 else reversed(pair):
                    began = time.perf_counter()
                    await step()
                    timings[step.__name__].append(time.perf_counter() - began)
            mismatches += answers["mcp"] != answers["python"]
    result: dict[str, Any] = {name: summary(samples) for name, samples in timings.items()}
    for op in ("recall", "upsert"):
        python, mcp = result[f"{op}_python"], result[f"{op}_mcp"]
        result[f"{op}_ratio_median"] = ratio(mcp["median_ms"], python["median_ms"])
        result[f"{op}_ratio_p95"] = ratio(mcp["p95_ms"], python["p95_ms"])
    result["facts_per_recall"] = {k: round(v / calls, 1) for k, v in facts.items()}
    result["recall_answers_differing"] = mismatches  # the tool must answer exactly what the Python call answers
    return result


def run(size: int, backend: str, calls: int, seed: int, keep: bool) -> dict[str, Any]:
    dataset = generate(size, seed=seed, questions=10, neighbourhoods=10)
    rng = random.Random(seed)
    subjects = sorted({w.subject for w in dataset.writes})
    questions = [f"what do we know about {name}?" for name in rng.sample(subjects, min(50, len(subjects)))]
    run_id = f"mcp-{uuid.uuid4().hex[:8]}"
    scope = f"bench-{run_id}"
    with open_target(backend, REPO / "benchmarks" / "results", run_id, keep=keep) as target:
        memory = target.memory(scope, dataset)
        try:
            print(f"loading {size:,} writes into {backend} ...", file=sys.stderr)
            load_s = load(memory, dataset)
            stats = memory.stats()
            print(f"loaded in {load_s:.0f} s ({stats.facts:,} fact records); measuring {calls} calls each ...",
                  file=sys.stderr)
            measured = anyio.run(compare, memory, server_parameters(target, scope, dataset), questions, calls)
        finally:
            memory.close()
            if not keep:
                drop_scopes(target, [scope])
    return {"size": size, "backend": backend, "calls": calls, "facts_in_store": stats.facts,
            "entities_in_store": stats.entities, "load_s": round(load_s, 1), "cpus": os.cpu_count(),
            "python": platform.python_version(), **measured}


def parse_size(text: str) -> int:
    return SIZES[text] if text in SIZES else int(text)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.mcp_roundtrip", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", type=parse_size, default="smoke", help="writes to load: smoke (3k), 10k, 100k, 1m "
                                                                         "or a number")
    parser.add_argument("--backend", choices=["falkordb", "neo4j"], default="falkordb")
    parser.add_argument("--calls", type=int, default=200, help="calls of each kind on each side")
    parser.add_argument("--seed", type=int, default=20_260_101)
    parser.add_argument("--keep", action="store_true", help="keep the store afterwards")
    parser.add_argument("--out", type=Path, default=None, help="also write the result as JSON here")
    args = parser.parse_args(argv)
    result = run(args.size, args.backend, args.calls, args.seed, args.keep)
    for op in ("recall", "upsert"):
        python, mcp = result[f"{op}_python"], result[f"{op}_mcp"]
        print(f"{op}: Python {python['median_ms']} ms median / {python['p95_ms']} ms p95; "
              f"MCP tool call {mcp['median_ms']} / {mcp['p95_ms']} ms; "
              f"ratio {result[f'{op}_ratio_median']}x median, {result[f'{op}_ratio_p95']}x p95")
    text = json.dumps(result, indent=2)
    print(text)
    if args.out is not None:
        args.out.write_text(text + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
