"""The inspector's guard: every HTTP request passes it before any page or API route (ASGI middleware).

In order, a request is refused when:

1. its ``Host`` is not a name the server may be reached by (421: no DNS rebinding), or its ``Origin`` (when
   a browser sends one) is not this server itself, or a browser says the change comes from another site (403);
2. the server has a token (always when it listens off loopback) and the request proves neither the token
   (``Authorization: Bearer``) nor a signed-in browser session (its HttpOnly cookie, given by ``/login`` for
   the token): pages redirect to ``/login``, everything else gets 401;
3. it changes something (POST, PUT, PATCH, DELETE) without the CSRF token of its browser session, in the
   ``X-CSRF-Token`` header or a ``csrf_token`` form field (403). A request carrying the bearer token needs
   none: a browser cannot be made to send that header to another site. ``/login`` itself changes nothing
   stored (the token is its proof).

Every answer gets the security headers (a strict Content-Security-Policy: scripts and styles from the
package only) and ``Server-Timing: app;dur=<ms>``, the time the server took until the answer started.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from http.cookies import SimpleCookie
from urllib.parse import parse_qs, quote

from starlette.datastructures import Headers
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from synapse_graph.ui.settings import UiSettings

SESSION_COOKIE = "synapse_ui"
CSRF_HEADER = "x-csrf-token"
CSRF_FIELD = "csrf_token"
UNSAFE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
MAX_FORM_BYTES = 1_000_000
OPEN_PATHS = ("/login", "/static/")
"""What a browser may load before it signs in: the sign-in form and the style sheet it uses."""

SECURITY_HEADERS = [
    (b"content-security-policy", b"default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
                                 b"connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"),
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"same-origin"),  # no-referrer would make a form's Origin "null"
    (b"cross-origin-opener-policy", b"same-origin"),
    (b"cross-origin-resource-policy", b"same-origin"),
]


@dataclass
class Sessions:
    """Browser sessions signed in with the token: their ids (the cookie's value) and when each ends."""

    hours: float = 12.0
    _ends: dict[str, float] = field(default_factory=dict)

    def start(self) -> str:
        now = time.monotonic()
        self._ends = {sid: end for sid, end in self._ends.items() if end > now}
        session = secrets.token_urlsafe(32)
        self._ends[session] = now + self.hours * 3600
        return session

    def valid(self, session: str | None) -> bool:
        end = self._ends.get(session or "")
        return end is not None and end > time.monotonic()

    def end(self, session: str | None) -> None:
        self._ends.pop(session or "", None)


class Guard:
    """The ASGI middleware described in the module's docstring."""

    def __init__(self, app: ASGIApp, settings: UiSettings, sessions: Sessions) -> None:
        self.app = app
        self.settings = settings
        self.sessions = sessions
        self._secret = secrets.token_bytes(32)
        self._bearer = None if settings.token is None else f"Bearer {settings.token}".encode()
        self._names = {n.lower() for n in settings.host_names}
        port = settings.bind.port
        schemes = ("http", "https")
        self._origins = {f"{scheme}://{name}:{port}" for name in self._names for scheme in schemes}
        # Behind a reverse proxy the browser's origin is the proxy's, on its default port.
        self._origins |= {f"{scheme}://{name.lower()}" for name in settings.allowed_hosts for scheme in schemes}

    def csrf_token(self, session: str) -> str:
        """The CSRF token of a browser session (its cookie's value), which its pages carry."""
        return hmac.new(self._secret, session.encode(), hashlib.sha256).hexdigest()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self.app(scope, receive, send)
            return
        if scope["type"] != "http":  # no websockets here
            await _refuse(send, 403, "this server speaks HTTP only")
            return
        started = time.perf_counter()
        headers = Headers(scope=scope)
        problem = self._address_problem(headers, scope["method"])
        if problem is not None:
            await _refuse(send, *problem)
            return
        cookie = _cookie(headers, SESSION_COOKIE)
        by_token = self._bearer is not None and hmac.compare_digest(headers.get("authorization", "").encode(),
                                                                    self._bearer)
        new_cookie = None
        if self._bearer is None:
            signed_in = True
            if not _well_formed(cookie):  # an anonymous browser session, for its CSRF token
                cookie = new_cookie = secrets.token_urlsafe(32)
        else:
            signed_in = by_token or self.sessions.valid(cookie)
        path: str = scope["path"]
        if not signed_in and not path.startswith(OPEN_PATHS):
            if scope["method"] == "GET" and "text/html" in headers.get("accept", ""):
                target = path + (f"?{scope['query_string'].decode('latin-1')}" if scope["query_string"] else "")
                await _respond(send, 303, b"", [(b"location", f"/login?next={quote(target, safe='')}".encode())])
            else:
                await _refuse(send, 401, "unauthorized: send Authorization: Bearer <token>, or sign in at /login",
                              [(b"www-authenticate", b'Bearer realm="synapse-graph"')])
            return
        if scope["method"] in UNSAFE_METHODS and not by_token and path != "/login":
            checked = await self._csrf_checked(scope, receive, headers, cookie)
            if checked is None:
                await _refuse(send, 403, "a change needs the CSRF token of this browser session (X-CSRF-Token "
                                         "header or csrf_token form field; GET /api/csrf gives it)")
                return
            receive = checked
        state = scope.setdefault("state", {})
        state["signed_in"] = signed_in
        state["session"] = cookie
        state["csrf_token"] = self.csrf_token(cookie) if cookie is not None and _well_formed(cookie) else ""
        await self.app(scope, receive, self._sending(send, scope, started, new_cookie))

    def _address_problem(self, headers: Headers, method: str) -> tuple[int, str] | None:
        host = _host_name(headers.get("host", ""))
        if host not in self._names:
            return 421, f"this server does not answer to the host name {host!r} (DNS-rebinding protection)"
        origin = headers.get("origin")
        if origin is not None and origin.lower().rstrip("/") not in self._origins:
            return 403, "requests from other sites are refused (Origin does not match this server)"
        if method in UNSAFE_METHODS and headers.get("sec-fetch-site") == "cross-site":
            return 403, "changes from other sites are refused"
        return None

    async def _csrf_checked(self, scope: Scope, receive: Receive, headers: Headers, session: str | None
                            ) -> Receive | None:
        """``receive`` (replaying a form body it had to read) if the request carries its session's CSRF token."""
        if not _well_formed(session):
            return None
        expected = self.csrf_token(session or "")
        given = headers.get(CSRF_HEADER)
        if given is not None:
            return receive if hmac.compare_digest(given.encode(), expected.encode()) else None
        if not headers.get("content-type", "").startswith("application/x-www-form-urlencoded"):
            return None
        body = b""
        while True:
            message = await receive()
            body += message.get("body", b"")
            if len(body) > MAX_FORM_BYTES:
                return None
            if not message.get("more_body", False):
                break
        fields = parse_qs(body.decode("latin-1"), keep_blank_values=True)
        sent = fields.get(CSRF_FIELD, [""])[0]
        if not hmac.compare_digest(sent.encode("latin-1"), expected.encode()):
            return None
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if replayed:
                return await receive()
            replayed = True
            return {"type": "http.request", "body": body, "more_body": False}
        return replay

    def _sending(self, send: Send, scope: Scope, started: float, new_cookie: str | None
                 ) -> Callable[[Message], Awaitable[None]]:
        static = scope["path"].startswith("/static/")

        async def sending(message: Message) -> None:
            if message["type"] == "http.response.start":
                extra = list(SECURITY_HEADERS)
                extra.append((b"server-timing", f"app;dur={(time.perf_counter() - started) * 1000:.1f}".encode()))
                if not static:
                    extra.append((b"cache-control", b"no-store"))
                if new_cookie is not None:
                    extra.append((b"set-cookie", session_cookie(new_cookie, scope).encode()))
                given = [(k, v) for k, v in message.get("headers", []) if k.lower() != b"cache-control" or static]
                message = {**message, "headers": given + extra}
            await send(message)
        return sending


def session_cookie(value: str, scope: Scope, *, max_age: int | None = None) -> str:
    """The ``Set-Cookie`` value of a browser session: HttpOnly, SameSite=Strict, Secure over HTTPS."""
    cookie = f"{SESSION_COOKIE}={value}; Path=/; HttpOnly; SameSite=Strict"
    if scope.get("scheme") == "https":
        cookie += "; Secure"
    return cookie + ("" if max_age is None else f"; Max-Age={max_age}")


def _cookie(headers: Headers, name: str) -> str | None:
    jar: SimpleCookie = SimpleCookie()
    try:
        jar.load(headers.get("cookie", ""))
    except Exception:  # a malformed Cookie header: as if there were none
        return None
    morsel = jar.get(name)
    return None if morsel is None else morsel.value


def _well_formed(session: str | None) -> bool:
    return session is not None and 20 <= len(session) <= 100 and all(c.isalnum() or c in "-_" for c in session)


def _host_name(host: str) -> str:
    """The name part of a ``Host`` header, lower-cased (an IPv6 address keeps its brackets)."""
    host = host.strip().lower()
    if host.startswith("["):
        return host[: host.find("]") + 1] if "]" in host else host
    return host.rsplit(":", 1)[0] if host.count(":") == 1 else host


async def _respond(send: Send, status: int, body: bytes, headers: list[tuple[bytes, bytes]]) -> None:
    await send({"type": "http.response.start", "status": status, "headers": headers + SECURITY_HEADERS
                + [(b"cache-control", b"no-store"), (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})


async def _refuse(send: Send, status: int, message: str, headers: list[tuple[bytes, bytes]] | None = None) -> None:
    body = json.dumps({"error": "Refused", "message": message}).encode()
    await _respond(send, status, body, [(b"content-type", b"application/json"), *(headers or [])])
