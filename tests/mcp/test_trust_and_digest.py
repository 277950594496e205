"""Phase 2 of the native tools, on both backends: trust qualifiers, abstention, observations in recall,
the digest, pins, a busy scope, and many calls at once through one server on its AsyncMemory."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

import anyio
import pytest

from synapse_graph import Memory, Triple
from synapse_graph.catalogue import Q
from synapse_graph.engine.scope import lock_init
from synapse_graph.mcp import ServerOptions
from synapse_graph.models import RECALL_NOTICE
from synapse_graph.rules.qualifiers import age_text
from tests.mcp.conftest import Serve, call, error

pytestmark = pytest.mark.integration
LONG_AGO = datetime(2023, 1, 10, tzinfo=UTC)


def restore_backup(memory: Memory, make_memory: Callable[..., Memory], triples: list[Triple], taken: datetime
                   ) -> None:
    """Facts as a backup taken at ``taken`` holds them: recorded then, imported now (history and times kept)."""
    elsewhere = make_memory()
    elsewhere.upsert(triples)
    lines = []
    for line in elsewhere.export():
        item = json.loads(line)
        if item["kind"] == "audit":
            continue
        for key in ("recorded_at", "created_at", "updated_at"):
            if item.get(key):
                item[key] = taken.isoformat()
        lines.append(json.dumps(item))
    memory.import_(lines)


def line_of(text: str, needle: str) -> str:
    [line] = [line for line in text.splitlines() if needle in line]
    return line


def test_facts_carry_their_qualifiers_in_both_channels(make_memory: Callable[..., Memory], serve: Serve) -> None:
    memory = make_memory()
    restore_backup(memory, make_memory, [Triple(subject="Dana", predicate="LIVES_IN", object="Paris",
                                                valid_at="2019-03-01")], LONG_AGO)
    memory.upsert([Triple(subject="Dana", predicate="WORKS_AT", object="Acme"),
                   Triple(subject="Dana", predicate="LIKES", object="jazz", confidence=0.3),
                   Triple(subject="Dana", predicate="KNOWS", object="Bob")])
    memory.upsert(Triple(subject="Dana", predicate="LIKES", object="opera", confidence=0.4), model="extractor-1")
    knows = memory.facts("Dana", "KNOWS")[0].id
    stale = f"stored {age_text(datetime.now(UTC) - LONG_AGO)} ago — may be outdated"

    async def main() -> None:
        async with serve(memory, ServerOptions(allow_review=True)) as client:
            text, data = await call(client, "query_facts", {"subject": "Dana"})
            qualifiers = {f["fact"][2]: f.get("qualifiers") for f in data["facts"]}
            assert qualifiers == {"Paris": [stale], "Acme": None, "jazz": ["low confidence (0.30)"], "Bob": None}
            paris = next(f["id"] for f in data["facts"] if f["fact"][2] == "Paris")
            assert line_of(text, "Paris").endswith(f"⚠ {stale}  id {paris}")
            assert "⚠" not in line_of(text, "Acme")

            _, recalled = await call(client, "recall_context", {"query": "where does Dana live"})
            assert [f["qualifiers"] for f in recalled["memories"] if f["fact"][2] == "Paris"] == [[stale]]

            _, judged = await call(client, "memory_feedback", {"fact_id": knows, "verdict": "wrong"})
            assert judged["fact"]["qualifiers"][0] == "disputed: feedback said it is stale or wrong"
            _, pending = await call(client, "pending_facts", {})
            assert pending["facts"][0]["qualifiers"] == ["candidate: recorded but not reviewed",
                                                         "low confidence (0.40)"]

        # The threshold is the server's option: with a longer one the old fact is not called old.
        async with serve(memory, ServerOptions(stale_after=timedelta(days=100 * 365))) as patient:
            _, data = await call(patient, "query_facts", {"subject": "Dana", "predicate": "LIVES_IN"})
            assert [(f["fact"][2], f.get("qualifiers")) for f in data["facts"]] == [("Paris", None)]

        async with serve(memory) as client:
            await call(client, "upsert_graph_triples", {"triples": [
                {"subject": "Dana", "predicate": "LIVES_IN", "object": "London"}]})  # closes Paris today
            _, then = await call(client, "query_facts", {"subject": "Dana", "predicate": "LIVES_IN",
                                                         "as_of": "2020-01-01"})
            today = datetime.now(UTC).date().isoformat()
            # Closing it recorded its new interval now: no longer valid, but not an old record any more.
            assert then["facts"][0]["qualifiers"] == [f"no longer valid since {today}"]

    anyio.run(main)


def test_recall_abstains_below_min_score_and_shows_matching_observations(make_memory: Callable[..., Memory],
                                                                         serve: Serve) -> None:
    memory = make_memory()
    memory.upsert([("Dana", "LIVES_IN", "London"), ("Dana", "WORKS_AT", "Acme")])
    memory.observe("Dana", ["Speaks fluent Spanish", "Prefers morning meetings"])
    vague = "what colour was the sky above Dana yesterday"
    found = memory.recall(vague)
    assert found.facts and max(f.score for f in found.facts) < 0.9  # the store's answer, before the server's

    async def main() -> None:
        async with serve(memory) as client:
            text, data = await call(client, "recall_context", {"query": vague, "min_score": 0.9})
            assert data["memories"] == [] and data["total"] == 0
            assert data["abstained"].startswith("no memory answers at least 0.9 of the question")
            assert f"abstained: {data['abstained']}" in text
            _, loose = await call(client, "recall_context", {"query": vague, "min_score": 0.0})
            assert {f["fact"][2] for f in loose["memories"] if "fact" in f} == {"London", "Acme"}
            assert [f["relevance"] for f in loose["memories"]] == sorted((f["relevance"] for f in loose["memories"]),
                                                                         reverse=True)

            text, spoken = await call(client, "recall_context", {"query": "does Dana speak Spanish"})
            assert [o["text"] for o in spoken["memories"] if "text" in o] == ["Speaks fluent Spanish"]
            assert 'Dana: "Speaks fluent Spanish"  recorded ' in text

    anyio.run(main)


def test_the_digest_is_the_library_digest_pinned_first_capped_and_deterministic(
        make_memory: Callable[..., Memory], serve: Serve) -> None:
    memory = make_memory()
    memory.upsert([("me", "LIVES_IN", "Lisbon"), ("me", "WORKS_AT", "Acme"), ("Acme", "LOCATED_IN", "Berlin"),
                   ("Acme", "MAKES", "bikes"), ("Bob", "WORKS_AT", "Acme"), ("Bob", "KNOWS", "Carla")])
    memory.upsert(Triple(subject="User", predicate="LIKES", object="opera", confidence=0.3), model="extractor")
    memory.upsert(("User", "LIKES", "tea"))
    tea = memory.facts("User", "LIKES")[0]
    memory.feedback(tea, "wrong")  # disputed: never in a digest
    bikes = memory.facts("Acme", "MAKES")[0]
    expected = [f.id for f in memory.digest(limit=20).facts]
    assert "opera" not in {f.object for f in memory.digest(limit=20).facts}  # a candidate

    async def main() -> None:
        async with serve(memory) as client:
            _, pinned = await call(client, "pin_fact", {"subject": "Acme", "predicate": "MAKES", "object": "bikes"})
            assert pinned["fact"]["pinned"] is True and pinned["fact"]["id"] == bikes.id
            text, digest = await call(client, "memory_digest", {})
            ids = [f["id"] for key in ("pinned", "about_user", "about_entities") for f in digest[key]]
            assert ids[0] == bikes.id and sorted(ids) == sorted(expected)
            assert ids == [f.id for f in memory.digest(limit=20).facts]
            assert {f["fact"][2] for f in digest["about_user"]} == {"Lisbon", "Acme"}
            assert text.startswith(RECALL_NOTICE) and "\npinned:\n  Acme MAKES bikes" in text
            assert (await call(client, "memory_digest", {}))[1]["pinned"] == digest["pinned"]  # the same again

            _, three = await call(client, "memory_digest", {"limit": 3})
            assert [f["id"] for k in ("pinned", "about_user", "about_entities") for f in three[k]] == ids[:3]

            _, unpinned = await call(client, "pin_fact", {"fact_id": bikes.id, "pinned": False})
            assert "pinned" not in unpinned["fact"]
            assert (await call(client, "memory_digest", {}))[1]["pinned"] == []
            assert "no-such-id" in await error(client, "pin_fact", {"fact_id": "no-such-id"})

        async with serve(memory, ServerOptions(max_result_tokens=300)) as small:
            text, cut = await call(small, "memory_digest", {"limit": 200})
            kept = sum(len(cut[k]) for k in ("pinned", "about_user", "about_entities"))
            assert cut["omitted"] > 0 and kept + cut["omitted"] == len(memory.digest(limit=200).facts)
            assert len(text) + len(json.dumps(cut, ensure_ascii=False, separators=(",", ":"))) <= 300 * 4
            assert f"{cut['omitted']} more left out to fit the result budget" in text

    anyio.run(main)


def test_a_busy_scope_is_a_tool_error_that_says_to_call_again(make_memory: Callable[..., Memory], serve: Serve) -> None:
    memory = make_memory()
    memory.upsert(("Dana", "LIVES_IN", "Paris"))

    async def main() -> None:
        async with serve(memory, lock_timeout=0.5) as client:
            with memory.backend.locked(memory.scope, lock_init(), 10.0) as holder:  # another writer holds the
                holder.read(Q.SCOPE_STATE, {"scope": memory.scope})  # scope: it has read it and is still planning
                message = await error(client, "upsert_graph_triples", {"triples": [
                    {"subject": "Dana", "predicate": "LIKES", "object": "tea"}]})
                assert "nothing was written" in message and "call again" in message
                _, read = await call(client, "query_facts", {"subject": "Dana"})  # reads do not wait
                assert [f["fact"][2] for f in read["facts"]] == ["Paris"]
            _, saved = await call(client, "upsert_graph_triples", {"triples": [
                {"subject": "Dana", "predicate": "LIKES", "object": "tea"}]})
            assert saved["created"] == 1

    anyio.run(main)
    assert {f.object for f in memory.facts("Dana")} == {"Paris", "tea"}


def test_many_calls_at_once_through_one_server_lose_nothing(make_memory: Callable[..., Memory],
                                                            serve: Serve) -> None:
    memory = make_memory()
    count = 30

    async def main() -> None:
        async with serve(memory) as client:
            async def write(i: int) -> None:
                _, result = await call(client, "upsert_graph_triples", {"triples": [
                    {"subject": "Team", "predicate": "WROTE", "object": f"note {i:02d}"}]})
                assert result["created"] == 1

            async def read() -> None:
                await call(client, "recall_context", {"query": "what did the team write"})

            async with anyio.create_task_group() as group:
                for i in range(count):
                    group.start_soon(write, i)
                    group.start_soon(read)

    anyio.run(main)
    assert sorted(f.object for f in memory.facts("Team")) == [f"note {i:02d}" for i in range(count)]
