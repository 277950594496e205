"""The memory's tools for agents without MCP: function-calling definitions for the OpenAI and Anthropic APIs,
and :func:`call`, which runs a call the model returned.

They are the MCP server's tools (:mod:`synapse_graph.mcp.tools`): the same names, descriptions and JSON
Schemas, made from the same argument models. :func:`call` checks and runs a call as the server does, so a
call gives the same text and data as the MCP tool, and a bad call the same error text, returned (not
raised) for the model to read, fix and call again; nothing was written then.

Needs ``jsonschema`` (the ``tools`` extra: ``pip install '.[tools]'`` from a clone), not the MCP SDK.

Example (OpenAI Chat Completions; see the docs' "Function calling" page for Anthropic)::

    from synapse_graph import Memory
    from synapse_graph.tools import call, instructions, openai_tools

    with Memory(scope="acme/web") as memory:
        messages = [{"role": "system", "content": instructions()}, {"role": "user", "content": question}]
        reply = client.chat.completions.create(model=MODEL, messages=messages, tools=openai_tools())
        for tool_call in reply.choices[0].message.tool_calls or []:
            result = call(memory, tool_call.function.name, tool_call.function.arguments)
            messages.append(result.openai_message(tool_call.id))
"""

from __future__ import annotations

import json
from collections.abc import Coroutine, Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any, Literal, cast

from synapse_graph.aio import AsyncMemory
from synapse_graph.mcp.calls import MemoryCalls
from synapse_graph.mcp.dispatch import Outcome, PublishedTool, ServerOptions, publish, run_call, unknown_tool
from synapse_graph.mcp.tools import ToolContext
from synapse_graph.memory import Memory

__all__ = ["ServerOptions", "ToolResult", "acall", "anthropic_tools", "call", "instructions", "openai_tools"]


@dataclass(frozen=True)
class ToolResult:
    """The result of one call: ``text`` for the model, ``data`` matching the tool's output schema (the MCP
    tool's ``structuredContent``; None for an error), and ``is_error`` for a call that was refused."""

    name: str
    text: str
    data: dict[str, Any] | None = None
    is_error: bool = False

    def openai_message(self, tool_call_id: str) -> dict[str, Any]:
        """The Chat Completions message answering ``tool_call_id`` (``tool_call.id``)."""
        return {"role": "tool", "tool_call_id": tool_call_id, "content": self.text}

    def openai_output(self, call_id: str) -> dict[str, Any]:
        """The Responses API input item answering a ``function_call`` item (its ``call_id``)."""
        return {"type": "function_call_output", "call_id": call_id, "output": self.text}

    def anthropic_block(self, tool_use_id: str) -> dict[str, Any]:
        """The Messages API ``tool_result`` content block answering a ``tool_use`` block (its ``id``); it goes in
        the next user message."""
        return {"type": "tool_result", "tool_use_id": tool_use_id, "content": self.text, "is_error": self.is_error}


def openai_tools(options: ServerOptions | None = None, *, api: Literal["chat", "responses"] = "chat"
                 ) -> list[dict[str, Any]]:
    """The tools for OpenAI's ``tools=`` parameter: Chat Completions (``api="chat"``) or the Responses API."""
    if api not in ("chat", "responses"):
        raise ValueError(f"api must be 'chat' or 'responses', not {api!r}")
    listed = []
    for entry in _published(options or ServerOptions()).values():
        function = {"name": entry.name, "description": entry.spec.description, "parameters": entry.input_schema}
        listed.append({"type": "function", "function": function} if api == "chat"
                      else {"type": "function", **function, "strict": False})
    return listed


def anthropic_tools(options: ServerOptions | None = None) -> list[dict[str, Any]]:
    """The tools for the Anthropic Messages API's ``tools=`` parameter."""
    return [{"name": entry.name, "description": entry.spec.description, "input_schema": entry.input_schema}
            for entry in _published(options or ServerOptions()).values()]


