"""Streamable HTTP: loopback by default, DNS-rebinding protection always on, a bearer token off loopback.

The token never travels on the command line: it comes from ``$SYNAPSE_MCP_TOKEN`` or a file only its owner
can read.
"""

from __future__ import annotations

import json
import secrets
import subprocess
from pathlib import Path

import anyio
import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from synapse_graph.errors import ConfigurationError
from synapse_graph.mcp.transport import Bind, HttpSettings, parse_bind
from tests.mcp.conftest import NATIVE_TOOLS, ServerCommand, free_port, http_server

INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "probe", "version": "0"}}}
HEADERS = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}


def test_bind_addresses_and_which_need_a_token(tmp_path: Path) -> None:
    assert parse_bind("8765") == Bind("127.0.0.1", 8765) and parse_bind(":8765") == Bind("127.0.0.1", 8765)
    assert parse_bind("[::1]:9000") == Bind("::1", 9000) and Bind("::1", 9000).loopback
    assert not parse_bind("192.168.1.20:80").loopback
    for bad in ("localhost", "127.0.0.1:0", "127.0.0.1:70000", "host:port"):
        with pytest.raises(ConfigurationError, match="HOST:PORT"):
            parse_bind(bad)

    token = secrets.token_urlsafe(32)
    assert HttpSettings.resolve("127.0.0.1:8765", environ={}).token is None  # loopback: a token is optional
    with pytest.raises(ConfigurationError, match="needs a bearer token"):
        HttpSettings.resolve("192.168.1.20:8765", environ={})
    assert HttpSettings.resolve("192.168.1.20:8765", environ={"SYNAPSE_MCP_TOKEN": token}).token == token
    with pytest.raises(ConfigurationError, match="--allowed-host"):
        HttpSettings.resolve("0.0.0.0:8765", environ={"SYNAPSE_MCP_TOKEN": token})
    with pytest.raises(ConfigurationError, match="at least 32 characters"):
        HttpSettings.resolve("192.168.1.20:8765", environ={"SYNAPSE_MCP_TOKEN": "hunter2"})

    token_file = tmp_path / "token"
    token_file.write_text(token + "\n")
    token_file.chmod(0o644)
    with pytest.raises(ConfigurationError, match="chmod 600"):
        HttpSettings.resolve("192.168.1.20:8765", token_file=token_file, environ={})
    token_file.chmod(0o600)
    settings = HttpSettings.resolve("0.0.0.0:8765", token_file=token_file, allowed_hosts=["memory.lan"], environ={})
    assert settings.token == token and settings.allowed_hosts == ("memory.lan",)


@pytest.mark.integration
def test_cli_refuses_to_listen_off_loopback_without_a_token(embedded_server: ServerCommand) -> None:
    port = free_port()
    env = {k: v for k, v in embedded_server.process_env().items() if k != "SYNAPSE_MCP_TOKEN"}
    run = subprocess.run(embedded_server.argv("--http", f"0.0.0.0:{port}"), env=env, capture_output=True,
                         text=True, timeout=60, check=False)
    assert run.returncode == 2 and "needs a bearer token" in run.stderr and "SYNAPSE_MCP_TOKEN" in run.stderr
    assert not Path(embedded_server.db).exists()  # refused before opening the store or binding


@pytest.mark.integration
def test_http_server_checks_the_token_and_the_host(embedded_server: ServerCommand, tmp_path: Path) -> None:
    token = secrets.token_urlsafe(32)
    port = free_port()
    url = f"http://127.0.0.1:{port}/mcp"

    async def main() -> None:
        async with httpx2.AsyncClient(timeout=30) as raw:
            anonymous = await raw.post(url, json=INITIALIZE, headers=HEADERS)
            assert anonymous.status_code == 401 and "Bearer" in anonymous.headers["www-authenticate"]
            wrong = await raw.post(url, json=INITIALIZE, headers={**HEADERS, "Authorization": "Bearer " + "x" * 43})
            assert wrong.status_code == 401
            rebound = await raw.post(url, json=INITIALIZE, headers={
                **HEADERS, "Authorization": f"Bearer {token}", "Host": "evil.example:80"})
            assert rebound.status_code == 421  # the SDK's DNS-rebinding protection, kept on
        async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=30) as authorised, \
                Client(streamable_http_client(url, http_client=authorised)) as client:
            assert [t.name for t in (await client.list_tools()).tools] == NATIVE_TOOLS
            saved = await client.call_tool("upsert_graph_triples", {"triples": [
                {"subject": "Dana", "predicate": "WORKS_AT", "object": "Acme"}]})
            assert not saved.is_error
            found = await client.call_tool("query_facts", {"subject": "Dana"})
            assert found.structured_content is not None
            assert [f["fact"][2] for f in found.structured_content["facts"]] == ["Acme"]

    with http_server(embedded_server, port, env={"SYNAPSE_MCP_TOKEN": token}, log=tmp_path / "server.log"):
        anyio.run(main)
    assert token not in json.dumps(embedded_server.argv())
