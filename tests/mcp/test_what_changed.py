"""what_changed and memory_digest's changes since the last session (issue 35), through the server on both
backends."""

from __future__ import annotations

import json
from collections.abc import Callable

import anyio
import pytest

from synapse_graph import Memory, Triple
from synapse_graph.mcp import ServerOptions
from tests.mcp.conftest import Serve, call

pytestmark = pytest.mark.integration

SINCE_FIRST = ["Dana WORKS_AT Acme ended 2024-01-31 (retracted)",
               "Dana LIVES_IN London from 2022-09-15 (before: Paris)",
               "Dana LIKES Tea from 2024-03-01 (new)"]


def two_sessions(memory: Memory) -> str:
    """Facts before a first session, what was learned after it began; returns when it began."""
    memory.upsert([Triple(subject="Dana", predicate="LIVES_IN", object="Paris", valid_at="2019-01-01"),
                   Triple(subject="Dana", predicate="WORKS_AT", object="Acme", valid_at="2020-01-01")])
    began = memory.register_session("first").registered_at.isoformat()
    memory.upsert(Triple(subject="Dana", predicate="LIVES_IN", object="London", valid_at="2022-09-15"))
    memory.retract("Dana", "WORKS_AT", at="2024-01-31")
    memory.upsert(Triple(subject="Dana", predicate="LIKES", object="Tea", valid_at="2024-03-01"))
    return began


def test_what_changed_since_the_last_session_or_a_time(make_memory: Callable[..., Memory], serve: Serve) -> None:
    memory = make_memory()

    async def before() -> None:
        async with serve(memory) as client:
            text, none = await call(client, "what_changed", {"since": "last_session"})
            assert "since" not in none and none["changes"] == [] and "no earlier session" in text

    anyio.run(before)
    began = two_sessions(memory)  # the synchronous Memory, outside the server's event loop

    async def main() -> None:
        async with serve(memory) as client:
            text, found = await call(client, "what_changed", {"since": "last_session"})
            assert found["changes"] == SINCE_FIRST and found["since"].startswith(began[:19])
            assert all(line in text for line in SINCE_FIRST)
            _, at_time = await call(client, "what_changed", {"since": began})
            assert at_time["changes"] == SINCE_FIRST
            _, one = await call(client, "what_changed", {"since": began, "limit": 1})
            assert (one["changes"], one["omitted"]) == (SINCE_FIRST[:1], 2)
            _, later = await call(client, "what_changed", {"since": "2999-01-01"})
            assert later["changes"] == []
        async with serve(memory, ServerOptions(max_result_tokens=180)) as small:
            text, cut = await call(small, "what_changed", {"since": began})
            assert cut["omitted"] > 0 and cut["changes"] == SINCE_FIRST[:3 - cut["omitted"]]
            assert len(text) + len(json.dumps(cut, ensure_ascii=False, separators=(",", ":"))) <= 180 * 4

    anyio.run(main)


def test_the_digest_says_what_changed_since_the_last_session(make_memory: Callable[..., Memory],
                                                            serve: Serve) -> None:
    memory = make_memory()
    two_sessions(memory)

    async def main() -> None:
        async with serve(memory) as client:
            text, digest = await call(client, "memory_digest", {})
            assert digest["changed"] == SINCE_FIRST
            assert text.index("changed since your last session") < text.index("Dana LIVES_IN London")
            _, two = await call(client, "memory_digest", {"limit": 2})
            assert two["changed"] == SINCE_FIRST[:2]
        async with serve(memory, ServerOptions(max_result_tokens=250)) as small:
            text, cut = await call(small, "memory_digest", {})
            assert cut["omitted"] > 0 and cut["changed"] == SINCE_FIRST[:len(cut["changed"])]
            assert len(text) + len(json.dumps(cut, ensure_ascii=False, separators=(",", ":"))) <= 250 * 4

    anyio.run(main)
