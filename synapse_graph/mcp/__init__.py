"""synapse-graph as an MCP server: the memory's tools for agents (``synapse-graph mcp``).

Needs the ``mcp`` extra: ``pip install 'synapse-graph[mcp]'``.

Example:
    >>> from synapse_graph import Memory
    >>> from synapse_graph.mcp import ServerOptions, serve
    >>> with Memory("memory.db", scope="acme/web") as memory:
    ...     serve(memory, ServerOptions())               # stdio, until the client closes it
"""

from __future__ import annotations

import functools

import anyio

from synapse_graph.mcp.server import ServerOptions, build_server
from synapse_graph.mcp.transport import HttpSettings, serve_http, serve_stdio
from synapse_graph.memory import Memory

__all__ = ["HttpSettings", "ServerOptions", "build_server", "serve"]


def serve(memory: Memory, options: ServerOptions | None = None, http: HttpSettings | None = None) -> None:
    """Serve ``memory`` over stdio, or over streamable HTTP with ``http``; returns when the transport ends."""
    server = build_server(memory, options)
    if http is None:
        anyio.run(serve_stdio, server)
    else:
        anyio.run(functools.partial(serve_http, server, http))
