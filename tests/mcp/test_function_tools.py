"""``synapse_graph.tools``: the MCP tools as function calling for the OpenAI and Anthropic APIs, on both backends
and both facades.

The model side is each provider's official client talking to a scripted in-process API (``tests/providers.py``):
what the SDK sends is checked, and the tool calls it parses are run on a real store. The MCP side is the
in-process server on the same store, for the proof that both give the same results and errors.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import anyio
import pytest
from anthropic.types import ToolParam
from mcp import Client, MCPError
from openai.types.chat import ChatCompletionFunctionToolParam
from openai.types.responses import FunctionToolParam
from pydantic import TypeAdapter

from synapse_graph import Memory, Triple
from synapse_graph.aio import AsyncMemory
from synapse_graph.mcp import ServerOptions, build_server
from synapse_graph.tools import ToolResult, acall, anthropic_tools, call, instructions, openai_tools
from tests.adapters import Blocking
from tests.conftest import APIS
from tests.mcp.conftest import NATIVE_TOOLS, REFERENCE_TOOLS, Serve
from tests.providers import (
    ScriptedApi,
    anthropic_answer,
    anthropic_client,
    anthropic_tool_uses,
    chat_answer,
    chat_tool_calls,
    openai_client,
    responses_answer,
    responses_function_calls,
)

pytestmark = pytest.mark.integration
OPTIONS = (ServerOptions(), ServerOptions(allow_erasure=True, allow_review=True),
           ServerOptions(profile="reference-memory"))
MOVE = {"triples": [{"subject": "Dana", "predicate": "LIVES_IN", "object": "Paris", "valid_at": "2019-03-01"},
                    {"subject": "Dana", "predicate": "LIVES_IN", "object": "London", "valid_at": "2022-09-15"}],
        "source": "chat"}


@pytest.fixture(params=APIS)
def api(request: pytest.FixtureRequest) -> str:
    """Both facades: call() takes a Memory, acall() an AsyncMemory (the other MCP tests fill stores with Memory)."""
    return str(request.param)


def run_tool(memory: Memory, name: str, arguments: dict[str, Any] | str | None,
             options: ServerOptions | None = None) -> ToolResult:
    if isinstance(memory, Blocking):
        return memory.awaited(lambda target: acall(target, name, arguments, options))  # type: ignore[no-any-return]
    return call(memory, name, arguments, options)


def test_the_tool_lists_are_the_mcp_servers_in_each_providers_format(tmp_path: Path) -> None:
    async def listed(options: ServerOptions) -> list[Any]:
        # listing touches no store: the memory is never opened
        async with Client(build_server(AsyncMemory(str(tmp_path / "unused.db")), options)) as client:
            return (await client.list_tools()).tools

    for options in OPTIONS:
        mcp_tools = anyio.run(listed, options)
        served = [(t.name, t.description, t.input_schema) for t in mcp_tools]
        chat = openai_tools(options)
        responses = openai_tools(options, api="responses")
        messages = anthropic_tools(options)
        assert [(t["function"]["name"], t["function"]["description"], t["function"]["parameters"])
                for t in chat] == served
        assert [(t["name"], t["description"], t["parameters"]) for t in responses] == served
        assert [(t["name"], t["description"], t["input_schema"]) for t in messages] == served
        for tool in chat:
            TypeAdapter(ChatCompletionFunctionToolParam).validate_python(tool)
        for tool in responses:
            TypeAdapter(FunctionToolParam).validate_python(tool)
        for tool in messages:
            TypeAdapter(ToolParam).validate_python(tool)
    assert [t["name"] for t in anthropic_tools()] == NATIVE_TOOLS
    assert [t["name"] for t in anthropic_tools(ServerOptions(profile="reference-memory"))] == REFERENCE_TOOLS
    assert "memory_digest" in instructions() and "nextCursor" in instructions(OPTIONS[2])


def test_an_openai_chat_loop_saves_and_reads_facts(memory: Memory) -> None:
    scripted = ScriptedApi([
        chat_tool_calls(("call_1", "upsert_graph_triples", MOVE),
                        ("call_2", "query_facts", {"subject": "Dana", "predicate": "lives in"})),
        chat_tool_calls(("call_3", "query_facts", {"subject": "Dana", "as_of": "2020-06-01"})),
        chat_answer("Dana lived in Paris in mid-2020 and lives in London now."),
    ])
    client = openai_client(scripted)
    messages: list[Any] = [{"role": "system", "content": instructions()},
                           {"role": "user", "content": "I moved from Paris to London in 2022. Where was I in 2020?"}]
    results: list[ToolResult] = []
    while True:
        reply = client.chat.completions.create(model="test-model", messages=messages, tools=openai_tools())
        message = reply.choices[0].message
        if not message.tool_calls:
            break
        messages.append(message.model_dump(exclude_none=True))
        for tool_call in message.tool_calls:
            assert tool_call.type == "function"
            result = run_tool(memory, tool_call.function.name, tool_call.function.arguments)
            results.append(result)
            messages.append(result.openai_message(tool_call.id))

    assert [f.object for f in memory.facts("Dana", as_of="2020-06-01")] == ["Paris"]
    assert [f.object for f in memory.facts("Dana")] == ["London"]
    saved, refused, read = results
    assert not saved.is_error and saved.data is not None and saved.data["created"] == 2
    assert refused.is_error and refused.data is None and "UPPER_SNAKE_CASE" in refused.text
    assert read.data is not None and [f["fact"][2] for f in read.data["facts"]] == ["Paris"]
    # what the SDK sent: our tools as given, then each result answering its call id
    first, second, third = scripted.requests
    assert first["tools"] == openai_tools()
    assert [(m["tool_call_id"], m["content"]) for m in second["messages"] if m["role"] == "tool"] == [
        ("call_1", saved.text), ("call_2", refused.text)]
    assert third["messages"][-1] == {"role": "tool", "tool_call_id": "call_3", "content": read.text}
    assert scripted.paths == ["/v1/chat/completions"] * 3


def test_an_openai_responses_loop_answers_function_calls(memory: Memory) -> None:
    scripted = ScriptedApi([responses_function_calls(("call_1", "upsert_graph_triples", MOVE)),
                            responses_answer("Saved.")])
    client = openai_client(scripted)
    tools = openai_tools(api="responses")
    items: list[Any] = [{"role": "user", "content": "I moved from Paris to London in 2022."}]
    response = client.responses.create(model="test-model", input=items, tools=tools)  # type: ignore[arg-type]
    for item in response.output:
        if item.type == "function_call":
            items += [item.model_dump(exclude_none=True), call_tool(memory, item.name, item.arguments, item.call_id)]
    final = client.responses.create(model="test-model", input=items, tools=tools)  # type: ignore[arg-type]

    assert final.output_text == "Saved."
    assert [f.object for f in memory.facts("Dana", include_history=True)] == ["Paris", "London"]
    sent = scripted.requests[1]["input"][-1]
    assert sent["type"] == "function_call_output" and sent["call_id"] == "call_1"
    assert sent["output"].startswith("saved 2 triple(s)")


def call_tool(memory: Memory, name: str, arguments: str, call_id: str) -> dict[str, Any]:
    return run_tool(memory, name, arguments).openai_output(call_id)


def test_an_anthropic_messages_loop_saves_and_reads_facts(memory: Memory) -> None:
    scripted = ScriptedApi([
        anthropic_tool_uses(("toolu_1", "upsert_graph_triples", MOVE),
                            ("toolu_2", "recall_context", {"query": "where does Dana live", "hops": 3})),
        anthropic_tool_uses(("toolu_3", "fact_history", {"subject": "Dana", "predicate": "LIVES_IN"})),
        anthropic_answer("Paris from 2019, London since September 2022."),
    ])
    client = anthropic_client(scripted)
    messages: list[Any] = [{"role": "user", "content": "Where have I lived?"}]
    results: list[ToolResult] = []
    while True:
        reply = client.messages.create(model="test-model", max_tokens=1024, system=instructions(),
                                       tools=anthropic_tools(), messages=messages)  # type: ignore[arg-type]
        if reply.stop_reason != "tool_use":
            break
        messages.append({"role": "assistant", "content": [block.model_dump() for block in reply.content]})
        answers = []
        for block in reply.content:
            if block.type == "tool_use":
                result = run_tool(memory, block.name, block.input)  # type: ignore[arg-type]
                results.append(result)
                answers.append(result.anthropic_block(block.id))
        messages.append({"role": "user", "content": answers})

    saved, refused, history = results
    assert saved.data is not None and saved.data["created"] == 2
    assert refused.is_error and "hops" in refused.text and "must be one of 1, 2" in refused.text
    assert history.data is not None and [f["fact"][2] for f in history.data["facts"]] == ["Paris", "London"]
    second = scripted.requests[1]
    assert second["tools"] == anthropic_tools() and second["system"] == instructions()
    assert second["messages"][-1]["content"] == [
        {"type": "tool_result", "tool_use_id": "toolu_1", "content": saved.text, "is_error": False},
        {"type": "tool_result", "tool_use_id": "toolu_2", "content": refused.text, "is_error": True}]
    assert scripted.paths == ["/v1/messages"] * 3


CASES: tuple[tuple[str, dict[str, Any]], ...] = (
    ("query_facts", {"subject": "Dana"}),
    ("query_facts", {"subject": "Dana", "as_of": "2020-06-01", "known_at": "2030-01-01"}),
    ("fact_history", {"subject": "Dana", "predicate": "LIVES_IN"}),
    ("search_graph_nodes", {"query": "dana"}),
    ("recall_context", {"query": "where does Dana live", "as_of": "2021-01-01", "known_at": "2030-01-01"}),
    ("query_subgraph", {"entities": ["Dana"], "as_of": "2021-01-01"}),
    ("forget", {"subject": "Nobody", "predicate": "LIVES_IN"}),
    ("query_facts", {"subject": "Dana", "valid_from": "2020"}),                          # schema: unknown name
    ("upsert_graph_triples", {"triples": [{"subject": "Dana", "predicate": "lives in", "object": "Rome"}]}),
    ("query_facts", {"subject": "Dana", "as_of": "01/02/2024"}),                          # ambiguous time
    ("memory_feedback", {"fact_id": "no-such-fact", "verdict": "helpful"}),              # not found
)


def unpinned(data: dict[str, Any] | None) -> dict[str, Any] | None:
    """The result without the time a read without ``known_at`` pinned as *now*, and the milliseconds a recall
    took (they differ between two calls)."""
    if data is None:
        return None
    return {k: {**v, "ms": 0} if k == "usage" else v for k, v in data.items() if k not in ("as_of", "known_at")}


def steady(text: str) -> str:
    """A result's text without the milliseconds a recall took."""
    return re.sub(r"[\d.]+ ms\b", "N ms", text)


