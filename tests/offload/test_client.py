"""The OpenAI-compatible client against a real HTTP server on loopback."""

from __future__ import annotations

import json

import pytest

from synapse_graph.errors import ConfigurationError, ModelUnavailableError
from synapse_graph.offload.client import OpenAIChatClient, check_endpoint
from synapse_graph.testing import FakeModelServer, Reply

MESSAGES = [{"role": "system", "content": "extract"}, {"role": "user", "content": "I live in Lyon"}]


@pytest.mark.parametrize("url", ["http://10.0.0.5:8080", "https://api.example.com", "http://192.168.1.2:11434",
                                 "http://localhost.example.com:8080", "http://127.0.0.1.nip.io:8080"])
def test_remote_endpoints_are_refused_naming_the_option(url: str) -> None:
    with pytest.raises(ConfigurationError, match="allow_remote=True"):
        OpenAIChatClient(url, "m")
    assert check_endpoint(url, allow_remote=True) == url.rstrip("/")


@pytest.mark.parametrize("url", ["http://127.0.0.1:8080", "http://localhost:11434/", "http://[::1]:8000",
                                 "http://127.3.4.5:9/v1"])
def test_loopback_endpoints_are_accepted(url: str) -> None:
    assert OpenAIChatClient(url, "m").base_url.startswith(url.split(":")[0])


@pytest.mark.parametrize("url", ["", "ftp://127.0.0.1", "127.0.0.1:8080", "http://user:pw@127.0.0.1:8080"])
def test_malformed_urls(url: str) -> None:
    with pytest.raises(ConfigurationError):
        OpenAIChatClient(url, "m")


def test_request_shape_and_reply() -> None:
    with FakeModelServer(['{"triples": []}']) as server:
        client = OpenAIChatClient(server.url + "/v1", "qwen-test", api_key="k-123")
        assert client.complete(MESSAGES) == '{"triples": []}'
    [body] = server.requests
    assert body["model"] == "qwen-test" and body["messages"] == MESSAGES and body["stream"] is False
    assert body["response_format"]["type"] == "json_schema"
    assert server.headers[0]["authorization"] == "Bearer k-123"


def test_response_format_can_be_left_out() -> None:
    with FakeModelServer(["ok"]) as server:
        OpenAIChatClient(server.url, "m", response_format="none").complete(MESSAGES)
    assert "response_format" not in server.requests[0]


@pytest.mark.parametrize(("reply", "retryable"), [
    (Reply(status=500, body=b'{"error": "overloaded"}'), True),
    (Reply(status=400, body=b'{"error": "bad request"}'), False),
    (Reply(body=b"<html>not json</html>"), False),
    (Reply(body=b'{"choices": []}'), False),
    (Reply(body=json.dumps({"choices": [{"message": {"content": 5}}]}).encode()), False),
    (Reply(drop_connection=True), True),
    (Reply(content="late", delay=3), True),
])
def test_failures_are_typed(reply: Reply, retryable: bool) -> None:
    with FakeModelServer([reply]) as server:
        client = OpenAIChatClient(server.url, "m", timeout=1)
        with pytest.raises(ModelUnavailableError) as raised:
            client.complete(MESSAGES)
    assert raised.value.is_retryable() is retryable


def test_redirects_are_not_followed() -> None:
    with FakeModelServer([Reply(status=307, body=b"", headers={"Location": "http://10.1.2.3/v1/chat/completions"})]) \
            as server, pytest.raises(ModelUnavailableError, match="redirected"):
        OpenAIChatClient(server.url, "m").complete(MESSAGES)


def test_no_proxy_sees_the_conversation(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("http_proxy", "http://127.0.0.1:9")  # nothing listens there
    monkeypatch.setenv("HTTP_PROXY", "http://127.0.0.1:9")
    with FakeModelServer(["direct"]) as server:
        assert OpenAIChatClient(server.url, "m").complete(MESSAGES) == "direct"


def test_content_parts_are_joined() -> None:
    body = json.dumps({"choices": [{"message": {"content": [{"type": "text", "text": "a"},
                                                            {"type": "text", "text": "b"}]}}]}).encode()
    with FakeModelServer([Reply(body=body)]) as server:
        assert OpenAIChatClient(server.url, "m").complete(MESSAGES) == "ab"


def test_a_refused_response_format_falls_back_to_simpler_ones() -> None:
    def picky(body: dict[str, object]) -> Reply:
        kind = body.get("response_format", {}).get("type") if isinstance(body.get("response_format"), dict) else None
        if kind == "json_schema":  # what llama-cpp-python 0.3 answers
            return Reply(status=500, body=b'{"error": {"message": "response_format.type: Input should be '
                                          b'\'text\' or \'json_object\'"}}')
        return Reply(content=f"format {kind}")

    with FakeModelServer(picky) as server:
        client = OpenAIChatClient(server.url, "m")
        assert client.complete(MESSAGES) == "format json_object"
        assert client.complete(MESSAGES) == "format json_object"  # remembered: no second refusal
    assert [r.get("response_format", {}).get("type") for r in server.requests] == [
        "json_schema", "json_object", "json_object"]
    assert server.requests[1]["response_format"]["schema"]["required"] == ["triples"]


def test_other_server_errors_are_not_retried() -> None:
    with FakeModelServer([Reply(status=500, body=b'{"error": "CUDA out of memory"}')]) as server, \
            pytest.raises(ModelUnavailableError):
        OpenAIChatClient(server.url, "m").complete(MESSAGES)
    assert len(server.requests) == 1
