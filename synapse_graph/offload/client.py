"""A client for any OpenAI-compatible chat endpoint (llama.cpp's server, Ollama, vLLM).

Conversations carry code and secrets, so by default the endpoint must be on this machine
(a loopback address); another host is refused unless ``allow_remote=True`` is given
(``SYNAPSE_OFFLOAD_ALLOW_REMOTE=1`` for the command line and the hooks).
"""

from __future__ import annotations

import contextlib
import functools
import ipaddress
import json
import urllib.error
import urllib.request
from collections.abc import Sequence
from typing import Any, Literal, Protocol
from urllib.parse import urlsplit

from synapse_graph.errors import ConfigurationError, ModelUnavailableError
from synapse_graph.offload.prompt import TRIPLE_SCHEMA
from synapse_graph.rules.redaction import redact

ALLOW_REMOTE_OPTION = "allow_remote=True (SYNAPSE_OFFLOAD_ALLOW_REMOTE=1)"
ResponseFormat = Literal["json_schema", "json_object", "none"]
_FALLBACK: dict[str, ResponseFormat] = {"json_schema": "json_object", "json_object": "none"}
MAX_RESPONSE_BYTES = 1_000_000
MAX_REASON_CHARS = 160
_QUOTE_WINDOW = 16
"""An error reason sharing this many characters in a row with the request quotes it."""


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    """A redirect could send the conversation to another host: refuse it."""

    def redirect_request(self, req: Any, fp: Any, code: int, msg: str, headers: Any, newurl: str) -> None:
        raise ModelUnavailableError(f"model endpoint redirected to {newurl!r}; give its final URL instead",
                                    retryable=False)


@functools.cache
def opener() -> urllib.request.OpenerDirector:
    """No proxy (the environment's HTTP_PROXY must not see conversations) and no redirects.

    Built on first use: its HTTPS handler loads the system's CA certificates (tens of milliseconds),
    which every process that imports the package (a hook, a CLI command) would otherwise pay.
    """
    return urllib.request.build_opener(urllib.request.ProxyHandler({}), _NoRedirect())


class ChatClient(Protocol):
    """What offload needs from a model: its name, and one chat completion as text."""

    @property
    def model(self) -> str: ...

    def complete(self, messages: Sequence[dict[str, str]]) -> str:
        """The assistant's reply to ``messages``; raises :class:`ModelUnavailableError` on failure."""
        ...


def is_loopback_host(host: str) -> bool:
    """True for ``localhost`` and addresses in 127.0.0.0/8 or ``::1`` (no name lookup for other names)."""
    if host.lower() in ("localhost", "localhost.localdomain", "ip6-localhost"):
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def check_endpoint(url: str, *, allow_remote: bool = False, carries: str = "conversations carry code and secrets",
                   allow_option: str = ALLOW_REMOTE_OPTION, key_env: str = "SYNAPSE_OFFLOAD_API_KEY",
                   posts_to: str = "/v1/chat/completions") -> str:
    """The base URL without a trailing slash, if it is an http(s) URL on loopback (or remote is allowed).
    ``carries``, ``allow_option``, ``key_env`` and ``posts_to`` word the errors for the endpoint's user."""
    if not isinstance(url, str) or not url.strip():
        raise ConfigurationError("the model URL is empty; give the endpoint's base URL, e.g. http://127.0.0.1:8080")
    parts = urlsplit(url.strip())
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ConfigurationError(
            f"model URL {url!r} is not an http(s) URL with a host; e.g. http://127.0.0.1:8080 "
            f"(the client posts to <url>{posts_to})"
        )
    if parts.username or parts.password:
        raise ConfigurationError(f"put the model's API key in {key_env}, not in the URL")
    if not allow_remote and not is_loopback_host(parts.hostname):
        raise ConfigurationError(
            f"model URL host {parts.hostname!r} is not on this machine: {carries}, "
            f"so only loopback endpoints are used unless {allow_option} is set"
        )
    base = url.strip().rstrip("/")
    return base[: -len("/v1")] if base.endswith("/v1") else base


