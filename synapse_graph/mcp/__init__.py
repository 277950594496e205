"""synapse-graph as an MCP server: the memory's tools for agents (``synapse-graph mcp``).

Needs the ``mcp`` extra: ``pip install '.[mcp]'`` from a clone. The tools themselves
(:mod:`synapse_graph.mcp.tools`, :mod:`synapse_graph.mcp.dispatch`) do not need the MCP SDK:
:mod:`synapse_graph.tools` offers them to agents that call functions instead. So this package
loads the SDK only when its server is asked for.

Example:
    >>> from synapse_graph import AsyncMemory
    >>> from synapse_graph.mcp import ServerOptions, serve
    >>> serve(AsyncMemory("memory.db", scope="acme/web"), ServerOptions())   # stdio, until the client closes it
"""

from __future__ import annotations

from collections.abc import Callable
from importlib import import_module
from typing import TYPE_CHECKING, Any

from synapse_graph.aio import AsyncMemory
from synapse_graph.extras import needs_extra

if TYPE_CHECKING:
    from synapse_graph.mcp.server import PROFILES, Profile, ServerOptions, build_server
    from synapse_graph.mcp.transport import HttpSettings

__all__ = ["PROFILES", "HttpSettings", "Profile", "ServerOptions", "build_server", "serve"]

_LAZY = {"PROFILES": "server", "Profile": "server", "ServerOptions": "server", "build_server": "server",
         "HttpSettings": "transport"}


def __getattr__(name: str) -> Any:
    """The server's names, loaded (with the MCP SDK) on first use."""
    if name in _LAZY:
        with needs_extra("mcp", "the MCP server"):
            return getattr(import_module(f"synapse_graph.mcp.{_LAZY[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def serve(memory: AsyncMemory, options: ServerOptions | None = None, http: HttpSettings | None = None, *,
          ready: Callable[[AsyncMemory], None] | None = None) -> None:
    """Open ``memory``, serve it over stdio (or streamable HTTP with ``http``) until the transport ends, close it.

    A memory bound to a session registers it first (registering again changes nothing: its expiry never
    moves). ``ready`` is called once the memory is open, before the first request is read.
    """
    with needs_extra("mcp", "the MCP server"):
        import anyio

        from synapse_graph.mcp.server import build_server
        from synapse_graph.mcp.transport import serve_http, serve_stdio

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
