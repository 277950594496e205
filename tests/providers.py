"""Scripted model APIs for the function-calling tests and docs: the official ``openai`` and ``anthropic`` clients,
talking to an in-process ``httpx`` transport instead of the network.

Each request the client sends is recorded as the JSON it put on the wire, and answered with the next scripted
response body, written in the provider's documented response shape. So a test exercises what the SDKs send and
parse, and no request leaves the process.
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Iterable
from types import ModuleType
from typing import Any

import anthropic
import httpx
import openai


class ScriptedApi:
    """Answers each request with the next scripted response; keeps the requests' JSON bodies."""

    def __init__(self, responses: Iterable[dict[str, Any]]) -> None:
        self.responses = list(responses)
        self.requests: list[dict[str, Any]] = []
        self.paths: list[str] = []

    def http_client(self, http: ModuleType = httpx) -> Any:
        """A client of ``http`` (``httpx``, or its successor ``httpx2`` that newer SDKs take) answered here."""

        def answer(request: Any) -> Any:
            self.paths.append(request.url.path)
            self.requests.append(json.loads(request.content))
            if not self.responses:
                return http.Response(500, json={"error": {"message": "the script has no more responses"}})
            return http.Response(200, json=self.responses.pop(0))

        return http.Client(transport=http.MockTransport(answer))


def openai_client(api: ScriptedApi) -> openai.OpenAI:
    return openai.OpenAI(api_key="sk-test-not-a-key", base_url="http://model.test/v1", max_retries=0,
                         http_client=api.http_client())


def anthropic_client(api: ScriptedApi) -> anthropic.Anthropic:
    return anthropic.Anthropic(api_key="test-not-a-key", base_url="http://model.test", max_retries=0,
                               http_client=api.http_client(_http_module_of(anthropic)))


def _http_module_of(sdk: ModuleType) -> ModuleType:
    """The HTTP library an SDK is built on: anthropic 2.x moved from ``httpx`` to ``httpx2``."""
    base = importlib.import_module(f"{sdk.__name__}._base_client")
    return importlib.import_module("httpx2") if hasattr(base, "httpx2") else httpx


# -- response bodies, in each API's documented shape ---------------------------------------------------------


def chat_tool_calls(*calls: tuple[str, str, dict[str, Any] | str]) -> dict[str, Any]:
    """A Chat Completions response whose message asks for ``(id, name, arguments)`` calls (arguments as JSON)."""
    return {
        "id": "chatcmpl-test", "object": "chat.completion", "created": 1_764_000_000, "model": "test-model",
        "choices": [{"index": 0, "finish_reason": "tool_calls", "logprobs": None, "message": {
            "role": "assistant", "content": None, "refusal": None,
            "tool_calls": [{"id": call_id, "type": "function", "function": {
                "name": name, "arguments": args if isinstance(args, str) else json.dumps(args)}}
                for call_id, name, args in calls]}}],
        "usage": {"prompt_tokens": 10, "completion_tokens": 10, "total_tokens": 20},
    }


def chat_answer(text: str) -> dict[str, Any]:
    return {
        "id": "chatcmpl-test-2", "object": "chat.completion", "created": 1_764_000_001, "model": "test-model",
        "choices": [{"index": 0, "finish_reason": "stop", "logprobs": None,
                     "message": {"role": "assistant", "content": text, "refusal": None}}],
        "usage": {"prompt_tokens": 10, "completion_tokens": 10, "total_tokens": 20},
    }


def responses_function_calls(*calls: tuple[str, str, dict[str, Any]]) -> dict[str, Any]:
    """A Responses API response whose output asks for ``(call_id, name, arguments)`` function calls."""
    return {
        "id": "resp_test", "object": "response", "created_at": 1_764_000_000, "model": "test-model",
        "status": "completed", "parallel_tool_calls": True, "tool_choice": "auto", "tools": [],
        "output": [{"type": "function_call", "id": f"fc_{call_id}", "call_id": call_id, "name": name,
                    "arguments": json.dumps(args), "status": "completed"} for call_id, name, args in calls],
    }


def responses_answer(text: str) -> dict[str, Any]:
    return {
        "id": "resp_test_2", "object": "response", "created_at": 1_764_000_001, "model": "test-model",
        "status": "completed", "parallel_tool_calls": True, "tool_choice": "auto", "tools": [],
        "output": [{"type": "message", "id": "msg_test", "role": "assistant", "status": "completed",
                    "content": [{"type": "output_text", "text": text, "annotations": []}]}],
    }


def anthropic_tool_uses(*uses: tuple[str, str, dict[str, Any]]) -> dict[str, Any]:
    """A Messages API response whose content asks for ``(id, name, input)`` tool uses."""
    return {
        "id": "msg_test", "type": "message", "role": "assistant", "model": "test-model",
        "content": [{"type": "text", "text": "Let me check the memory."},
                    *({"type": "tool_use", "id": use_id, "name": name, "input": arguments}
                      for use_id, name, arguments in uses)],
        "stop_reason": "tool_use", "stop_sequence": None, "usage": {"input_tokens": 10, "output_tokens": 10},
    }


def anthropic_answer(text: str) -> dict[str, Any]:
    return {
        "id": "msg_test_2", "type": "message", "role": "assistant", "model": "test-model",
        "content": [{"type": "text", "text": text}], "stop_reason": "end_turn", "stop_sequence": None,
        "usage": {"input_tokens": 10, "output_tokens": 10},
    }
