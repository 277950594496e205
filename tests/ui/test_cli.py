"""``synapse-graph ui``: what it refuses before it opens anything, and that it serves a store (both backends)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any

import pytest

from synapse_graph import Memory, Triple
from tests.ci import require
from tests.ui.conftest import free_port

EXE = str(Path(sys.executable).with_name("synapse-graph"))
CLEAN = {k: v for k, v in os.environ.items() if not k.startswith("SYNAPSE_")}


def test_it_refuses_to_expose_the_memory_before_opening_it(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    refused = subprocess.run([EXE, "ui", "--db", str(db), "--host", "0.0.0.0", "--port", str(free_port())],
                             env=CLEAN, capture_output=True, text=True, timeout=60, check=False)
    assert refused.returncode == 2 and "needs a bearer token" in refused.stderr and "SYNAPSE_UI_TOKEN" in refused.stderr
    missing = subprocess.run([EXE, "ui", "--db", str(db), "--port", str(free_port())], env=CLEAN, capture_output=True,
                             text=True, timeout=60, check=False)
    assert missing.returncode == 2 and "m.db" in missing.stderr
    assert not db.exists()  # nothing was created


@pytest.mark.integration
@pytest.mark.timeout(180)
def test_it_serves_the_store_until_stopped(backend_settings: dict[str, Any]) -> None:
    httpx = require("httpx")
    require("fastapi")
    settings = dict(backend_settings)
    location = settings.pop("location")
    scope = f"ui-cli-{uuid.uuid4().hex[:8]}"
    env = dict(CLEAN)
    if "auth" in settings:
        env.update(SYNAPSE_NEO4J_USER=settings["auth"][0], SYNAPSE_NEO4J_PASSWORD=settings["auth"][1])
    with Memory(location, scope=scope, **settings) as memory:
        memory.upsert(Triple(subject="Dana", predicate="LIVES_IN", object="Paris"))
        port = free_port()
        server = subprocess.Popen([EXE, "ui", "--db", location, "--scope", scope, "--port", str(port)], env=env,
                                  stderr=subprocess.PIPE, text=True)
        try:
            assert server.stderr is not None
            banner = server.stderr.readline()
            assert f"synapse-graph inspector at http://127.0.0.1:{port}/ (scope '{scope}')" in banner, banner
            answer = httpx.get(f"http://127.0.0.1:{port}/api/facts", params={"subject": "Dana"}, timeout=30)
            assert [f["object"] for f in answer.json()] == ["Paris"]
            assert httpx.get(f"http://127.0.0.1:{port}/review", timeout=30).status_code == 404  # no --allow-review
        finally:
            server.terminate()
            server.wait(timeout=30)
            memory.purge(scope=scope)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                httpx.get(f"http://127.0.0.1:{port}/", timeout=1)
            except httpx.TransportError:
                break
            time.sleep(0.2)
        else:
            pytest.fail("the inspector still answers after it was stopped")


@pytest.mark.integration
@pytest.mark.timeout(300)
def test_the_page_benchmark_runs_on_a_small_store(tmp_path: Path) -> None:
    require("fastapi")
    from benchmarks import inspector_pages

    out = tmp_path / "pages.json"
    assert inspector_pages.main(["--size", "400", "--backend", "falkordb", "--rounds", "2", "--out", str(out)]) == 0
    import json

    result = json.loads(out.read_text(encoding="utf-8"))
    assert result["facts_in_store"] > 300 and len(result["pages"]) == (
        len(inspector_pages.pages("a", "b", "c")) + len(inspector_pages.AFTER_A_WRITE))
    assert all(row["n"] == 2 and row["server_p95_ms"] > 0 for row in result["pages"].values())
