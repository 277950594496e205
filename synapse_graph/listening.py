"""Who may talk to an HTTP server of ours (the MCP server's HTTP transport, the web inspector): shared rules.

A server binds to loopback unless told otherwise, answers only requests addressed to the names it may be
reached by (no DNS rebinding), and requires a bearer token whenever it listens on anything but loopback.
The token comes from an environment variable or a file only its owner can read, never from the command
line (where other users of the machine could read it in the process list). Pure: no server is imported.
"""

from __future__ import annotations

import ipaddress
import stat
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from synapse_graph.errors import ConfigurationError

MIN_TOKEN_LENGTH = 32
MAKE_TOKEN = "python -c 'import secrets; print(secrets.token_urlsafe(32))'"  # noqa: S105 - how to make one
_LOOPBACK_NAMES = ("localhost",)


@dataclass(frozen=True)
class Bind:
    """Where an HTTP server listens."""

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
    def origin(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}"


def parse_bind(text: str, *, option: str = "--http", example_port: int = 8765) -> Bind:
    """``HOST:PORT``, ``[IPv6]:PORT``, ``:PORT`` or ``PORT`` (host 127.0.0.1)."""
    host, _, port = text.rpartition(":")
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    host = host or "127.0.0.1"
    if not port.isdigit() or not 0 < int(port) < 65536:
        raise ConfigurationError(f"{option} wants HOST:PORT with a port from 1 to 65535, e.g. "
                                 f"127.0.0.1:{example_port}; got {text!r}")
    return Bind(host=host, port=int(port))


def load_token(environ: Mapping[str, str], token_file: Path | None, env: str) -> str | None:
    """The bearer token from ``token_file`` (readable by its owner alone) or ``$env``; None if neither."""
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
        token = environ.get(env, "").strip()
    if not token:
        if token_file is not None:
            raise ConfigurationError(f"the token file {str(token_file)!r} is empty")
        return None
    if len(token) < MIN_TOKEN_LENGTH or any(c.isspace() for c in token):
        raise ConfigurationError(f"the bearer token must be at least {MIN_TOKEN_LENGTH} characters without spaces; "
                                 f"make one with: {MAKE_TOKEN}")
    return token


def check_exposure(bind: Bind, token: str | None, allowed_hosts: Iterable[str], env: str) -> None:
    """Refuse settings that would expose the memory: no token off loopback, a wildcard bind without host names."""
    if not bind.loopback and token is None:
        raise ConfigurationError(
            f"listening on {bind.host} (not loopback) needs a bearer token: put one in ${env} or in a file "
            f"readable only by you passed as --token-file (make one with: {MAKE_TOKEN})")
    if bind.wildcard and not list(allowed_hosts):
        raise ConfigurationError(
            f"listening on every interface ({bind.host}) needs the names clients reach this machine by, for the "
            "DNS-rebinding check: add --allowed-host NAME (repeatable), e.g. --allowed-host memory.example.lan")


def host_names(bind: Bind, allowed_hosts: Iterable[str]) -> list[str]:
    """The names a request may be addressed to (its ``Host``, without the port): loopback, the bound address
    (unless it is a wildcard) and the names allowed."""
    names = ["127.0.0.1", "localhost", "[::1]", f"[{bind.host}]" if ":" in bind.host else bind.host, *allowed_hosts]
    return list(dict.fromkeys(n for n in names if not Bind(n, 1).wildcard))
