"""synapse-graph as an MCP server: the memory's tools for agents (``synapse-graph mcp``).

Needs the ``mcp`` extra: ``pip install 'synapse-graph[mcp]'``.

Example:
    >>> from synapse_graph import AsyncMemory
    >>> from synapse_graph.mcp import ServerOptions, serve
    >>> serve(AsyncMemory("memory.db", scope="acme/web"), ServerOptions())   # stdio, until the client closes it
"""

from __future__ import annotations

from collections.abc import Callable

import anyio

from synapse_graph.aio import AsyncMemory
from synapse_graph.mcp.server import PROFILES, Profile, ServerOptions, build_server
from synapse_graph.mcp.transport import HttpSettings, serve_http, serve_stdio

__all__ = ["PROFILES", "HttpSettings", "Profile", "ServerOptions", "build_server", "serve"]


def serve(memory: AsyncMemory, options: ServerOptions | None = None, http: HttpSettings | None = None, *,
          ready: Callable[[AsyncMemory], None] | None = None) -> None:
    """Open ``memory``, serve it over stdio (or streamable HTTP with ``http``) until the transport ends, close it.

    A memory bound to a session registers it first (registering again changes nothing: its expiry never
    moves). ``ready`` is called once the memory is open, before the first request is read.
    """

    async def run() -> None:
        async with memory:
            if memory.session is not None:
                await memory.register_session()
            server = build_server(memory, options)
            if ready is not None:
                ready(memory)
            if http is None:
                await serve_stdio(server)
            else:
                await serve_http(server, http)

    anyio.run(run)
