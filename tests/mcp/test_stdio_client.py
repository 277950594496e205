"""The SDK's own client over stdio, end to end, on both backends; every session is a new server process."""

from __future__ import annotations

from typing import Any

import anyio
import pytest
from jsonschema import Draft202012Validator
from mcp import Client, MCPError
from mcp.types import INVALID_PARAMS, CallToolResult

from synapse_graph.models import RECALL_NOTICE
from tests.mcp.conftest import NATIVE_TOOLS, ServerCommand, connect

pytestmark = pytest.mark.integration


def text(result: CallToolResult) -> str:
    return "\n".join(getattr(block, "text", "") for block in result.content)


class Session:
    """A connected client that checks every successful result against the tool's published output schema."""

    def __init__(self, client: Client, schemas: dict[str, Any]) -> None:
        self.client = client
        self.schemas = schemas

    @classmethod
    async def open(cls, client: Client) -> Session:
        tools = (await client.list_tools()).tools
        return cls(client, {t.name: t.output_schema for t in tools})

    async def call(self, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
        result = await self.client.call_tool(tool, arguments)
        assert not result.is_error, f"{tool}({arguments}) failed: {text(result)}"
        assert result.structured_content is not None
        Draft202012Validator(self.schemas[tool]).validate(result.structured_content)
        return {"text": text(result), **result.structured_content}

    async def error(self, tool: str, arguments: dict[str, Any]) -> str:
        result = await self.client.call_tool(tool, arguments)
        assert result.is_error, f"{tool}({arguments}) was accepted: {text(result)}"
        return text(result)


def test_tools_are_listed_with_their_schemas(server: ServerCommand) -> None:
    async def main() -> None:
        async with connect(server) as client:
            tools = (await client.list_tools()).tools
            assert [t.name for t in tools] == NATIVE_TOOLS  # no erasure or review tools
            for tool in tools:
                assert tool.description and tool.output_schema is not None
                for schema in (tool.input_schema, tool.output_schema):
                    Draft202012Validator.check_schema(schema)
                    assert schema["type"] == "object"
                assert tool.input_schema["additionalProperties"] is False
            recall = next(t for t in tools if t.name == "recall_context")
            assert {"query", "as_of", "known_at", "hops", "limit", "max_tokens", "min_score", "memory_scope",
                    "cursor"} == set(recall.input_schema["properties"])
            assert recall.input_schema["properties"]["hops"]["enum"] == [1, 2]
            assert client.server_info is not None and client.server_info.name == "synapse-graph"

    anyio.run(main)


def test_write_in_one_session_then_read_in_new_server_processes(server: ServerCommand) -> None:
    async def write() -> None:
        async with connect(server) as client:
            session = await Session.open(client)
            first = await session.call("upsert_graph_triples", {"triples": [
                {"subject": "Dana", "predicate": "LIVES_IN", "object": "Paris", "valid_at": "2019-03-01"},
                {"subject": "Dana", "predicate": "WORKS_AT", "object": "Acme", "valid_at": "2019-04-01",
                 "confidence": 0.9, "object_type": "Company"},
                {"subject": "Acme", "predicate": "LOCATED_IN", "object": "Berlin", "valid_at": "2010-01-01"},
            ], "source": "onboarding chat"})
            assert (first["created"], first["entities_created"]) == (3, 4)
            moved = await session.call("upsert_graph_triples", {"triples": [
                {"subject": "Dana", "predicate": "LIVES_IN", "object": "London", "valid_at": "2022-09-15T09:30:00Z"}]})
            assert (moved["created"], moved["closed"]) == (1, 1)

    async def read() -> None:
        async with connect(server) as client:
            session = await Session.open(client)
            now = await session.call("recall_context", {"query": "where does Dana live?"})
            assert now["text"].startswith(RECALL_NOTICE) and now["notice"] == RECALL_NOTICE
            assert ("Dana", "LIVES_IN", "London") in {tuple(f["fact"]) for f in now["memories"] if "fact" in f}
            assert "Paris" not in {f["fact"][2] for f in now["memories"] if "fact" in f}
            assert "Dana LIVES_IN London  [2022-09-15T09:30:00Z → now]" in now["text"]
            then = await session.call("recall_context", {"query": "where does Dana live?", "as_of": "2020-06-01"})
            objects = {f["fact"][2] for f in then["memories"] if "fact" in f}
            assert "Paris" in objects and "London" not in objects

            past = await session.call("query_facts", {"subject": "Dana", "as_of": "2020-06-01"})
            assert {tuple(f["fact"][1:]) for f in past["facts"]} == {("LIVES_IN", "Paris"), ("WORKS_AT", "Acme")}
            history = await session.call("fact_history", {"subject": "Dana", "predicate": "LIVES_IN"})
            assert [(f["fact"][2], f["valid"]) for f in history["facts"]] == [
                ("Paris", "2019-03-01/2022-09-15T09:30:00Z"), ("London", "2022-09-15T09:30:00Z")]

            found = await session.call("search_graph_nodes", {"query": "dana"})
            assert found["entities"][0]["name"] == "Dana"
            around = await session.call("query_subgraph", {"entities": ["Berlin"], "hops": 2})
            assert ("Dana", "WORKS_AT", "Acme") in {tuple(f["fact"]) for f in around["facts"]}

            ended = await session.call("forget", {"subject": "Dana", "predicate": "WORKS_AT", "object": "Acme"})
            assert ended["ended"] == 1
            current = await session.call("query_facts", {"subject": "Dana"})
            assert {f["fact"][2] for f in current["facts"]} == {"London"}
            kept = await session.call("fact_history", {"subject": "Dana", "predicate": "WORKS_AT"})
            assert [f["fact"][2] for f in kept["facts"]] == ["Acme"] and "/" in kept["facts"][0]["valid"]

            london = current["facts"][0]["id"]
            judged = await session.call("memory_feedback", {"fact_id": london, "verdict": "stale"})
            assert judged["fact"]["status"] == "disputed" and judged["notice"] == RECALL_NOTICE
            assert (await session.call("query_facts", {"subject": "Dana"}))["facts"] == []

    anyio.run(write)
    anyio.run(read)


BAD_CALLS: list[tuple[str, dict[str, Any], list[str]]] = [
    ("recall_context", {}, ["query", "required"]),
    ("recall_context", {"query": "Dana", "hops": 3}, ["hops", "1, 2", "got 3"]),
    ("recall_context", {"query": "Dana", "limit": 0}, ["limit", ">= 1"]),
    ("recall_context", {"query": "Dana", "as_of": "01/02/2024"}, ["as_of", "ambiguous"]),
    ("recall_context", {"query": "Dana", "as_of": "sometime soonish"}, ["as_of"]),
    ("recall_context", {"query": "Dana", "as_of": 20240101}, ["as_of", "string"]),
    ("recall_context", {"query": "Dana", "min_score": 1.5}, ["min_score", "<= 1"]),
    ("pin_fact", {"fact_id": "x", "subject": "Dana"}, ["fact_id, or subject, predicate and object"]),
    ("pin_fact", {"subject": "Dana", "predicate": "LIVES_IN", "object": "Rome"}, ["no fact Dana LIVES_IN Rome"]),
    ("memory_digest", {"limit": 0}, ["limit", ">= 1"]),
    ("query_facts", {"subject": "Dana", "predicate": "lives in"}, ["predicate", "UPPER_SNAKE_CASE"]),
    ("query_facts", {"subject": "Dana", "cursor": "not-a-cursor"}, ["cursor"]),
    ("query_subgraph", {"entities": []}, ["entities", "at least 1"]),
    ("forget", {"subject": "Dana", "predicate": "LIVES_IN", "at": "the other day"}, ["at"]),
    ("memory_feedback", {"fact_id": "no-such-fact", "verdict": "wrong"}, ["no-such-fact"]),
    ("memory_feedback", {"fact_id": "x", "verdict": "meh"}, ["verdict", "helpful"]),
    ("upsert_graph_triples", {"triples": []}, ["triples", "at least 1"]),
    ("upsert_graph_triples", {"triples": [{"subject": "Dana", "predicate": "LIVES_IN"}]}, ["object", "required"]),
    ("upsert_graph_triples", {"triples": [{"subject": "Dana", "predicate": "LIVES_IN", "object": "Rome",
                                           "valid_from": "2020-01-01"}]}, ["valid_from", "unexpected"]),
    ("upsert_graph_triples", {"triples": [{"subject": "Dana", "predicate": "LIKES", "object": "tea"},
                                          {"subject": "Dana", "predicate": "lives in", "object": "Rome"}]},
     ["predicate", "UPPER_SNAKE_CASE"]),
    ("upsert_graph_triples", {"triples": [{"subject": "x" * 300, "predicate": "LIKES", "object": "tea"}]},
     ["subject"]),
    ("upsert_graph_triples", {"triples": [{"subject": "Dana", "predicate": "LIKES", "object": "tea",
                                           "valid_at": "2024-13-45"}]}, ["valid_at"]),
]


def test_bad_arguments_are_tool_errors_that_say_what_to_fix(server: ServerCommand) -> None:
    async def main() -> None:
        async with connect(server) as client:
            session = await Session.open(client)
            await session.call("upsert_graph_triples", {"triples": [
                {"subject": "Dana", "predicate": "LIVES_IN", "object": "Paris", "valid_at": "2019-03-01"}]})
            for tool, arguments, fragments in BAD_CALLS:
                message = await session.error(tool, arguments)
                assert all(f in message for f in fragments), f"{tool}({arguments}): {message!r} lacks {fragments}"
                assert "Traceback" not in message and len(message) < 1_000
            with pytest.raises(MCPError) as unknown:
                await client.call_tool("drop_everything", {})
            assert unknown.value.error.code == INVALID_PARAMS and "recall_context" in unknown.value.error.message

            # A hostile value is only ever a parameter: it matches nothing and changes nothing.
            hostile = await session.call("query_facts", {"subject": "Dana'}) MATCH (n) DETACH DELETE n //"})
            assert hostile["facts"] == []
            # Nothing of the refused batches was written, and the server still answers.
            facts = await session.call("query_facts", {"subject": "Dana", "as_of": "2020-01-01"})
            assert [tuple(f["fact"][1:]) for f in facts["facts"]] == [("LIVES_IN", "Paris")]
            assert (await session.call("query_facts", {"subject": "Dana"}))["total"] == 1

    anyio.run(main)
