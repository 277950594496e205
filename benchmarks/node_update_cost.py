"""Why a single write costs more on a bigger FalkorDB store: setting a node's property after a node was created.

FalkorDB (4.22, the embedded server's) keeps a new node's labels as a pending change of the graph's
node-label matrix. The next statement that sets a property of *any* node first merges the pending
changes into that matrix, at a cost that grows with the number of nodes in the graph; a statement
that only creates, reads or sets a relationship's property does not. Every write of the library
creates an audit entry (a labeled node) and the next write sets its scope's counters and version
(a node property), so each write pays that merge once (issue 15, "single fact").

``python -m benchmarks.node_update_cost`` measures it on a throwaway graph of the embedded server:
for each graph size, the server's execution time of the second statement of each pair below,
alternated 100 times (median and p95, ms).
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
from pathlib import Path
from typing import Any

import redis

from benchmarks.measure import server_ms
from synapse_graph import Memory

GRAPH = "node_update_cost"
SET_NODE = "MATCH (s:Scope {scope: 'x'}) SET s.n = 1"
SET_RELATIONSHIP = "MATCH (:Scope {scope: 'x'})-[st:STATE]->() SET st.n = 1"
CASES = {
    "node SET, nothing created before": ("RETURN 1", SET_NODE),
    "node SET after a labeled node was created": ("CREATE (:Entry {id: 1})", SET_NODE),
    "node SET after an unlabeled node was created": ("CREATE ({id: 1})", SET_NODE),
    "relationship SET after a labeled node was created": ("CREATE (:Entry {id: 1})", SET_RELATIONSHIP),
}
"""What each case runs first, and the statement timed after it."""


def measure(client: redis.Redis, sizes: list[int], repeats: int) -> list[dict[str, Any]]:
    """Grow the graph to each size (labeled filler nodes) and time every case there."""
    def query(text: str) -> list[Any]:
        return client.execute_command("GRAPH.QUERY", GRAPH, text, "--compact")  # type: ignore[no-any-return]

    query("CREATE (s:Scope {scope: 'x'})-[:STATE]->(s)")
    query("CREATE INDEX FOR (s:Scope) ON (s.scope)")
    nodes = 1
    rows = []
    for size in sorted(sizes):
        while nodes < size:
            step = min(50_000, size - nodes)
            query(f"UNWIND range(1, {step}) AS i CREATE (:Filler {{i: i}})")
            nodes += step
        row: dict[str, Any] = {"nodes": nodes}
        for case, (first, timed) in CASES.items():
            took = []
            for _ in range(repeats):
                query(first)
                taken = server_ms(query(timed))
                if taken is None:
                    raise ValueError("the reply holds no execution time")
                took.append(taken)
            took.sort()
            row[case] = {"median_ms": round(statistics.median(took), 3),
                         "p95_ms": round(took[int(0.95 * (len(took) - 1))], 3)}
            # the created nodes count toward the next size
            nodes += repeats if first.startswith("CREATE") else 0
        rows.append(row)
    return rows


def report(rows: list[dict[str, Any]]) -> str:
    lines = ["| nodes in the graph | " + " | ".join(CASES) + " |", "|---|" + "---|" * len(CASES)]
    for row in rows:
        cells = [f"{row[case]['median_ms']:.3f} / {row[case]['p95_ms']:.3f}" for case in CASES]
        lines.append(f"| {row['nodes']:,} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n\nServer execution time of the timed statement, median / p95 ms."


def main(argv: list[str] | None = None) -> list[dict[str, Any]]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="10000,100000,300000", help="graph sizes in nodes")
    parser.add_argument("--repeats", type=int, default=100)
    parser.add_argument("--out", type=Path, help="write the rows as JSON here")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as workdir:
        memory = Memory(str(Path(workdir) / "probe.db"), scope="node-update-cost")
        server = memory.backend.server  # type: ignore[attr-defined]
        client = redis.Redis(unix_socket_path=server.connect_path)
        try:
            rows = measure(client, [int(s) for s in args.sizes.split(",")], args.repeats)
        finally:
            client.execute_command("GRAPH.DELETE", GRAPH)
            client.close()
            memory.close()
    print(report(rows))
    if args.out:
        args.out.write_text(json.dumps(rows, indent=2) + "\n", encoding="utf-8")
    return rows


if __name__ == "__main__":
    main()
