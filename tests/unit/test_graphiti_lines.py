"""A Graphiti group as export lines: every time mapped, names and secrets handled, nothing left out silently."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from synapse_graph.engine.context import Context
from synapse_graph.engine.import_lines import read_lines
from synapse_graph.graphiti import GraphitiEdge, GraphitiGroup, GraphitiNode, predicate_for, translate
from synapse_graph.graphiti.lines import OPEN_SUFFIX, edge_source

CTX = Context(scope="graphiti-unit", client="tester")
T0 = datetime(2024, 3, 1, 12, 0, 0, 123456, tzinfo=UTC)


def at(days: float) -> datetime:
    return T0 + timedelta(days=days)


def node(uuid: str, name: str, summary: str = "", labels: tuple[str, ...] = ()) -> GraphitiNode:
    return GraphitiNode(uuid=uuid, name=name, group_id="g", labels=labels, created_at=T0, summary=summary)


NODES = [node("n-dana", "Dana", "Dana is an engineer.", ("Person",)), node("n-paris", "Paris"),
         node("n-london", "London")]


def edge(uuid: str, **times: Any) -> GraphitiEdge:
    fields: dict[str, Any] = {"source": "n-dana", "target": "n-paris", "name": "LIVES_IN",
                              "fact": "Dana lives in Paris", "created_at": at(0), **times}
    return GraphitiEdge(uuid=uuid, group_id="g", **fields)


def facts(*edges: GraphitiEdge, nodes: list[GraphitiNode] = NODES, ctx: Context = CTX) -> list[dict[str, Any]]:
    translation = translate(GraphitiGroup("g", list(nodes), list(edges)), ctx)
    read_lines(ctx, translation.lines)  # the lines are a valid export
    return [line for line in map(json.loads, translation.lines) if line["kind"] == "fact"]


def spans(found: list[dict[str, Any]]) -> list[tuple[str, str, str | None, str, str | None]]:
    return [(f["id"], f["valid_at"], f["invalid_at"], f["recorded_at"], f["expired_at"]) for f in found]


def iso(value: datetime) -> str:
    return value.isoformat()


def test_a_current_edge_is_one_record_with_its_world_and_belief_times() -> None:
    found = facts(edge("e1", valid_at=at(-100), invalid_at=at(-10)))
    assert spans(found) == [("e1", iso(at(-100)), iso(at(-10)), iso(at(0)), None)]


def test_an_edge_graphiti_ended_later_is_the_open_belief_expired_then_the_ended_one() -> None:
    found = facts(edge("e1", valid_at=at(-100), invalid_at=at(-10), expired_at=at(5)))
    assert spans(found) == [("e1" + OPEN_SUFFIX, iso(at(-100)), None, iso(at(0)), iso(at(5))),
                            ("e1", iso(at(-100)), iso(at(-10)), iso(at(5)), None)]


def test_an_edge_expired_without_an_end_is_one_expired_record() -> None:
    found = facts(edge("e1", valid_at=at(-100), expired_at=at(5)))
    assert spans(found) == [("e1", iso(at(-100)), None, iso(at(0)), iso(at(5)))]


def test_an_edge_expired_when_recorded_has_no_open_record() -> None:
    found = facts(edge("e1", valid_at=at(-100), invalid_at=at(-10), expired_at=at(0)))
    assert spans(found) == [("e1", iso(at(-100)), iso(at(-10)), iso(at(0)), None)]


def test_without_valid_at_an_edge_holds_from_its_reference_time_else_from_when_recorded() -> None:
    translation = translate(GraphitiGroup("g", NODES, [edge("e1", reference_time=at(-3)), edge("e2")]), CTX)
    found = [json.loads(line) for line in translation.lines if '"fact"' in line]
    assert [(f["id"], f["valid_at"]) for f in found] == [("e1", iso(at(-3))), ("e2", iso(at(0)))]
    assert translation.report.without_valid_at == 2


def test_an_edge_that_never_held_is_left_out_and_listed() -> None:
    translation = translate(GraphitiGroup("g", NODES, [edge("e1", valid_at=at(-1), invalid_at=at(-1)),
                                                       edge("e2", invalid_at=at(-1))]), CTX)
    assert not [line for line in translation.lines if '"fact"' in line]
    reasons = {item.uuid: item.reason for item in translation.report.left_out}
    assert "never held: its invalid_at is not after its valid_at" in reasons["e1"]
    assert "created_at (it has no valid_at)" in reasons["e2"]


def test_a_name_that_is_not_upper_snake_case_is_mapped_and_kept_in_the_source() -> None:
    assert [predicate_for(n) for n in ("WORKS_AT", "works at", "worksWith", "SAME_AS", "2nd cousin of")] == \
        ["WORKS_AT", "WORKS_AT", "WORKS_WITH", "IS_SAME_AS", "REL_2ND_COUSIN_OF"]
    translation = translate(GraphitiGroup("g", NODES, [
        GraphitiEdge(uuid="e1", group_id="g", source="n-dana", target="n-london", name="moved to",
                     fact="Dana moved to London", created_at=at(0), valid_at=at(-1), episodes=("ep-1", "ep-2"))]),
        CTX)
    [fact] = [json.loads(line) for line in translation.lines if '"fact"' in line]
    assert (fact["predicate"], fact["source"]) == (
        "MOVED_TO", "graphiti: Dana moved to London [name: moved to] [episodes: ep-1, ep-2]")
    assert translation.report.renamed == {"moved to": "MOVED_TO"}


def test_a_long_source_is_cut_to_512_characters_keeping_the_name_and_saying_how_many_episodes() -> None:
    long = GraphitiEdge(uuid="e1", group_id="g", source="n-dana", target="n-paris", name="lives in",
                        fact="word " * 200, created_at=at(0), episodes=tuple(f"{i:036d}" for i in range(30)))
    source, cut = edge_source(long, "LIVES_IN", CTX)
    assert cut and len(source) == 512
    assert "[name: lives in]" in source and source.endswith(" more]") and "…" in source
    short, cut = edge_source(edge("e2"), "LIVES_IN", CTX)
    assert (short, cut) == ("graphiti: Dana lives in Paris", False)


def test_nodes_of_one_name_are_one_entity_each_summary_kept_and_the_merge_reported() -> None:
    twins = [*NODES, node("n-dana-2", "DANA", "Another Dana."), node("n-dana-3", "Dana", "Dana is an engineer.")]
    translation = translate(GraphitiGroup("g", twins, [edge("e1", valid_at=at(-1), source="n-dana-2")]), CTX)
    lines = [json.loads(line) for line in translation.lines]
    entities = [line for line in lines if line["kind"] == "entity"]
    assert sorted(e["name"] for e in entities) == ["Dana", "London", "Paris"]
    assert [e["type"] for e in entities if e["name"] == "Dana"] == ["Person"]
    assert sorted(o["text"] for o in lines if o["kind"] == "observation") == ["Another Dana.", "Dana is an engineer."]
    assert translation.report.merged == {"Dana": ["n-dana", "n-dana-2", "n-dana-3"]}
    assert [f["subject"] for f in lines if f["kind"] == "fact"] == ["dana"]


def test_secrets_are_redacted_or_left_out_never_kept_in_clear() -> None:
    nodes = [*NODES, node("n-mail", "dana@example.com")]
    edges = [edge("e1", fact="Dana's password: hunter2hunter2"), edge("e2", target="n-mail")]
    redacted = translate(GraphitiGroup("g", nodes, edges), CTX)
    assert "hunter2" not in "".join(redacted.lines) and "[REDACTED:password]" in "".join(redacted.lines)
    assert {(i.uuid, i.kind) for i in redacted.report.left_out} == {("n-mail", "entity"), ("e2", "edge")}
    rejecting = Context(scope="graphiti-unit", client="tester", secrets="reject")
    refused = translate(GraphitiGroup("g", nodes, edges), rejecting)
    assert "hunter2" not in "".join(refused.lines)
    assert {(i.uuid, i.kind) for i in refused.report.left_out} == {("n-mail", "entity"), ("e1", "edge"),
                                                                   ("e2", "edge")}


@pytest.mark.parametrize("uuid", ["not-a-uuid-but-a-very-long-identifier-" * 3, "ünïcode"])
def test_an_edge_id_that_is_not_letters_and_digits_becomes_a_stable_digest(uuid: str) -> None:
    [first] = facts(edge(uuid))
    [again] = facts(edge(uuid))
    assert first["id"] == again["id"] and first["id"].isalnum() and len(first["id"]) == 32


def test_the_same_group_gives_the_same_lines_each_time() -> None:
    """An import into a scope holding part of these lines completes it: nothing in them depends on when it runs."""
    group = GraphitiGroup("g", NODES, [edge("e1", valid_at=at(-100), invalid_at=at(-10), expired_at=at(5))])
    assert translate(group, CTX).lines == translate(group, CTX).lines
