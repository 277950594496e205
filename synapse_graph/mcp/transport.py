"""Serving the MCP server: over stdio, or over streamable HTTP with its guards.

HTTP binds to 127.0.0.1 unless told otherwise, always checks ``Host`` and ``Origin``
against the names the server may be reached by (the SDK's DNS-rebinding protection), and
requires a bearer token whenever it listens on anything but loopback. The token comes from
``$SYNAPSE_MCP_TOKEN`` or a file only its owner can read, never from the command line
(where other users of the machine could read it in the process list).
"""

from __future__ import annotations

import hmac
import ipaddress
import os
import stat
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mcp.server import Server
from mcp.server.stdio import stdio_server
from mcp.server.transport_security import TransportSecuritySettings
from starlette.types import ASGIApp, Receive, Scope, Send

from synapse_graph.errors import ConfigurationError

TOKEN_ENV = "SYNAPSE_MCP_TOKEN"  # noqa: S105 - the variable's name, not a token
MIN_TOKEN_LENGTH = 32
DEFAULT_PORT = 8765
_LOOPBACK_NAMES = ("localhost",)
_MAKE_TOKEN = "python -c 'import secrets; print(secrets.token_urlsafe(32))'"  # noqa: S105 - how to make one


@dataclass(frozen=True)
class Bind:
    """Where the HTTP server listens."""

    host: str
    port: int

    @property
    def loopback(self) -> bool:
        if self.host in _LOOPBACK_NAMES:
            return True
        try:
            return ipaddress.ip_address(self.host).is_loopback
        except ValueError:
            return False

    @property
    def wildcard(self) -> bool:
        return self.host in ("0.0.0.0", "::")  # noqa: S104 - naming it, not binding it

    @property
    def url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}/mcp"


def parse_bind(text: str) -> Bind:
    """``HOST:PORT``, ``[IPv6]:PORT``, ``:PORT`` or ``PORT`` (host 127.0.0.1)."""
    host, _, port = text.rpartition(":")
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    host = host or "127.0.0.1"
    if not port.isdigit() or not 0 < int(port) < 65536:
        raise ConfigurationError(f"--http wants HOST:PORT with a port from 1 to 65535, e.g. 127.0.0.1:{DEFAULT_PORT}; "
                                 f"got {text!r}")
    return Bind(host=host, port=int(port))


def load_token(environ: Mapping[str, str], token_file: Path | None) -> str | None:
    """The bearer token from ``token_file`` (readable by its owner alone) or ``$SYNAPSE_MCP_TOKEN``; None if neither."""
    if token_file is not None:
        try:
            mode = token_file.stat().st_mode
            token = token_file.read_text(encoding="utf-8").strip()
        except OSError as exc:
            raise ConfigurationError(f"cannot read the token file {str(token_file)!r}: {exc.strerror}") from None
        if mode & (stat.S_IRWXG | stat.S_IRWXO):
            raise ConfigurationError(f"the token file {str(token_file)!r} can be read by others "
                                     f"(mode {stat.S_IMODE(mode):o}); run: chmod 600 {token_file}")
    else:
        token = environ.get(TOKEN_ENV, "").strip()
    if not token:
        if token_file is not None:
            raise ConfigurationError(f"the token file {str(token_file)!r} is empty")
        return None
    if len(token) < MIN_TOKEN_LENGTH or any(c.isspace() for c in token):
        raise ConfigurationError(f"the bearer token must be at least {MIN_TOKEN_LENGTH} characters without spaces; "
                                 f"make one with: {_MAKE_TOKEN}")
    return token


def check_http(bind: Bind, token: str | None, allowed_hosts: Iterable[str]) -> None:
    """Refuse settings that would expose the memory: no token off loopback, a wildcard bind without host names."""
    if not bind.loopback and token is None:
        raise ConfigurationError(
            f"listening on {bind.host} (not loopback) needs a bearer token: put one in ${TOKEN_ENV} or in a file "
            f"readable only by you passed as --token-file (make one with: {_MAKE_TOKEN})")
    if bind.wildcard and not list(allowed_hosts):
        raise ConfigurationError(
            f"listening on every interface ({bind.host}) needs the names clients reach this machine by, for the "
            "DNS-rebinding check: add --allowed-host NAME (repeatable), e.g. --allowed-host memory.example.lan")


def security_settings(bind: Bind, allowed_hosts: Iterable[str]) -> TransportSecuritySettings:
    """DNS-rebinding protection on: only requests addressed to loopback, the bound address or the allowed names."""
    names = ["127.0.0.1", "localhost", "[::1]", f"[{bind.host}]" if ":" in bind.host else bind.host,
             *allowed_hosts]
    names = list(dict.fromkeys(n for n in names if not Bind(n, 1).wildcard))
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
