"""The web inspector's server time per page on a large store (issue 31's target: p95 <= 200 ms at 100k facts).

``python -m benchmarks.inspector_pages [--size smoke|10k|100k|1m|N] [--backend falkordb|neo4j] [--rounds 30]``

1. ``--size`` generated writes (``benchmarks/generate.py``) are loaded with ``Memory.upsert`` in batches of
   1,000, as the main benchmark loads them; then what the review and overview pages show beyond facts is
   added (candidates, a disputed fact, observations, sessions, single writes in the audit log). ``--db`` and
   ``--scope`` reuse a store loaded before (``--keep`` keeps one).
2. The inspector serves it (uvicorn, in this process, as ``synapse-graph ui`` would), and every page and its
   JSON twin, and the JSON API's reads, are requested ``--rounds`` times in turns (each round in another
   order), over HTTP. The server time is the inspector's own ``Server-Timing`` (``app;dur``: from the request
   reaching it to its answer starting); the round trip is measured too.

Entities asked about: the store's most connected one (a hub: the worst case of the entity and graph pages)
and a typical one. Every page is checked to answer 200. The overview's counts and growth and the review's
lists walk the whole scope; the inspector keeps them until the scope changes (``Memory.last_write``), so
those two pages are also measured right after a write, when they are read again.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import platform
import random
import re
import socket
import sys
import threading
import time
import uuid
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any
from urllib.parse import quote

from benchmarks.generate import SIZES, generate
from benchmarks.mcp_roundtrip import load
from benchmarks.measure import REPO, summary
from benchmarks.targets import drop_scopes, neo4j_settings, open_target
from synapse_graph import Memory, Triple

TARGET_P95_MS = 200.0


def enrich(memory: Memory, subjects: list[str]) -> None:
    """What a used store holds beside bulk facts: candidates, disputes, observations, sessions, single writes."""
    rng = random.Random(7)
    for i, subject in enumerate(rng.sample(subjects, 30)):
        memory.upsert(Triple(subject=subject, predicate="MENTIONED", object=f"Topic {i}", confidence=0.3),
                      model="bench-extractor")
        memory.observe(subject, [f"observation {i} about {subject}"])
        memory.upsert(Triple(subject=subject, predicate="NOTED", object=f"Note {i}"), source="single write")
    for fact in memory.facts(subjects[0], limit=3):
        memory.feedback(fact, "stale")
    for i in range(5):
        memory.register_session(f"bench-session-{i}")


def pages(hub: str, typical: str, as_of: str) -> dict[str, str]:
    """Page name -> path (pages, their JSON twins, the API's reads)."""
    h, t = quote(hub), quote(typical)
    return {
        "overview": "/", "overview.json": "/overview.json",
        "entities": "/entities", "entities matching": "/entities?matching=studio",
        "entity (typical)": f"/entity?name={t}", "entity (hub)": f"/entity?name={h}",
        "entity (hub) as of, known then": f"/entity?name={h}&as_of={as_of}&known=then",
        "entity.json (hub)": f"/entity.json?name={h}",
        "search": f"/search?q={quote('what do we know about ' + typical)}",
        "graph (hub, 1 hop)": f"/graph?name={h}", "graph.json (hub, 2 hops)": f"/graph.json?name={h}&hops=2",
        "graph.json (typical, 2 hops, as of)": f"/graph.json?name={t}&hops=2&as_of={as_of}",
        "review": "/review", "audit": "/audit", "audit (client filter)": "/audit?client=synapse-graph",
        "audit (entity filter)": f"/audit?entity={h}", "sessions": "/sessions",
        "api facts": f"/api/facts?subject={h}&limit=100", "api recall": f"/api/recall?query={t}",
        "api neighbourhood": f"/api/neighbourhood?entity={h}&hops=2", "api stats": "/api/stats",
        "api growth": "/api/growth", "api pending": "/api/pending?limit=100&include_disputed=true",
    }


AFTER_A_WRITE = {"overview (after a write)": "/", "review (after a write)": "/review",
                 "review (after a fact write)": "/review", "review (after a new entity)": "/review"}
"""Pages whose whole-scope reads are kept until the scope changes: also measured right after a write (an
observation of an existing entity; a fact between two existing entities; a fact that creates an entity, named
as an existing person with an initial, and a word of this run so each write creates one)."""
WRITER = "Bench writer"
NONCE = uuid.uuid4().hex[:6]


def write_before(name: str, memory: Memory, entities: list[str], turn: int) -> None:
    """The write made before measuring a page of :data:`AFTER_A_WRITE` (the scope changes)."""
    if "new entity" in name:
        words = entities[turn % len(entities)].split()
        memory.upsert(Triple(subject=WRITER, predicate="MENTIONED", object=f"{words[0][0]}. {words[-1]} {NONCE}{turn}"))
    elif "fact" in name:
        subject, obj = entities[turn % len(entities)], entities[(turn * 7 + 3) % len(entities)]
        memory.upsert(Triple(subject=subject, predicate="MENTIONED", object=obj, valid_at="2024-01-01"))
    else:
        memory.observe(WRITER, [f"{uuid.uuid4().hex} before {name}"])


def measure(base: str, paths: dict[str, str], rounds: int, memory: Memory, entities: list[str],
            after_rounds: int | None = None) -> dict[str, Any]:
    """Every page ``rounds`` times in turns (nothing written meanwhile), then the pages that keep whole-scope
    reads ``after_rounds`` times each right after a write."""
    import httpx

    memory.observe(WRITER, ["the entity the writes before a page observe"])  # created before any page is read

    server: dict[str, list[float]] = {name: [] for name in [*paths, *AFTER_A_WRITE]}
    trip: dict[str, list[float]] = {name: [] for name in server}

    def get(client: Any, name: str, path: str) -> None:
        began = time.perf_counter()
        answer = client.get(path)
        trip[name].append(time.perf_counter() - began)
        assert answer.status_code == 200, (name, answer.status_code, answer.text[:200])
        found = re.match(r"app;dur=([\d.]+)", answer.headers["server-timing"])
        assert found is not None
        server[name].append(float(found.group(1)) / 1e3)

    order = list(paths)
    with httpx.Client(base_url=base, timeout=120) as client:
        for name in order:  # warm up once
            assert client.get(paths[name]).status_code == 200, name
        for round_number in range(rounds):
            random.Random(round_number).shuffle(order)
            for name in order:
                get(client, name, paths[name])
        for turn in range(rounds if after_rounds is None else after_rounds):
            for name, path in AFTER_A_WRITE.items():
                write_before(name, memory, entities, turn)
                get(client, name, path)
    result = {}
    for name in server:
        s, t = summary(server[name]), summary(trip[name])
        result[name] = {"server_median_ms": s["median_ms"], "server_p95_ms": s["p95_ms"],
                        "round_trip_p95_ms": t["p95_ms"], "n": s["n"], "within_target": s["p95_ms"] <= TARGET_P95_MS,
                        "server_ms": [round(x * 1e3, 1) for x in server[name]]}  # in the order requested
    return result


def serve(location: str, auth: tuple[str, str] | None, scope: str) -> tuple[str, Any, threading.Thread]:
    import uvicorn

    from synapse_graph.aio import AsyncMemory
    from synapse_graph.listening import Bind
    from synapse_graph.ui import CLIENT, UiSettings, create_app
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = int(probe.getsockname()[1])
    settings = UiSettings(bind=Bind("127.0.0.1", port), allow_review=True, allow_erasure=True)
    app = create_app(AsyncMemory(location, scope=scope, auth=auth, client=CLIENT), settings)
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", lifespan="on"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        if not thread.is_alive():
            raise RuntimeError("the inspector did not start")
        time.sleep(0.05)
    return f"http://127.0.0.1:{port}", server, thread


def run(size: int, backend: str, rounds: int, seed: int, keep: bool, db: str | None, scope: str | None,
        after_rounds: int | None = None) -> dict[str, Any]:
    dataset = generate(size, seed=seed, questions=10, neighbourhoods=10)
    subjects = sorted({w.subject for w in dataset.writes})
    run_id = f"ui-{uuid.uuid4().hex[:8]}"
    chosen = scope or f"bench-{run_id}"
    with contextlib.ExitStack() as stack:
        if db is None:
            target = stack.enter_context(open_target(backend, REPO / "benchmarks" / "results", run_id, keep=keep))
            location, auth = target.location, target.auth
        else:  # a store loaded before
            location, auth = db, (neo4j_settings()[1] if backend == "neo4j" else None)
        memory = Memory(location, scope=chosen, auth=auth, max_facts=size * 2 + 1_000,
                        max_entities=dataset.entities * 2 + 1_000, single_valued=dataset.single_valued)
        try:
            loaded_s = None
            if memory.stats().facts == 0:
                print(f"loading {size:,} writes into {backend} ...", file=sys.stderr)
                loaded_s = load(memory, dataset)
                enrich(memory, subjects)
            stats = memory.stats()
            degree = Counter(w.subject for w in dataset.writes)
            hub = degree.most_common(1)[0][0]
            typical = sorted(degree, key=lambda s: (abs(degree[s] - 5), s))[0]
            as_of = "2018-06-01"
            print(f"{stats.facts:,} fact records; hub {hub!r} ({degree[hub]:,} writes), typical {typical!r}; "
                  f"measuring {rounds} rounds ...", file=sys.stderr)
            base, server, thread = serve(location, auth, chosen)
            try:
                began_load = os.getloadavg()
                measured = measure(base, pages(hub, typical, as_of), rounds, memory,
                                   subjects[:: max(1, len(subjects) // 50)], after_rounds)
            finally:
                server.should_exit = True
                thread.join(timeout=30)
        finally:
            memory.close()
            if not keep and db is None and scope is None:
                drop_scopes(target, [chosen])
    return {"size": size, "backend": backend, "rounds": rounds, "facts_in_store": stats.facts,
            "entities_in_store": stats.entities, "hub_writes": degree[hub], "load_s": loaded_s,
            "cpus": os.cpu_count(), "load_average_at_start": began_load, "load_average": os.getloadavg(),
            "python": platform.python_version(),
            "target_p95_ms": TARGET_P95_MS, "after_rounds": after_rounds, "pages": measured}


def parse_size(text: str) -> int:
    return SIZES[text] if text in SIZES else int(text)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.inspector_pages", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", type=parse_size, default="smoke")
    parser.add_argument("--backend", choices=["falkordb", "neo4j"], default="falkordb")
    parser.add_argument("--rounds", type=int, default=30, help="requests of each page")
    parser.add_argument("--after-rounds", type=int, default=None, help="requests of each page after a write "
                        "(default: --rounds)")
    parser.add_argument("--seed", type=int, default=20_260_101)
    parser.add_argument("--keep", action="store_true", help="keep the store afterwards")
    parser.add_argument("--db", default=None, help="a store loaded before (FalkorDB file or URL)")
    parser.add_argument("--scope", default=None, help="its scope (loaded now if it is empty)")
    parser.add_argument("--out", type=Path, default=None, help="also write the result as JSON here")
    args = parser.parse_args(argv)
    result = run(args.size, args.backend, args.rounds, args.seed, args.keep, args.db, args.scope,
                 args.after_rounds)
    width = max(len(name) for name in result["pages"])
    print(f"{'page':{width}}  server p50  server p95  round trip p95  (target p95 <= {TARGET_P95_MS:.0f} ms)")
    for name, row in result["pages"].items():
        print(f"{name:{width}}  {row['server_median_ms']:8.1f}  {row['server_p95_ms']:10.1f}  "
              f"{row['round_trip_p95_ms']:12.1f}  {'ok' if row['within_target'] else 'OVER'}")
    text = json.dumps(result, indent=2)
    if args.out is not None:
        args.out.write_text(text + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
