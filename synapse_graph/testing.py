"""Test doubles: a real OpenAI-compatible HTTP server on loopback that answers with scripted replies.

Use it in place of the model ``Memory.offload`` calls (our tests, the scripted offload eval in
``benchmarks/``, and your own tests): each request gets the next scripted answer (or the answer a
function picks for the request), and every request body is kept so a test can check what a model
would have seen. Standard library only.

Example:
    >>> reply = '{"triples": [{"subject": "Dana", "predicate": "LIVES_IN", "object": "Paris"}]}'
    >>> with FakeModelServer([reply]) as server:   # the model's replies, in order (the last one repeats)
    ...     memory = Memory("memory.db", scope="demo", offload_model=OpenAIChatClient(server.url, server.model))
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Reply:
    """One scripted answer: the assistant's text, or a raw HTTP answer."""

    content: str | None = None
    status: int = 200
    body: bytes | None = None
    """Sent as is instead of a chat completion built from ``content``."""
    delay: float = 0.0
    headers: dict[str, str] = field(default_factory=dict)
    drop_connection: bool = False


Script = Callable[[dict[str, Any]], Reply]


class FakeModelServer:
    """``with FakeModelServer(replies) as server: server.url`` — answers POST /v1/chat/completions.

    ``replies`` is a list (consumed in order, the last one repeated) or a function of the request body.
    """

    def __init__(self, replies: list[Reply | str] | Script, *, model: str = "fake-extractor") -> None:
        self.model = model
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self._replies = replies
        self._served = 0
        self._lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        assert self._server is not None, "start the server first"
        return f"http://127.0.0.1:{self._server.server_port}"

    def _next(self, body: dict[str, Any]) -> Reply:
        with self._lock:
            self.requests.append(body)
            index = self._served
            self._served += 1
        if callable(self._replies):
            return self._replies(body)
        reply = self._replies[min(index, len(self._replies) - 1)]
        return Reply(content=reply) if isinstance(reply, str) else reply

    def __enter__(self) -> FakeModelServer:
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:  # quiet
                pass

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", "0"))
                raw = self.rfile.read(length)
                owner.headers.append({k.lower(): v for k, v in self.headers.items()})
                if self.path.rstrip("/") != "/v1/chat/completions":
                    self.send_error(404, "not found")
                    return
                body = json.loads(raw)
                reply = owner._next(body)
                if reply.delay:
                    time.sleep(reply.delay)
                if reply.drop_connection:
                    self.close_connection = True
                    self.connection.shutdown(2)
                    return
                payload = reply.body if reply.body is not None else json.dumps({
                    "id": f"chatcmpl-{owner._served}", "object": "chat.completion", "model": owner.model,
                    "choices": [{"index": 0, "finish_reason": "stop",
                                 "message": {"role": "assistant", "content": reply.content}}],
                }).encode()
                try:
                    self.send_response(reply.status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(payload)))
                    for name, value in reply.headers.items():
                        self.send_header(name, value)
                    self.end_headers()
                    self.wfile.write(payload)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (a timeout test)

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, name="fake-model", daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        assert self._server is not None
        self._server.shutdown()
        self._server.server_close()

    def conversation_of(self, index: int) -> str:
        """The user message (the quoted conversation) of the index-th request."""
        return str(self.requests[index]["messages"][-1]["content"])
