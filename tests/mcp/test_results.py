"""Results written for a model, on both backends: bounded size, cursors that lose nothing, the notice, opt-in tools.

These run the server in process (the SDK's in-memory client) on a real ``Memory``: what is
measured is the server's result shaping, on a populated store.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import anyio
import pytest
from mcp import Client, MCPError

from synapse_graph import Memory, Triple
from synapse_graph.mcp import ServerOptions
from synapse_graph.mcp.formatting import CHARS_PER_TOKEN, DEFAULT_MAX_RESULT_TOKENS
from synapse_graph.models import RECALL_NOTICE
from tests.mcp.conftest import NATIVE_TOOLS, Serve, call

pytestmark = pytest.mark.integration
BUDGET = 1_000  # tokens: small, so a few hundred facts need many pages


def size_in_tokens(text: str, data: dict[str, Any]) -> float:
    return (len(text) + len(json.dumps(data, ensure_ascii=False, separators=(",", ":")))) / CHARS_PER_TOKEN


async def pages(client: Client, tool: str, arguments: dict[str, Any], key: str = "facts",
                between: Callable[[], None] | None = None) -> list[dict[str, Any]]:
    """Every page of a listing, following the cursors; ``between`` runs after the first page."""
    cursor, seen = None, []
    while True:
        text, data = await call(client, tool, arguments | ({"cursor": cursor} if cursor else {}))
        assert size_in_tokens(text, data) <= BUDGET, f"a page of {size_in_tokens(text, data)} tokens"
        seen.append(data)
        cursor = data.get("next_cursor")
        if cursor is None:
            return seen
        assert f'cursor="{cursor}"' in text and data[key]
        if between is not None and len(seen) == 1:
            between()


def knows(memory: Memory, start: int, count: int) -> None:
    memory.upsert([Triple(subject=f"Colleague {i:03d} of the billing team", predicate="KNOWS", object="Dana",
                          valid_at=f"2020-01-{1 + i % 28:02d}", subject_type="Person")
                   for i in range(start, start + count)],
                  source="the team page of the intranet, imported during onboarding")


def test_long_listings_come_in_pages_within_the_budget_and_lose_nothing(make_memory: Callable[..., Memory],
                                                                        serve: Serve) -> None:
    memory = make_memory()
    knows(memory, 0, 150)
    expected = {f.id for f in memory.facts(None, "KNOWS", "Dana")}
    assert len(expected) == 150

    async def main() -> None:
        async with serve(memory, ServerOptions(max_result_tokens=BUDGET)) as client:
            for tool, arguments in (
                ("query_facts", {"predicate": "KNOWS", "object": "Dana", "limit": 1000}),
                ("recall_context", {"query": "who knows Dana", "limit": 200}),
                ("query_subgraph", {"entities": ["Dana"], "limit": 500}),
            ):
                key = "memories" if tool == "recall_context" else "facts"
                listing = await pages(client, tool, arguments, key)
                ids = [f["id"] for page in listing for f in page[key]]
                assert len(listing) > 3, f"{tool}: {len(listing)} pages"
                assert len(ids) == len(set(ids)) and set(ids) == expected, tool
                assert [page["offset"] for page in listing] == [sum(len(p[key]) for p in listing[:i])
                                                                 for i in range(len(listing))]
                assert {page["total"] for page in listing} == {150}

    anyio.run(main)


def test_later_pages_read_the_snapshot_of_the_first(make_memory: Callable[..., Memory],
                                                    serve: Serve) -> None:
    memory = make_memory()
    knows(memory, 0, 80)
    before = {f.id for f in memory.facts(None, "KNOWS", "Dana")}

    def meanwhile() -> None:  # another client writes and retracts while this one pages
        knows(memory, 80, 40)
        memory.retract("Colleague 005 of the billing team", "KNOWS", "Dana")

    async def main() -> None:
        async with serve(memory, ServerOptions(max_result_tokens=BUDGET)) as client:
            listing = await pages(client, "query_facts", {"predicate": "KNOWS", "object": "Dana"}, between=meanwhile)
            assert {f["id"] for page in listing for f in page["facts"]} == before
            assert {page["total"] for page in listing} == {80}
            _, fresh = await call(client, "query_facts", {"predicate": "KNOWS", "object": "Dana", "limit": 1000})
            assert fresh["total"] == 119  # a new call reads now: 80 + 40 - 1 retracted

            _, first = await call(client, "query_facts", {"predicate": "KNOWS", "object": "Dana"})
            result = await client.call_tool("query_facts", {"predicate": "KNOWS", "object": "Acme",
                                                            "cursor": first["next_cursor"]})
            assert result.is_error and "different call" in result.content[0].text  # type: ignore[union-attr]

    anyio.run(main)


def test_every_result_with_stored_data_carries_the_notice(make_memory: Callable[..., Memory],
                                                          serve: Serve) -> None:
    memory = make_memory()
    memory.upsert([("Dana", "WORKS_AT", "Acme"), ("Acme", "LOCATED_IN", "Berlin")])
    fact_id = memory.facts("Dana")[0].id

    async def main() -> None:
        async with serve(memory) as client:
            for tool, arguments in (
                ("recall_context", {"query": "where does Dana work"}),
                ("query_facts", {"subject": "Dana"}),
                ("fact_history", {"subject": "Dana"}),
                ("query_subgraph", {"entities": ["Acme"]}),
                ("search_graph_nodes", {"query": "Acme"}),
                ("memory_feedback", {"fact_id": fact_id, "verdict": "helpful"}),
            ):
                text, data = await call(client, tool, arguments)
                assert text.startswith(RECALL_NOTICE) and data["notice"] == RECALL_NOTICE, tool
                assert "Acme" in text, tool

    anyio.run(main)


def test_erasure_and_review_are_tools_only_when_a_human_enabled_them(make_memory: Callable[..., Memory],
                                                                     serve: Serve) -> None:
    memory = make_memory()
    memory.upsert([("Dana", "WORKS_AT", "Acme"), ("Dana", "LIKES", "tea")])
    memory.upsert([Triple(subject="Dana", predicate="LIKES", object="opera", confidence=0.3),
                   Triple(subject="Dana", predicate="LIKES", object="jazz", confidence=0.3)], model="extractor-1")
    candidates = {f.object: f.id for f in memory.pending()}
    assert set(candidates) == {"opera", "jazz"}
    assert DEFAULT_MAX_RESULT_TOKENS <= 10_000

    async def main() -> None:
        async with serve(memory) as plain:
            assert [t.name for t in (await plain.list_tools()).tools] == NATIVE_TOOLS
            with pytest.raises(MCPError, match="unknown tool 'purge_entity'"):
                await plain.call_tool("purge_entity", {"entity": "Dana"})
        assert {f.object for f in memory.facts("Dana")} == {"Acme", "tea"}  # the refused call erased nothing

        options = ServerOptions(allow_erasure=True, allow_review=True)
        async with serve(memory, options) as trusted:
            names = [t.name for t in (await trusted.list_tools()).tools]
            assert names == [*NATIVE_TOOLS, "purge_entity", "pending_facts", "approve_fact", "reject_fact",
                             "duplicate_entities", "merge_duplicate", "keep_distinct", "unmerge_entity"]
            _, pending = await call(trusted, "pending_facts", {})
            assert {f["fact"][2]: f["status"] for f in pending["facts"]} == {"opera": "candidate", "jazz": "candidate"}
            await call(trusted, "approve_fact", {"fact_id": candidates["opera"]})
            await call(trusted, "reject_fact", {"fact_id": candidates["jazz"], "reason": "the user said no"})
            _, liked = await call(trusted, "query_facts", {"subject": "Dana", "predicate": "LIKES"})
            assert {f["fact"][2] for f in liked["facts"]} == {"tea", "opera"}
            _, erased = await call(trusted, "purge_entity", {"entity": "Acme"})
            assert (erased["entities"], erased["facts"]) == (1, 1)
            _, left = await call(trusted, "fact_history", {"subject": "Dana"})
            assert "Acme" not in {f["fact"][2] for f in left["facts"]}

    anyio.run(main)
