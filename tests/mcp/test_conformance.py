"""The MCP conformance suite (``@modelcontextprotocol/conformance``, HTTP only) against ``synapse-graph mcp --http``.

The whole "active" suite runs; the scenarios that cannot apply to this server (fixture tools, resources and
prompts of the suite's reference server; logging and completions, which we do not offer) are listed, with the
reason, in ``conformance-not-applicable.yml``, which the runner takes as its baseline: it fails on any other
failure and on a listed scenario that starts passing.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.mcp.conftest import NodeTools, ServerCommand, free_port, http_server

pytestmark = pytest.mark.integration
BASELINE = Path(__file__).with_name("conformance-not-applicable.yml")
REQUIRED = ("server-initialize", "ping", "tools-list", "dns-rebinding-protection", "server-sse-multiple-streams")


def test_conformance_suite_over_streamable_http(embedded_server: ServerCommand, node_tools: NodeTools,
                                                tmp_path: Path) -> None:
    port = free_port()
    results = tmp_path / "results"
    with http_server(embedded_server, port, log=tmp_path / "server.log"):
        run = subprocess.run(
            [str(node_tools.conformance), "server", "--url", f"http://127.0.0.1:{port}/mcp",
             "--expected-failures", str(BASELINE), "--output-dir", str(results)],
            env=node_tools.env(), capture_output=True, text=True, timeout=300, check=False)
    assert run.returncode == 0, f"{run.stdout[-4000:]}\n{run.stderr[-2000:]}"
    for scenario in REQUIRED:
        [folder] = results.glob(f"server-{scenario}-*")
        checks = json.loads((folder / "checks.json").read_text())
        assert checks and all(c["status"] == "SUCCESS" for c in checks), (scenario, checks)
