"""An embedder served by any OpenAI-compatible embeddings endpoint (Ollama, LM Studio, vLLM, llama.cpp's server).

``OpenAIEmbedder("http://127.0.0.1:11434", "nomic-embed-text")`` POSTs ``{url}/v1/embeddings`` with the
standard library, a batch of texts at a time, and returns unit-length vectors in the order given. Memories and
questions carry what users said, so, as for offload, the endpoint must be on this machine (a loopback address)
unless ``allow_remote=True``; requests go through no proxy and follow no redirect. The vectors are stored under
the model's name: a scope keeps one embedder (``synapse-graph reembed`` changes it).
"""

from __future__ import annotations

import json
import math
import urllib.error
import urllib.request
from collections.abc import Sequence
from typing import Any

from synapse_graph.errors import ConfigurationError, EmbedderUnavailableError
from synapse_graph.offload.client import MAX_RESPONSE_BYTES, check_endpoint, error_reason, opener

ALLOW_REMOTE_OPTION = "allow_remote=True (--allow-remote)"
API_KEY_ENV = "SYNAPSE_EMBEDDER_API_KEY"


class OpenAIEmbedder:
    """Embeddings from an OpenAI-compatible endpoint, one request per ``batch_size`` texts.

    Args:
        url: base URL of the endpoint, e.g. ``http://127.0.0.1:11434`` (a trailing ``/v1`` is accepted).
        model: the embedding model the endpoint serves; it names the vectors in the store.
        api_key: sent as a bearer token when given (never logged).
        allow_remote: allow a host that is not loopback.
        dimensions: the model's vector length; asked of the endpoint once (one short text) when not given.
        timeout: seconds for one request.
        batch_size: texts per request.
    """

    def __init__(self, url: str, model: str, *, api_key: str | None = None, allow_remote: bool = False,
                 dimensions: int | None = None, timeout: float = 60.0, batch_size: int = 64) -> None:
        if not isinstance(model, str) or not model.strip():
            raise ConfigurationError("the embedding model name is empty; give the name the endpoint serves "
                                     "(e.g. 'nomic-embed-text')")
        if batch_size < 1:
            raise ConfigurationError(f"batch_size must be at least 1, not {batch_size}")
        self.base_url = check_endpoint(url, allow_remote=allow_remote, carries="memories and questions carry what "
                                       "users said", allow_option=ALLOW_REMOTE_OPTION, key_env=API_KEY_ENV,
                                       posts_to="/v1/embeddings")
        self.name = model.strip()
        self._api_key = api_key
        self.timeout = timeout
        self.batch_size = batch_size
        self.dimensions = dimensions if dimensions is not None else len(self._post(["dimension probe"])[0])

    def __repr__(self) -> str:
        return f"OpenAIEmbedder({self.base_url!r}, model={self.name!r}, dimensions={self.dimensions})"

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """One unit-length vector per text, in order (an empty list for none)."""
        vectors: list[list[float]] = []
        for start in range(0, len(texts), self.batch_size):
            for vector in self._post(list(texts[start:start + self.batch_size])):
                if len(vector) != self.dimensions:
                    raise EmbedderUnavailableError(
                        f"embedding endpoint {self.base_url} returned {len(vector)} dimensions for model "
                        f"{self.name!r}, not {self.dimensions}: is it serving another model?")
                vectors.append(vector)
        return vectors

    def _post(self, texts: list[str]) -> list[list[float]]:
        endpoint = f"{self.base_url}/v1/embeddings"
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if self._api_key:
            headers["Authorization"] = f"Bearer {self._api_key}"
        data = json.dumps({"model": self.name, "input": texts}).encode("utf-8")
        request = urllib.request.Request(endpoint, data=data, headers=headers, method="POST")  # noqa: S310 (checked)
        try:
            with opener().open(request, timeout=self.timeout) as response:
                raw = response.read(MAX_RESPONSE_BYTES * 64 + 1)
        except urllib.error.HTTPError as exc:
            detail = exc.read(2000).decode("utf-8", "replace").strip()
            raise EmbedderUnavailableError(f"embedding endpoint {endpoint} answered HTTP {exc.code}: "
                                           f"{error_reason(detail, str(exc.reason), texts)}") from None
        except (urllib.error.URLError, TimeoutError, OSError) as exc:
            reason = getattr(exc, "reason", exc)
            raise EmbedderUnavailableError(f"embedding endpoint {endpoint} could not be reached: {reason}; start "
                                           f"it (e.g. 'ollama serve') or open the memory without an embedder"
                                           ) from None
        if len(raw) > MAX_RESPONSE_BYTES * 64:
            raise EmbedderUnavailableError(f"embedding endpoint {endpoint} sent more than "
                                           f"{MAX_RESPONSE_BYTES * 64} bytes")
        return _vectors(raw, endpoint, len(texts))


def _vectors(raw: bytes, endpoint: str, count: int) -> list[list[float]]:
    """``data[i].embedding`` of an embeddings body, in the order of ``data[i].index``, each of unit length."""
    try:
        body: Any = json.loads(raw.decode("utf-8", "replace"))
        rows = sorted(body["data"], key=lambda row: int(row.get("index", 0)))
        vectors = [[float(x) for x in row["embedding"]] for row in rows]
    except (ValueError, KeyError, TypeError, AttributeError):
        raise EmbedderUnavailableError(f"embedding endpoint {endpoint} did not answer with data[].embedding "
                                       "lists of numbers (is it an OpenAI-compatible /v1/embeddings?)") from None
    if len(vectors) != count or any(not v for v in vectors):
        raise EmbedderUnavailableError(f"embedding endpoint {endpoint} returned {len(vectors)} embeddings for "
                                       f"{count} texts")
    return [_unit(v) for v in vectors]


def _unit(vector: list[float]) -> list[float]:
    norm = math.sqrt(sum(x * x for x in vector))
    return [x / norm for x in vector] if norm > 0 else vector
