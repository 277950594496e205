"""Where a run happens: the embedded FalkorDB started for it, or the Neo4j server it is given."""

from __future__ import annotations

import contextlib
import os
import shutil
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchmarks import neo4j_local
from benchmarks.baseline import FalkorRaw, Neo4jRaw, RawStore, drop_neo4j_scope, graph_memory_mb
from benchmarks.generate import Dataset
from benchmarks.measure import dir_bytes, rss
from synapse_graph import Memory


def neo4j_settings() -> tuple[str, tuple[str, str]]:
    """``SYNAPSE_NEO4J_*`` from the environment, else what ``scripts/neo4j-local env`` prints (starting it)."""
    env = dict(os.environ)
    if not env.get("SYNAPSE_NEO4J_URL"):
        env.update(neo4j_local.start_and_env())
    return env["SYNAPSE_NEO4J_URL"], (env.get("SYNAPSE_NEO4J_USER", "neo4j"), env.get("SYNAPSE_NEO4J_PASSWORD", ""))


@dataclass
class Target:
    """One backend of the run: where it is, how to open things on it, how to measure its footprint."""

    name: str
    location: str
    auth: tuple[str, str] | None
    workdir: Path | None = None
    socket_path: str | None = None
    server_pid: int | None = None
    neo4j_home: Path | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    def memory(self, scope: str, dataset: Dataset) -> Memory:
        size = len(dataset.writes)
        return Memory(
            self.location, scope=scope, auth=self.auth, max_facts=size * 2 + 1_000,
            max_entities=dataset.entities * 2 + 1_000, single_valued=dataset.single_valued,
        )

    def raw(self, scope: str) -> RawStore:
        if self.name == "falkordb":
            assert self.socket_path is not None
            return FalkorRaw(self.socket_path, scope)
        return Neo4jRaw(self.location, self.auth, scope)

    def footprint(self, memory: Memory, raw: RawStore) -> dict[str, Any]:
        if self.name == "falkordb":
            assert self.workdir is not None
            db = Path(memory.location)
            disk = dir_bytes(db) + dir_bytes(db.with_name(db.name + ".aof"))
            from falkordb import FalkorDB

            client = FalkorDB(unix_socket_path=self.socket_path)
            info = client.connection.info("memory")
            result = {
                "disk_bytes_total": disk,
                "server_rss_bytes": rss(self.server_pid),
                "used_memory_bytes": info.get("used_memory"),
                "graph_mb_ours": graph_memory_mb(client, "synapse"),
                "graph_mb_raw": graph_memory_mb(client, "bench_raw"),
            }
            client.connection.close()
            return result
        # The store files of the default database (transaction logs, kept for recovery, excluded).
        store = self.neo4j_home / "data" / "databases" / "neo4j" if self.neo4j_home else None
        return {
            "disk_bytes_total": dir_bytes(store) if store else None,
            "server_rss_bytes": rss(self.server_pid),
        }


@contextlib.contextmanager
def open_target(name: str, workroot: Path, run_id: str, *, keep: bool = False) -> Iterator[Target]:
    if name == "falkordb":
        workdir = workroot / "tmp" / run_id
        workdir.mkdir(parents=True, exist_ok=True)
        location = str(workdir / "bench.db")
        keeper = Memory(location, scope="bench-keeper")  # holds the embedded server up for the whole run
        server = keeper.backend.server  # type: ignore[attr-defined]
        try:
            yield Target(name, location, None, workdir=workdir, socket_path=server.connect_path,
                         server_pid=server.pid())
        finally:
            keeper.close()
            if not keep:
                shutil.rmtree(workdir, ignore_errors=True)
        return
    url, auth = neo4j_settings()
    home = os.environ.get("SYNAPSE_NEO4J_HOME") or str(
        Path(os.environ.get("SYNAPSE_CACHE_DIR") or Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
             / "synapse-graph") / "neo4j-state"
    )
    yield Target(name, url, auth, server_pid=neo4j_local.pid(), neo4j_home=Path(home))


def drop_scopes(target: Target, scopes: list[str]) -> None:
    if target.name == "falkordb":
        return  # the whole database folder goes
    with contextlib.suppress(Exception):
        import neo4j

        with neo4j.GraphDatabase.driver(target.location, auth=target.auth) as driver:
            for scope in scopes:
                drop_neo4j_scope(driver, scope)
