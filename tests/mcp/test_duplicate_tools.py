"""The duplicate-entity tools (issue 30): a save warns about a new entity that is probably an existing one and
names the call that would merge it; behind --allow-review, the pairs are listed, merged, kept apart, unmerged."""

from __future__ import annotations

from collections.abc import Callable

import anyio
import pytest

from synapse_graph import Memory
from synapse_graph.mcp import ServerOptions
from tests.mcp.conftest import Serve, call

pytestmark = pytest.mark.integration

DANA = {"triples": [{"subject": "Dana Reyes", "predicate": "WORKS_AT", "object": "Acme", "valid_at": "2020-01-01"}]}
D_REYES = {"triples": [{"subject": "D. Reyes", "predicate": "WORKS_AT", "object": "Acme", "valid_at": "2021-01-01"}]}


def test_a_save_names_the_merge_call_and_review_tools_act_on_the_pair(
        make_memory: Callable[..., Memory], serve: Serve) -> None:
    plain_memory, memory = make_memory(), make_memory()

    async def main() -> None:
        async with serve(plain_memory) as plain:
            await call(plain, "upsert_graph_triples", DANA)
            text, saved = await call(plain, "upsert_graph_triples", D_REYES)
            [warned] = saved["possible_duplicates"]
            assert (warned["keep"], warned["other"]) == ("Dana Reyes", "D. Reyes") and warned["score"] >= 0.95
            assert "SAME_AS" in warned["merge_call"] and "possible duplicate" in text
        assert plain_memory.entity("D. Reyes").name == "D. Reyes"  # nothing merged

        async with serve(memory, ServerOptions(allow_review=True)) as trusted:
            await call(trusted, "upsert_graph_triples", DANA)
            _, saved = await call(trusted, "upsert_graph_triples", D_REYES)
            merge = "merge_duplicate(keep='Dana Reyes', other='D. Reyes')"
            assert saved["possible_duplicates"][0]["merge_call"] == merge
            _, listed = await call(trusted, "duplicate_entities", {})
            assert [(d["keep"], d["other"]) for d in listed["duplicates"]] == [("Dana Reyes", "D. Reyes")]
            await call(trusted, "merge_duplicate", {"keep": "Dana Reyes", "other": "D. Reyes"})
            assert memory.entity("D. Reyes").name == "Dana Reyes"
            text, _ = await call(trusted, "unmerge_entity", {"name": "D. Reyes"})
            assert "restored" in text and memory.entity("D. Reyes").name == "D. Reyes"
            await call(trusted, "keep_distinct", {"first": "Dana Reyes", "second": "D. Reyes", "reason": "two people"})
            _, listed = await call(trusted, "duplicate_entities", {})
            assert listed["duplicates"] == []

    anyio.run(main)
