"""What a tree stores for the same batches, as text to compare with another tree's (issue 34: a faster write path
must store every value byte for byte as before).

``PYTHONHASHSEED=0 PYTHONPATH=DIR python benchmarks/same_store.py --backend falkordb|neo4j --batches 6 --out F``

``DIR`` holds the library to run (``git archive <commit> | tar -x -C DIR``, or this tree); this harness's
generator (``generate.py``) makes the stream. Record ids, audit ids and batch ids come from one seeded random
source and the clock from a counter, so two runs of one tree write the same store; every node and relationship of
the scope is then written out, one per line, properties by name (floats by their hex, every value with its type),
sorted. Batches of 1,000 go in whole, every third split in three (20, 30 and 950: the slim statement forms, and
rows sought by key), with and without a source. Run it with two trees and ``cmp`` the files.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import shutil
import sys
import tempfile
import uuid
from pathlib import Path
from typing import Any


def _deterministic(seed: int) -> None:
    """Seeded ids (uuid4 and record ids) and a clock that moves 1 ms per reading, in every loaded module."""
    from synapse_graph.rules import timeline, timeparse

    rng = random.Random(seed)
    uuid.uuid4 = lambda: uuid.UUID(int=rng.getrandbits(128), version=4)

    class _Os:  # timeline draws its record ids' digits from os.urandom
        def __getattr__(self, name: str) -> Any:
            return getattr(os, name)

        @staticmethod
        def urandom(n: int) -> bytes:
            return rng.randbytes(n)

    timeline.os = _Os()  # type: ignore[assignment]
    clock = [1_767_225_600_000_000]

    def now_micros() -> int:
        clock[0] += 1_000
        return clock[0]

    wall = timeparse.now_micros
    for name, module in list(sys.modules.items()):
        if name.startswith("synapse_graph") and getattr(module, "now_micros", None) is wall:
            module.now_micros = now_micros  # type: ignore[attr-defined]


def _typed(value: Any) -> Any:
    if isinstance(value, float):
        return ["float", value.hex()]
    if isinstance(value, list):
        return [_typed(v) for v in value]
    if isinstance(value, dict):
        return {k: _typed(v) for k, v in sorted(value.items())}
    return [type(value).__name__, repr(value)]


def dump(backend: str, batches: int, seed: int = 7) -> list[str]:
    """The store's lines after writing ``batches`` generated batches of 1,000 with the library first on the path."""
    here = str(Path(__file__).resolve().parent.parent)
    if here not in sys.path:
        sys.path.append(here)  # the generator; the library under test stays first
    from benchmarks.generate import generate
    from synapse_graph import Memory, Triple

    _deterministic(seed)
    data = generate(batches * 1_000, seed=20_260_101, questions=1, neighbourhoods=1)
    scope = "same-store"
    limits = {"max_facts": 10**7, "max_entities": 10**7, "single_valued": frozenset(data.single_valued)}
    folder = Path(tempfile.mkdtemp(prefix="same-store-"))
    if backend == "falkordb":
        memory = Memory(str(folder / "store.db"), scope=scope, **limits)
    else:
        from benchmarks.targets import neo4j_settings

        url, auth = neo4j_settings()
        memory = Memory(url, scope=scope, auth=auth, **limits)
    for index in range(batches):
        chunk = data.writes[index * 1_000:(index + 1) * 1_000]
        for part in [chunk] if index % 3 else [chunk[:20], chunk[20:50], chunk[50:]]:
            memory.upsert([Triple(subject=w.subject, predicate=w.predicate, object=w.object, valid_at=w.valid_at)
                           for w in part], source=None if index % 2 else "a source")
    ends = "labels(a), a.key, a.id, labels(b), b.key, b.id"
    if backend == "falkordb":
        from falkordb import FalkorDB

        graph = FalkorDB(unix_socket_path=memory.backend.server.connect_path).select_graph(  # type: ignore[attr-defined]
            memory.backend.graph)  # type: ignore[attr-defined]
        nodes = graph.query("MATCH (n) RETURN labels(n), properties(n)").result_set
        links = graph.query(f"MATCH (a)-[r]->(b) RETURN type(r), properties(r), {ends}").result_set
    else:
        from benchmarks.baseline import drop_neo4j_scope

        driver = memory.backend._driver  # type: ignore[attr-defined]
        with driver.session(database=memory.backend._database) as session:  # type: ignore[attr-defined]
            nodes = [list(r.values()) for r in session.run(
                "MATCH (n) WHERE n.scope = $scope RETURN labels(n), properties(n)", scope=scope)]
            links = [list(r.values()) for r in session.run(
                "MATCH (a)-[r]->(b) WHERE a.scope = $scope OR b.scope = $scope "
                f"RETURN type(r), properties(r), {ends}", scope=scope)]
        memory.purge(scope=scope)
        drop_neo4j_scope(driver, scope)
    memory.close()
    shutil.rmtree(folder, ignore_errors=True)
    return [*sorted(json.dumps(_typed(n), sort_keys=True) for n in nodes),
            *sorted(json.dumps(_typed(r), sort_keys=True) for r in links)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend", choices=("falkordb", "neo4j"), default="falkordb")
    parser.add_argument("--batches", type=int, default=6)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    if os.environ.get("PYTHONHASHSEED") != "0":
        parser.error("run with PYTHONHASHSEED=0 (sets' order reaches stored values, e.g. the rules' audit entry)")
    lines = dump(args.backend, args.batches)
    text = "\n".join(lines) + "\n"
    args.out.write_text(text)
    import synapse_graph

    print(json.dumps({"library": synapse_graph.__file__, "lines": len(lines),
                      "sha256": hashlib.sha256(text.encode()).hexdigest()}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
