"""A small OpenAI-compatible embeddings endpoint for tests (not a test module): ``POST /v1/embeddings`` answered
in a thread of this process, on 127.0.0.1, with the trigram test double's vectors (scaled, so the client must
normalise them; in reverse order, so it must sort by ``index``). It records what it was sent."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from tests.integration.test_recall import TrigramEmbedder


@dataclass
class FakeEndpoint:
    url: str
    requests: list[dict[str, Any]] = field(default_factory=list)
    headers: list[dict[str, str]] = field(default_factory=list)
    fail_with: int | None = None
    """Answer every request with this HTTP status (and an error body) instead."""


@contextmanager
def embeddings_endpoint(model: str = "fake-embed") -> Iterator[FakeEndpoint]:
    double = TrigramEmbedder()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            endpoint.requests.append(body)
            endpoint.headers.append(dict(self.headers))
            if endpoint.fail_with is not None:
                self._answer(endpoint.fail_with, {"error": {"message": "the model is loading"}})
            elif self.path != "/v1/embeddings" or body.get("model") != model:
                self._answer(404, {"error": {"message": f"model {body.get('model')!r} not found"}})
            else:
                vectors = double.embed(body["input"])
                data = [{"object": "embedding", "index": i, "embedding": [3 * x for x in v]}
                        for i, v in enumerate(vectors)]
                self._answer(200, {"object": "list", "model": model, "data": data[::-1]})

        def _answer(self, status: int, payload: dict[str, Any]) -> None:
            raw = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(raw)))
            self.end_headers()
            self.wfile.write(raw)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    endpoint = FakeEndpoint(f"http://127.0.0.1:{server.server_address[1]}")
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield endpoint
    finally:
        server.shutdown()
        server.server_close()