def instructions(options: ServerOptions | None = None) -> str:
    """What the model should know about the tools: the MCP server's instructions, for the system prompt."""
    return (options or ServerOptions()).instructions()


def call(memory: Memory, name: str, arguments: Mapping[str, Any] | str | None,
         options: ServerOptions | None = None) -> ToolResult:
    """Runs the tool call ``name(arguments)`` a model returned on ``memory``; ``arguments`` as the model gave them
    (a JSON string from OpenAI, an object from Anthropic).

    A call the tools refuse (an unknown tool, arguments that break its schema, a value the library refuses, a busy
    scope) is a :class:`ToolResult` with ``is_error`` whose text says what to fix: give it to the model like any
    result. Use :func:`acall` with an :class:`~synapse_graph.AsyncMemory`.
    """
    if not isinstance(memory, Memory):
        raise TypeError(f"call() takes a Memory, not {type(memory).__name__}; with an AsyncMemory: await acall(...)")
    return _finished(_call(cast(AsyncMemory, _Awaited(memory)), name, arguments, options))


async def acall(memory: AsyncMemory, name: str, arguments: Mapping[str, Any] | str | None,
                options: ServerOptions | None = None) -> ToolResult:
    """:func:`call` on an open :class:`~synapse_graph.AsyncMemory`, awaited."""
    if not isinstance(memory, AsyncMemory):
        raise TypeError(f"acall() takes an AsyncMemory, not {type(memory).__name__}; with a Memory: call(...)")
    return await _call(memory, name, arguments, options)


async def _call(memory: AsyncMemory, name: str, arguments: Mapping[str, Any] | str | None,
                options: ServerOptions | None) -> ToolResult:
    options = options or ServerOptions()
    published = _published(options)
    entry = published.get(name)
    if entry is None:
        return ToolResult(name, unknown_tool(name, published), is_error=True)
    parsed = _arguments(name, arguments)
    if isinstance(parsed, str):
        return ToolResult(name, parsed, is_error=True)
    context = ToolContext(calls=MemoryCalls(memory), budget_chars=options.budget_chars(),
                          stale_after=options.stale_after)
    outcome: Outcome = await run_call(entry, parsed, context)
    return ToolResult(name, outcome.text, outcome.data, outcome.is_error)


def _arguments(name: str, arguments: Mapping[str, Any] | str | None) -> Mapping[str, Any] | str:
    """The arguments as an object, or the error text saying why they are none."""
    if arguments is None:
        return {}
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments) if arguments.strip() else {}
        except json.JSONDecodeError as exc:
            return (f"invalid arguments for {name}: not JSON ({exc.msg} at character {exc.pos}). "
                    "Fix them and call again.")
    if not isinstance(arguments, Mapping):
        return (f"invalid arguments for {name}: must be a JSON object of named arguments, got "
                f"{type(arguments).__name__}. Fix them and call again.")
    return arguments


@cache
def _published(options: ServerOptions) -> dict[str, PublishedTool]:
    return publish(options)


class _Awaited:
    """A :class:`Memory` in the place of an :class:`AsyncMemory`: the facades have the same methods, and each
    call here has finished by the time it is awaited (so a tool's coroutine runs to its end without a loop)."""

    def __init__(self, memory: Memory) -> None:
        self._memory = memory

    def __getattr__(self, name: str) -> Any:
        value = getattr(self._memory, name)
        if not callable(value):
            return value

        async def method(*args: Any, **kwargs: Any) -> Any:
            return value(*args, **kwargs)

        return method


def _finished(coroutine: Coroutine[Any, Any, ToolResult]) -> ToolResult:
    """The result of a coroutine that never waits (every await in it is of a finished call)."""
    try:
        coroutine.send(None)
    except StopIteration as done:
        return cast(ToolResult, done.value)
    coroutine.close()
    raise RuntimeError("a tool waited on I/O while running on a synchronous Memory; use acall with an AsyncMemory")
