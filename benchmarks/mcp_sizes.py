"""What a recall costs the model, in tokens, as text lines and as structured content (MCP).

``python -m benchmarks.mcp_sizes [--backend falkordb|neo4j|all] [--out results/....json]``

Claude Code and Codex hand the model a tool's ``structuredContent``, other clients its text lines: both
should be short. On a small store (seven facts about one person and two dated observations, as an agent
writes them) the in-process server answers ``recall_context`` and ``query_facts``; each answer is measured
both ways (characters, and tokens at ``CHARS_PER_TOKEN`` characters each, the estimate the result budget
uses) with the ratio structured / text (issue 28's target: at most 1.3).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import uuid
from pathlib import Path
from typing import Any

import anyio
from mcp import Client

from benchmarks.measure import REPO
from benchmarks.targets import neo4j_settings
from synapse_graph import Memory, Triple
from synapse_graph.aio import AsyncMemory
from synapse_graph.mcp import build_server
from synapse_graph.mcp.formatting import CHARS_PER_TOKEN

FACTS = (("WORKS_AT", "Acme"), ("LIVES_IN", "London"), ("KNOWS", "Sam"), ("LIKES", "opera"), ("SPEAKS", "Spanish"),
         ("OWNS", "a bicycle"), ("STUDIED_AT", "Porto University"))
CALLS = (("recall_context", {"query": "What does Dana do in London?"}),
         ("recall_context", {"query": "Where did Dana study?"}),
         ("query_facts", {"subject": "Dana"}))


def fill(memory: Memory) -> None:
    memory.upsert([Triple(subject="Dana", predicate=p, object=o, valid_at="2021-03-01") for p, o in FACTS],
                  source="onboarding chat")
    memory.observe("Dana", ["Moved to London for the new job", "Plays the cello on Sundays"], valid_at="2021-02-20")


async def measure(location: str, scope: str, auth: tuple[str, str] | None) -> list[dict[str, Any]]:
    rows = []
    async with AsyncMemory(location, scope=scope, auth=auth) as served, Client(build_server(served)) as client:
        for tool, arguments in CALLS:
            result = await client.call_tool(tool, arguments)
            text = "\n".join(getattr(block, "text", "") for block in result.content)
            data = json.dumps(result.structured_content, ensure_ascii=False, separators=(",", ":"))
            items = result.structured_content or {}
            rows.append({"tool": tool, "arguments": arguments,
                         "items": len(items.get("memories", items.get("facts", []))),
                         "text_chars": len(text), "structured_chars": len(data),
                         "text_tokens": round(len(text) / CHARS_PER_TOKEN),
                         "structured_tokens": round(len(data) / CHARS_PER_TOKEN),
                         "ratio": round(len(data) / len(text), 3)})
    return rows


def run(backend: str) -> list[dict[str, Any]]:
    scope = f"bench-sizes-{uuid.uuid4().hex[:8]}"
    if backend == "falkordb":
        location, auth = str(Path(tempfile.mkdtemp()) / "memory.db"), None
    else:
        location, auth = neo4j_settings()
    memory = Memory(location, scope=scope, auth=auth)
    try:
        fill(memory)
        return anyio.run(measure, location, scope, auth)
    finally:
        if backend == "neo4j":  # the shared server keeps nothing of the run
            memory.purge(scope=scope)
        memory.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend", choices=["falkordb", "neo4j", "all"], default="falkordb")
    parser.add_argument("--out", type=Path, default=None, help="write the results as JSON here too")
    args = parser.parse_args(argv)
    results = {b: run(b) for b in (["falkordb", "neo4j"] if args.backend == "all" else [args.backend])}
    for backend, rows in results.items():
        for r in rows:
            print(f"{backend:8} {r['tool']:15} {r['items']:2} items  text {r['text_chars']:5} chars "
                  f"(~{r['text_tokens']} tokens)  structured {r['structured_chars']:5} chars "
                  f"(~{r['structured_tokens']} tokens)  ratio {r['ratio']:.2f}")
    if args.out is not None:
        out = args.out if args.out.is_absolute() else REPO / args.out
        out.write_text(json.dumps({"chars_per_token": CHARS_PER_TOKEN, "results": results}, indent=2) + "\n")
        print(f"wrote {out.relative_to(REPO)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
