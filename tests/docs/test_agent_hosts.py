"""The agent hosts' configuration snippets in the docs start our real server.

Every MCP server configuration on a page (Codex's TOML, the JSON of Claude Code, Cursor, Claude Desktop and
VS Code, ``claude mcp add ... -- COMMAND``, the loopback HTTP example) is parsed from the page as written, and
the server it configures is started and asked for its tools by the MCP SDK's own client.
"""

from __future__ import annotations

import json
import re
import shlex
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import anyio
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from sybil import Document
from sybil.parsers.markdown.lexers import FencedCodeBlockLexer

from tests.docs.pages import BIN, DOCS, page_env, pages
from tests.mcp.conftest import NATIVE_TOOLS, REFERENCE_TOOLS, ServerCommand, free_port, http_server

pytestmark = pytest.mark.integration
HOSTS = ("Claude Code", "Codex", "Cursor", "Claude Desktop", "VS Code", "One server over HTTP on loopback")


@dataclass(frozen=True)
class Snippet:
    page: str
    section: str
    language: str
    name: str
    entry: dict[str, Any]

    @property
    def where(self) -> str:
        return f"{self.page} § {self.section} ({self.language} {self.name!r})"


def blocks(path: Path) -> Iterator[tuple[str, str, str]]:
    """``(section, language, source)`` of each fenced block, with the ``##`` heading it is under."""
    text = path.read_text(encoding="utf-8")
    lexer = FencedCodeBlockLexer(language=r"[^\n]*", mapping={"language": "language", "source": "source"})
    for region in lexer(Document(text, str(path))):
        headings = re.findall(r"^#{1,3} (.+)$", text[: region.start], flags=re.MULTILINE)
        yield (headings[-1] if headings else ""), str(region.lexemes["language"]).strip(), str(region.lexemes["source"])


def snippets(path: Path) -> Iterator[Snippet]:
    for section, language, source in blocks(path):
        servers: dict[str, Any] = {}
        if language == "json":
            data = json.loads(source)
            servers = data.get("mcpServers") or data.get("servers") or {}
        elif language == "toml":
            servers = tomllib.loads(source).get("mcp_servers", {})
        elif language == "bash":
            for line in source.replace("\\\n", " ").splitlines():
                if line.startswith("claude mcp add "):
                    words = shlex.split(line.split("#")[0])
                    command = words[words.index("--") + 1:]
                    servers[words[3]] = {"command": command[0], "args": command[1:]}
        elif language == "diff":  # a changed line of a client's configuration
            added = "".join(line[1:] for line in source.splitlines() if line.startswith("+"))
            servers = {"changed": json.loads("{" + added + "}")} if added else {}
        for name, entry in servers.items():
            yield Snippet(path.name, section, language, name, entry)


def every_snippet() -> list[Snippet]:
    return [snippet for path in pages() for snippet in snippets(path)]


def loopback_command(path: Path) -> list[str]:
    """The page's ``synapse-graph mcp --http 127.0.0.1:PORT ...`` command."""
    for _, language, source in blocks(path):
        for line in source.splitlines() if language == "bash" else ():
            if line.startswith("synapse-graph mcp --http"):
                return shlex.split(line.split("#")[0])
    raise AssertionError(f"{path.name} shows no `synapse-graph mcp --http` command")


async def tool_names(client: Client) -> list[str]:
    return [tool.name for tool in (await client.list_tools()).tools]


def expected_tools(args: list[str]) -> list[str]:
    return REFERENCE_TOOLS if "reference-memory" in args else NATIVE_TOOLS


def test_the_hosts_page_configures_every_host_and_codex_waits_for_the_server() -> None:
    found = list(snippets(DOCS / "agent-hosts.md"))
    assert {s.section for s in found} >= set(HOSTS), [s.where for s in found]
    [codex] = [s for s in found if s.language == "toml"]
    assert codex.section == "Codex" and codex.entry.get("required") is True, codex.entry
    [http] = [s for s in found if "url" in s.entry]
    assert "headers" not in http.entry and urlsplit(http.entry["url"]).hostname == "127.0.0.1"


def test_every_stdio_snippet_of_the_docs_starts_our_server(tmp_path: Path) -> None:
    stdio = [s for s in every_snippet() if "command" in s.entry]
    assert len(stdio) >= 6, [s.where for s in stdio]
    by_argv: dict[tuple[str, ...], list[Snippet]] = {}
    for snippet in stdio:
        assert snippet.entry["command"] == "synapse-graph", snippet.where
        args = [str(arg) for arg in snippet.entry.get("args", [])]
        assert args[:1] == ["mcp"], snippet.where
        by_argv.setdefault(tuple(args), []).append(snippet)
    env = page_env(tmp_path, {})  # the default store is the test's own (memory.db in its user data dir)

    async def main() -> None:
        for args, users in by_argv.items():
            server = StdioServerParameters(command=str(BIN / "synapse-graph"), args=list(args), env=env)
            async with Client(server) as client:
                assert await tool_names(client) == expected_tools(list(args)), [s.where for s in users]

    anyio.run(main)


def test_the_loopback_http_snippet_connects_without_a_token(tmp_path: Path) -> None:
    page = DOCS / "agent-hosts.md"
    [http] = [s for s in snippets(page) if "url" in s.entry]
    command = loopback_command(page)
    port = free_port()
    bind = command[command.index("--http") + 1]
    assert bind.startswith("127.0.0.1:") and urlsplit(http.entry["url"]).port == int(bind.split(":")[1])
    url = http.entry["url"].replace(f":{bind.split(':')[1]}/", f":{port}/")
    scope = command[command.index("--scope") + 1]
    env = {k: v for k, v in page_env(tmp_path, {}).items() if k != "SYNAPSE_MCP_TOKEN"}
    server = ServerCommand("falkordb", str(tmp_path / "memory.db"), scope, env)

    async def main() -> None:
        async with Client(streamable_http_client(url)) as client:
            assert await tool_names(client) == NATIVE_TOOLS

    with http_server(server, port, env=env, log=tmp_path / "server.log"):
        anyio.run(main)