class OpenAIChatClient:
    """POSTs ``{url}/v1/chat/completions`` with the standard library; one request per call.

    Args:
        url: base URL of the endpoint, e.g. ``http://127.0.0.1:8080`` (a trailing ``/v1`` is accepted).
        model: model name the endpoint serves; recorded on every stored triple.
        api_key: sent as a bearer token when given (never logged).
        allow_remote: allow a host that is not loopback.
        timeout: seconds for one request.
        response_format: ``json_schema`` (constrained decoding where the endpoint supports it),
            ``json_object``, or ``none`` for endpoints that reject the field.
        max_tokens: upper bound of the reply's length.
    """

    def __init__(
        self,
        url: str,
        model: str,
        *,
        api_key: str | None = None,
        allow_remote: bool = False,
        timeout: float = 120.0,
        response_format: ResponseFormat = "json_schema",
        max_tokens: int = 1024,
        temperature: float = 0.0,
    ) -> None:
        if not isinstance(model, str) or not model.strip():
            raise ConfigurationError("the model name is empty; give the name the endpoint serves (e.g. 'qwen2.5:3b')")
        if response_format not in ("json_schema", "json_object", "none"):
            raise ConfigurationError(
                f"response_format must be json_schema, json_object or none, not {response_format!r}")
        self.base_url = check_endpoint(url, allow_remote=allow_remote)
        self._model = model.strip()
        self._api_key = api_key
        self.timeout = timeout
        self.response_format: ResponseFormat = response_format
        self.max_tokens = max_tokens
        self.temperature = temperature

    @property
    def model(self) -> str:
        return self._model

    def __repr__(self) -> str:
        return f"OpenAIChatClient({self.base_url!r}, model={self._model!r})"

    def request_body(self, messages: Sequence[dict[str, str]]) -> dict[str, Any]:
        body: dict[str, Any] = {
            "model": self._model,
            "messages": list(messages),
            "temperature": self.temperature,
            "max_tokens": self.max_tokens,
            "stream": False,
        }
        if self.response_format == "json_schema":
            body["response_format"] = {"type": "json_schema",
                                       "json_schema": {"name": "triples", "schema": TRIPLE_SCHEMA}}
        elif self.response_format == "json_object":
            # The schema rides along: llama-cpp-python and llama.cpp's server constrain to it, others ignore it.
            body["response_format"] = {"type": "json_object", "schema": TRIPLE_SCHEMA}
        return body

    def complete(self, messages: Sequence[dict[str, str]]) -> str:
        """One chat completion. An endpoint that refuses the ``response_format`` is asked again with the
        next simpler one (``json_schema`` -> ``json_object`` -> none), which this client then keeps using."""
        while True:
            try:
                return self._post(messages)
            except ModelUnavailableError as exc:
                simpler = _FALLBACK.get(self.response_format)
                if simpler is None or not exc.refused_response_format:
                    raise
                self.response_format = simpler

    def _post(self, messages: Sequence[dict[str, str]]) -> str:
        endpoint = f"{self.base_url}/v1/chat/completions"
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if self._api_key:
            headers["Authorization"] = f"Bearer {self._api_key}"
        data = json.dumps(self.request_body(messages)).encode("utf-8")
        request = urllib.request.Request(endpoint, data=data, headers=headers, method="POST")  # noqa: S310 (checked)
        try:
            with opener().open(request, timeout=self.timeout) as response:
                raw = response.read(MAX_RESPONSE_BYTES + 1)
        except urllib.error.HTTPError as exc:
            detail = exc.read(2000).decode("utf-8", "replace").strip()
            sent = [m.get("content", "") for m in messages] + [data.decode("utf-8")]
            error = ModelUnavailableError(
                f"model endpoint {endpoint} answered HTTP {exc.code}: {error_reason(detail, str(exc.reason), sent)}",
                retryable=exc.code >= 500 or exc.code == 429,
            )
            error.refused_response_format = exc.code in (400, 422, 500) and "response_format" in detail
            raise error from None
        except (urllib.error.URLError, TimeoutError, OSError) as exc:
            reason = getattr(exc, "reason", exc)
            raise ModelUnavailableError(f"model endpoint {endpoint} could not be reached: {reason}") from None
        if len(raw) > MAX_RESPONSE_BYTES:
            raise ModelUnavailableError(f"model endpoint {endpoint} sent more than {MAX_RESPONSE_BYTES} bytes",
                                        retryable=False)
        return _content(raw, endpoint)


def error_reason(body: str, status_text: str, sent: Sequence[str]) -> str:
    """A short reason for an error answer, fit for a job log: the body's error message (redacted), cut
    where it starts quoting what was sent (an endpoint may echo the prompt, and a log never holds turns)."""
    reason = body
    with contextlib.suppress(ValueError, RecursionError):
        reason = _error_message(json.loads(body)) or body
    reason = redact(" ".join(reason.split())[:MAX_REASON_CHARS * 2]).text
    for start in range(max(0, len(reason) - _QUOTE_WINDOW + 1)):
        if any(reason[start:start + _QUOTE_WINDOW] in text for text in sent):
            reason = reason[:start].rstrip() + " [quotes the request; left out]"
            break
    reason = reason[:MAX_REASON_CHARS].strip()
    return reason or status_text


def _error_message(body: Any) -> str | None:
    """``{"error": {"message": ...}}``, ``{"error": "..."}``, ``{"message" | "detail": ...}``."""
    if not isinstance(body, dict):
        return None
    for key in ("error", "message", "detail"):
        value = body.get(key)
        if isinstance(value, dict):
            value = value.get("message")
        if isinstance(value, str) and value.strip():
            return value
    return None


def _content(raw: bytes, endpoint: str) -> str:
    """The first choice's message content of a chat completion body."""
    try:
        body = json.loads(raw.decode("utf-8", "replace"))
    except ValueError:
        raise ModelUnavailableError(f"model endpoint {endpoint} did not answer with JSON", retryable=False) from None
    try:
        content = body["choices"][0]["message"]["content"]
    except (KeyError, IndexError, TypeError):
        raise ModelUnavailableError(
            f"model endpoint {endpoint} answered without choices[0].message.content", retryable=False
        ) from None
    if isinstance(content, list):  # content parts
        content = "".join(p.get("text", "") for p in content if isinstance(p, dict))
    if not isinstance(content, str):
        raise ModelUnavailableError(f"model endpoint {endpoint} answered with non-text content", retryable=False)
    return content
