"""Observations through MCP, on both backends: the native add_observations tool (validated like the others,
dated with valid_at, found by recall_context), the reference profile's validAt extension, and structured
content about as short as the text lines (Claude Code and Codex hand the model the structured form)."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import anyio
import pytest

from synapse_graph import Memory, Triple
from tests.mcp.conftest import Serve, call, error
from tests.mcp.reference_targets import E, Graph, Target

pytestmark = pytest.mark.integration

CAT = "Adopted a cat named Oliver"


def structured_chars(data: dict[str, Any]) -> int:
    return len(json.dumps(data, ensure_ascii=False, separators=(",", ":")))


def test_add_observations_records_dated_texts_that_recall_finds(make_memory: Callable[..., Memory],
                                                                 serve: Serve) -> None:
    memory = make_memory()

    async def main() -> None:
        async with serve(memory) as client:
            text, saved = await call(client, "add_observations", {
                "entity": "Melanie", "texts": [CAT, "Paints landscapes"], "valid_at": "2023-05-08",
                "source": "chat 2023-05-09", "entity_type": "Person"})
            assert (saved["added"], saved["skipped"]) == (2, 0)
            assert {o["text"]: o["valid"] for o in saved["observations"]} == {CAT: "2023-05-08",
                                                                               "Paints landscapes": "2023-05-08"}
            assert f'Melanie: "{CAT}"  [2023-05-08]' in text
            _, again = await call(client, "add_observations", {"entity": "melanie", "texts": [CAT]})
            assert (again["added"], again["skipped"], again["observations"]) == (0, 1, [])

            text, found = await call(client, "recall_context", {"query": "When did Melanie adopt her pet?"})
            first = found["memories"][0]
            assert (first["text"], first["valid"], first["entity"]) == (CAT, "2023-05-08", "Melanie")
            assert found["entities"] == ["Melanie"] and found["usage"]["items"] == len(found["memories"])
            assert f'Melanie: "{CAT}"  [2023-05-08]' in text

    anyio.run(main)
    [held] = [o for o in memory.observations("Melanie") if o.text == CAT]
    assert (held.valid_at, held.source) == (datetime(2023, 5, 8, tzinfo=UTC), "chat 2023-05-09")
    assert memory.entity("Melanie").type == "Person"  # type: ignore[union-attr]


@pytest.mark.parametrize(("arguments", "says"), [
    ({"entity": "Melanie", "texts": [CAT], "valid_at": "2023-13-45"}, "valid_at"),
    ({"entity": "Melanie", "texts": []}, "texts"),
    ({"entity": "", "texts": [CAT]}, "entity"),
    ({"entity": "Melanie", "texts": [""]}, "texts"),
    ({"entity": "Melanie", "texts": [CAT], "source": "x" * 600}, "source"),
    ({"entity": "Melanie", "texts": [CAT], "colour": "blue"}, "colour"),
], ids=["bad-time", "no-text", "no-entity", "empty-text", "long-source", "unknown-field"])
def test_add_observations_refuses_bad_input_and_writes_nothing(make_memory: Callable[..., Memory], serve: Serve,
                                                               arguments: dict[str, Any], says: str) -> None:
    memory = make_memory()
    memory.upsert(("Dana", "LIVES_IN", "Paris"))  # a populated scope: the refusal must leave it as it was

    async def main() -> None:
        async with serve(memory) as client:
            message = await error(client, "add_observations", arguments)
            assert says in message and "Traceback" not in message

    anyio.run(main)
    assert memory.entity("Melanie") is None and memory.observations() == []
    assert [f.object for f in memory.facts("Dana")] == ["Paris"]


def test_structured_content_is_within_a_third_of_the_text_lines(make_memory: Callable[..., Memory],
                                                                serve: Serve) -> None:
    memory = make_memory()
    memory.upsert([Triple(subject="Dana", predicate=p, object=o, valid_at="2021-03-01") for p, o in (
        ("WORKS_AT", "Acme"), ("LIVES_IN", "London"), ("KNOWS", "Sam"), ("LIKES", "opera"), ("SPEAKS", "Spanish"),
        ("OWNS", "a bicycle"), ("STUDIED_AT", "Porto University"))], source="onboarding chat")
    memory.observe("Dana", ["Moved to London for the new job", "Plays the cello on Sundays"], valid_at="2021-02-20")
    sizes: dict[str, tuple[int, int]] = {}

    async def main() -> None:
        async with serve(memory) as client:
            for tool, arguments, key in (("recall_context", {"query": "What does Dana do in London?"}, "memories"),
                                         ("query_facts", {"subject": "Dana"}, "facts")):
                text, data = await call(client, tool, arguments)
                assert len(data[key]) >= 7, (tool, data)
                sizes[tool] = (len(text), structured_chars(data))

    anyio.run(main)
    for tool, (text_chars, data_chars) in sizes.items():
        assert data_chars <= 1.3 * text_chars, f"{tool}: structured {data_chars} chars, text {text_chars}"


def test_the_reference_profile_takes_valid_at_as_an_extension(ours: Target) -> None:
    memory = ours.memory()
    try:
        async def story(kg: Graph) -> None:
            await kg.create_entities(E("Melanie", "person"))
            added = await kg.call("add_observations", observations=[
                {"entityName": "Melanie", "contents": [CAT], "validAt": "2023-05-08"}])
            assert added["results"] == [{"entityName": "Melanie", "addedObservations": [CAT]}]
            refused = await kg.error("add_observations", observations=[
                {"entityName": "Melanie", "contents": ["Paints landscapes"], "validAt": "not a time"}])
            assert "valid_at" in refused

        ours.run(story)
        assert [(o.text, o.valid_at) for o in memory.observations("Melanie")] == [
            (CAT, datetime(2023, 5, 8, tzinfo=UTC))]
    finally:
        memory.close()


@pytest.fixture
def ours(request: pytest.FixtureRequest, backend_name: str, tmp_path: Any) -> Target:
    from tests.mcp.reference_targets import make_target

    return make_target(request, backend_name, tmp_path)