def test_a_call_gives_what_the_mcp_tool_gives(memory: Memory, serve: Serve) -> None:
    memory.upsert([Triple(subject="Dana", predicate="LIVES_IN", object="Paris", valid_at="2019-03-01"),
                   Triple(subject="Dana", predicate="LIVES_IN", object="London", valid_at="2022-09-15"),
                   Triple(subject="Dana", predicate="WORKS_AT", object="Acme", valid_at="2019-04-01")],
                  source="onboarding")

    async def over_mcp() -> list[tuple[str, dict[str, Any] | None, bool]]:
        async with serve(memory) as client:
            answers = []
            for name, arguments in CASES:
                result = await client.call_tool(name, arguments)
                text = "\n".join(getattr(block, "text", "") for block in result.content)
                answers.append((steady(text), unpinned(result.structured_content), bool(result.is_error)))
            with pytest.raises(MCPError) as unknown:
                await client.call_tool("recall", {"query": "Dana"})
            answers.append((str(unknown.value), None, True))
            return answers

    served = anyio.run(over_mcp)
    called = [run_tool(memory, name, arguments) for name, arguments in (*CASES, ("recall", {"query": "Dana"}))]
    assert [(steady(r.text), unpinned(r.data), r.is_error) for r in called] == served
    assert sum(r.is_error for r in called) == 5 and all(r.data for r in called if not r.is_error)
    assert sorted(f.object for f in memory.facts("Dana")) == ["Acme", "London"]  # the refused write wrote nothing


