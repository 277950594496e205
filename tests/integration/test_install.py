"""Having the ``synapse-graph`` command (issue 33): the way docs/install.md gives, followed word for word.

``scripts/dev demo`` ends by saying how to have the command. ``pipx install '.[mcp]'``, run in the
clone as the docs say (pipx from PyPI, its home in a temporary folder), puts a ``synapse-graph`` on the
PATH; an agent host then starts the MCP server exactly as the docs' ``claude mcp add`` line and
``.mcp.json`` tell it to, with nothing but that folder and the system's on its PATH, and the SDK's client
lists the memory's tools through it.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import anyio
import pytest
from mcp import Client, StdioServerParameters

from tests.ci import require

ROOT = Path(__file__).resolve().parents[2]
INSTALL = ROOT / "docs" / "install.md"
SYSTEM_PATH = "/usr/bin:/bin"


def _blocks(language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", INSTALL.read_text(encoding="utf-8"), re.DOTALL)


def test_the_demo_ends_by_saying_how_to_have_the_command(tmp_path: Path) -> None:
    env = {**{k: v for k, v in os.environ.items() if not k.startswith("SYNAPSE_")},
           "SYNAPSE_VENV": sys.prefix, "SYNAPSE_DB": str(tmp_path / "demo.db")}
    result = subprocess.run([str(ROOT / "scripts" / "dev"), "demo"], cwd=ROOT, env=env, capture_output=True,
                            text=True, timeout=900, check=False)
    assert result.returncode == 0, result.stderr[-3000:]
    assert "2-hop neighbourhood of Dana now" in result.stdout
    said = result.stderr[result.stderr.index("The synapse-graph command is in"):]
    assert f"source {sys.prefix}/bin/activate" in said and "pipx install '.[mcp]'" in said, said
    assert "claude mcp add synapse -- synapse-graph mcp" in said and "docs/install.md" in said


@pytest.mark.timeout(900)
def test_pipx_install_from_the_clone_gives_the_command_agents_start(tmp_path: Path) -> None:
    require("pipx")
    [install] = [line for block in _blocks("bash") for line in block.splitlines() if line.startswith("pipx install")]
    assert install == "pipx install '.[mcp]'"
    home = {"PIPX_HOME": str(tmp_path / "pipx"), "PIPX_BIN_DIR": str(tmp_path / "bin"),
            "PIPX_MAN_DIR": str(tmp_path / "man")}
    env = {**{k: v for k, v in os.environ.items() if not k.startswith(("SYNAPSE_", "PIPX_"))}, **home}
    installed = subprocess.run([sys.executable, "-m", *shlex.split(install)], cwd=ROOT, env=env,
                               capture_output=True, text=True, timeout=900, check=False)
    assert installed.returncode == 0, installed.stderr[-3000:]
    on_path = {"PATH": f"{tmp_path / 'bin'}:{SYSTEM_PATH}", "HOME": str(tmp_path),
               "SYNAPSE_DB": str(tmp_path / "agent" / "memory.db")}
    (tmp_path / "agent").mkdir()
    shown = subprocess.run(["synapse-graph", "--help"], env=on_path, capture_output=True, text=True, timeout=120,
                           check=False)
    assert shown.returncode == 0 and "Serve the memory to agents over MCP" in shown.stdout, shown

    [add_line] = [line for block in _blocks("bash") for line in block.splitlines()
                  if line.startswith("claude mcp add")]
    command_of_add = shlex.split(add_line)[shlex.split(add_line).index("--") + 1:]
    [config] = [json.loads(block) for block in _blocks("json") if "mcpServers" in block]
    server = config["mcpServers"]["synapse"]
    assert [server["command"], *server["args"]] == command_of_add  # the two ways start the same server

    async def tools() -> list[str]:
        params = StdioServerParameters(command=server["command"], args=server["args"], env=on_path)
        async with Client(params) as client:
            return sorted(tool.name for tool in (await client.list_tools()).tools)

    listed = anyio.run(tools)
    assert {"upsert_graph_triples", "recall_context", "memory_digest"} <= set(listed), listed
