"""Serving the MCP server: over stdio, or over streamable HTTP with its guards.

HTTP binds to 127.0.0.1 unless told otherwise, always checks ``Host`` and ``Origin``
against the names the server may be reached by (the SDK's DNS-rebinding protection), and
requires a bearer token whenever it listens on anything but loopback. The token comes from
``$SYNAPSE_MCP_TOKEN`` or a file only its owner can read, never from the command line
(where other users of the machine could read it in the process list).
"""

from __future__ import annotations

import hmac
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mcp.server import Server
from mcp.server.stdio import stdio_server
from mcp.server.transport_security import TransportSecuritySettings
from starlette.types import ASGIApp, Receive, Scope, Send

from synapse_graph import listening
from synapse_graph.listening import host_names

TOKEN_ENV = "SYNAPSE_MCP_TOKEN"  # noqa: S105 - the variable's name, not a token
DEFAULT_PORT = 8765


@dataclass(frozen=True)
class Bind(listening.Bind):
    """Where the HTTP server listens."""

    @property
    def url(self) -> str:
        return f"{self.origin}/mcp"


def parse_bind(text: str) -> Bind:
    """``HOST:PORT``, ``[IPv6]:PORT``, ``:PORT`` or ``PORT`` (host 127.0.0.1)."""
    found = listening.parse_bind(text, option="--http", example_port=DEFAULT_PORT)
    return Bind(found.host, found.port)


def load_token(environ: Mapping[str, str], token_file: Path | None) -> str | None:
    """The bearer token from ``token_file`` (readable by its owner alone) or ``$SYNAPSE_MCP_TOKEN``; None if neither."""
    return listening.load_token(environ, token_file, TOKEN_ENV)


def check_http(bind: Bind, token: str | None, allowed_hosts: Iterable[str]) -> None:
    """Refuse settings that would expose the memory: no token off loopback, a wildcard bind without host names."""
    listening.check_exposure(bind, token, allowed_hosts, TOKEN_ENV)


def security_settings(bind: Bind, allowed_hosts: Iterable[str]) -> TransportSecuritySettings:
    """DNS-rebinding protection on: only requests addressed to loopback, the bound address or the allowed names."""
    names = host_names(bind, allowed_hosts)
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=[h for n in names for h in (n, f"{n}:*")],
        allowed_origins=[f"{scheme}://{h}" for n in names for h in (n, f"{n}:*") for scheme in ("http", "https")],
    )


class BearerToken:
    """ASGI middleware: every HTTP request must carry ``Authorization: Bearer <token>``."""

    def __init__(self, app: ASGIApp, token: str) -> None:
        self.app = app
        self._expected = f"Bearer {token}".encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            given = dict(scope["headers"]).get(b"authorization", b"")
            if not hmac.compare_digest(given, self._expected):
                await send({"type": "http.response.start", "status": 401, "headers": [
                    (b"content-type", b"application/json"), (b"www-authenticate", b'Bearer realm="synapse-graph"')]})
                await send({"type": "http.response.body",
                            "body": b'{"error": "unauthorized: send Authorization: Bearer <token>"}'})
                return
        await self.app(scope, receive, send)


@dataclass(frozen=True)
class HttpSettings:
    """Where and how to serve HTTP, checked before anything starts."""

    bind: Bind
    token: str | None
    allowed_hosts: tuple[str, ...] = ()

    @classmethod
    def resolve(cls, address: str, *, token_file: Path | None = None, allowed_hosts: Iterable[str] = (),
                environ: Mapping[str, str] | None = None) -> HttpSettings:
        """Parse ``--http``, load the token, and refuse unsafe combinations (:class:`ConfigurationError`)."""
        bind = parse_bind(address)
        token = load_token(os.environ if environ is None else environ, token_file)
        hosts = tuple(allowed_hosts)
        check_http(bind, token, hosts)
        return cls(bind=bind, token=token, allowed_hosts=hosts)


async def serve_stdio(server: Server[Any]) -> None:
    """Serve one client over this process's stdin and stdout until the client closes stdin."""
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


async def serve_http(server: Server[Any], settings: HttpSettings, *, log_level: str = "warning") -> None:
    """Serve streamable HTTP at ``settings.bind.url`` until interrupted."""
    import uvicorn

    bind = settings.bind
    check_http(bind, settings.token, settings.allowed_hosts)
    app: ASGIApp = server.streamable_http_app(transport_security=security_settings(bind, settings.allowed_hosts),
                                              host=bind.host)
    if settings.token is not None:
        app = BearerToken(app, settings.token)
    config = uvicorn.Config(app, host=bind.host, port=bind.port, log_level=log_level, lifespan="on")
    await uvicorn.Server(config).serve()
