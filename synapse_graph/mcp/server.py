"""The MCP server: the tools of :mod:`synapse_graph.mcp.tools` on the SDK's low-level ``Server``.

The low-level server publishes exactly the schemas written here and leaves every argument
to us: each call is checked against the tool's published JSON Schema, then parsed into its
argument model, before the handler runs. Whatever goes wrong in a call comes back as a tool
error (``isError``) whose text says what to fix; nothing reaches the client as a
traceback, and the server keeps serving.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from synapse_graph.extras import needs_extra

with needs_extra("mcp", "the MCP server"):
    from mcp import MCPError
    from mcp.server import Server, ServerRequestContext
    from mcp.types import (
        INVALID_PARAMS,
        CallToolRequestParams,
        CallToolResult,
        ListToolsResult,
        PaginatedRequestParams,
        TextContent,
        Tool,
        ToolAnnotations,
    )

from synapse_graph import __version__
from synapse_graph.aio import AsyncMemory
from synapse_graph.mcp.calls import MemoryCalls
from synapse_graph.mcp.dispatch import (
    INSTRUCTIONS,
    PROFILES,
    Outcome,
    Profile,
    PublishedTool,
    ServerOptions,
    publish,
    run_call,
    unknown_tool,
)
from synapse_graph.mcp.tools import ToolContext

__all__ = ["INSTRUCTIONS", "PROFILES", "Profile", "ServerOptions", "build_server"]

def _tool(entry: PublishedTool) -> Tool:
    """A tool as the SDK lists it: schemas and the behaviour hints."""
    spec = entry.spec
    hints = not spec.read_only or spec.read_hints  # the spec gives them meaning for writes only
    return Tool(
        name=spec.name, title=spec.title, description=spec.description, input_schema=entry.input_schema,
        output_schema=entry.output_schema,
        annotations=ToolAnnotations(
            read_only_hint=spec.read_only,
            destructive_hint=spec.destructive if hints else None,
            idempotent_hint=spec.idempotent if hints else None, open_world_hint=False),
    )


def build_server(memory: AsyncMemory, options: ServerOptions | None = None) -> Server[Any]:
    """An MCP server whose tools read and write ``memory``, an open :class:`AsyncMemory` on the event loop that
    serves (one per process, open while serving)."""
    options = options or ServerOptions()
    context = ToolContext(calls=MemoryCalls(memory), budget_chars=options.budget_chars(),
                          stale_after=options.stale_after, review=options.allow_review)
    published = publish(options)
    listing = ListToolsResult(tools=[_tool(entry) for entry in published.values()])

    async def list_tools(ctx: ServerRequestContext[Any], params: PaginatedRequestParams | None) -> ListToolsResult:
        return listing

    async def call_tool(ctx: ServerRequestContext[Any], params: CallToolRequestParams) -> CallToolResult:
        entry = published.get(params.name)
        if entry is None:  # the spec's answer to an unknown tool is a protocol error, not a tool result
            raise MCPError(INVALID_PARAMS, unknown_tool(params.name, published))
        return _result(await run_call(entry, params.arguments or {}, context))

    def input_schema(name: str) -> Mapping[str, Any] | None:
        entry = published.get(name)
        return None if entry is None else entry.input_schema

    return Server(
        "synapse-graph", version=__version__, title="synapse-graph memory",
        description=f"Temporal knowledge-graph memory, scope {memory.scope!r}",
        instructions=options.instructions(),
        on_list_tools=list_tools, on_call_tool=call_tool, get_tool_input_schema=input_schema,
    )


def _result(outcome: Outcome) -> CallToolResult:
    text = TextContent(type="text", text=outcome.text)
    if outcome.is_error:
        return CallToolResult(content=[text], is_error=True)
    return CallToolResult(content=[text], structured_content=outcome.data)