def test_arguments_that_are_no_object_are_refused_and_nothing_is_written(memory: Memory) -> None:
    for arguments in ('{"triples": [', '["Dana", "LIVES_IN", "Paris"]', "42"):
        result = run_tool(memory, "upsert_graph_triples", arguments)
        assert result.is_error and result.text.startswith("invalid arguments for upsert_graph_triples")
        assert "call again" in result.text
    assert run_tool(memory, "memory_digest", "").data is not None  # an empty string: no arguments
    assert memory.stats().facts == 0
    with pytest.raises(TypeError, match="acall"):
        call(json.loads("{}"), "memory_digest", {})  # type: ignore[arg-type]


def test_two_values_of_one_relation_at_one_instant_are_a_tool_error_and_nothing_is_written(memory: Memory) -> None:
    memory.upsert(("Dana", "LIVES_IN", "Paris"), valid_at="2020-01-01")
    result = run_tool(memory, "upsert_graph_triples", {"triples": [
        {"subject": "Dana", "predicate": "WORKS_AT", "object": "Acme"},
        {"subject": "Ed", "predicate": "USES", "object": "helix"},
        {"subject": "Dana", "predicate": "WORKS_AT", "object": "Globex"}]})
    assert result.is_error and result.data is None
    assert all(word in result.text for word in ("'Dana'", "WORKS_AT", "'Acme'", "'Globex'", "Nothing was written"))
    assert memory.stats().facts == 1 and memory.entity("Ed") is None
