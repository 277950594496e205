"""The MCP Inspector's CLI (``@modelcontextprotocol/inspector``, Node >= 22) lists and calls our tools over stdio."""

from __future__ import annotations

import json
import subprocess
from typing import Any

import pytest

from synapse_graph.models import RECALL_NOTICE
from tests.mcp.conftest import NATIVE_TOOLS, NodeTools, ServerCommand

pytestmark = pytest.mark.integration


def test_inspector_lists_and_calls_the_tools(embedded_server: ServerCommand, node_tools: NodeTools) -> None:
    def inspector(*method: str, code: int = 0) -> dict[str, Any]:
        # Under --cli the server command comes first; after "--" come the Inspector's own options.
        run = subprocess.run([str(node_tools.inspector), "--cli", *embedded_server.argv(), "--", *method,
                              "--format", "json"], env=node_tools.env(), capture_output=True, text=True, timeout=300,
                             check=False)
        assert run.returncode == code, f"exit {run.returncode}: {run.stdout[-2000:]}\n{run.stderr[-2000:]}"
        return json.loads(run.stdout)["result"]  # type: ignore[no-any-return]

    listed = inspector("--method", "tools/list")
    assert [tool["name"] for tool in listed["tools"]] == NATIVE_TOOLS
    assert all(tool["outputSchema"]["type"] == "object" for tool in listed["tools"])

    saved = inspector("--method", "tools/call", "--tool-name", "upsert_graph_triples", "--tool-args-json", json.dumps(
        {"triples": [{"subject": "Dana", "predicate": "LIVES_IN", "object": "Paris", "valid_at": "2019-03-01"},
                     {"subject": "Dana", "predicate": "LIVES_IN", "object": "London", "valid_at": "2022-09-15"}]}))
    assert saved["structuredContent"] == {"created": 2, "confirmed": 0, "closed": 0, "entities_created": 3,
                                          "aliases_merged": 0}

    recalled = inspector("--method", "tools/call", "--tool-name", "recall_context",
                         "--tool-arg", "query=where does Dana live", "--tool-arg", "as_of=2020-01-01")
    assert [(f["fact"][0], f["fact"][2]) for f in recalled["structuredContent"]["memories"]] == [("Dana", "Paris")]
    assert recalled["content"][0]["text"].startswith(RECALL_NOTICE) and not recalled.get("isError")

    refused = inspector("--method", "tools/call", "--tool-name", "recall_context", "--tool-arg", "hops=3", code=5)
    assert refused["isError"] is True
    assert "'query' is a required property" in refused["content"][0]["text"]
    assert "hops: must be one of 1, 2" in refused["content"][0]["text"]
