"""The FalkorDB scope lock's one-round-trip procedures, and a statement's wait for the indexes it needs (sans I/O:
the server's replies are scripted).

A writer's first read rides with the lock's script, and its last write carries the release; what
must hold is that a read's reply is used only when it ran holding the lock.
"""

from __future__ import annotations

from typing import Any

import pytest

from synapse_graph.backends import falkordb_steps as steps
from synapse_graph.errors import ScopeBusyError

READ = ("GRAPH.RO_QUERY", "g", "MATCH (n) RETURN n", "--compact")
WRITE = ("GRAPH.QUERY", "g", "CREATE ()", "--compact")


def run(procedure: steps.Steps[Any], replies: list[Any]) -> tuple[list[steps.Step], Any]:
    """Drive a procedure with scripted replies; the steps it sent, and what it returned."""
    sent: list[steps.Step] = []
    reply: Any = None
    try:
        while True:
            sent.append(procedure.send(reply))
            reply = replies.pop(0)
    except StopIteration as done:
        assert replies == [], "the procedure stopped before using every reply"
        return sent, done.value


def kind(step: steps.Step) -> str:
    """A redis command's name, or the kind of a step that is not one command."""
    return step.command[0] if isinstance(step, steps.Send) else type(step).__name__


def test_a_read_that_ran_holding_the_lock_is_answered_in_the_same_round_trip() -> None:
    sent, answer = run(steps.acquire_with("g", "s", "t", 5.0, "here", READ), [[[1, 0], "rows"]])
    [pipeline] = sent
    assert isinstance(pipeline, steps.Pipeline)
    [lock, read] = pipeline.commands
    assert lock[0] == "EVAL" and read == READ, "the lock's script must run before the read"
    assert answer == "rows"


def test_a_read_sent_while_another_writer_held_the_lock_is_sent_again_once_it_is_had() -> None:
    sent, answer = run(steps.acquire_with("g", "s", "t", 5.0, "here", READ),
                       [[[0, 3000], "stale rows"], None, [1, 0], "fresh rows"])
    assert [kind(step) for step in sent] == ["Pipeline", "XREAD", "EVAL", "GRAPH.RO_QUERY"]
    assert answer == "fresh rows", "a reply read without the lock was used"


def test_a_writer_that_never_gets_the_lock_leaves_the_queue_and_reads_nothing() -> None:
    procedure = steps.acquire_with("g", "s", "t", 0.0, "here", READ)
    assert isinstance(procedure.send(None), steps.Pipeline)
    leave = procedure.send([[0, 3000], "stale rows"])
    assert isinstance(leave, steps.Send)
    assert leave.command[0] == "EVAL" and "LREM" in leave.command[1], "the writer must leave the queue"
    with pytest.raises(ScopeBusyError):
        procedure.send(1)


def test_the_last_write_runs_before_the_release_in_one_round_trip() -> None:
    sent, answer = run(steps.then_release("g", "s", "t", WRITE), [["written", 1]])
    [pipeline] = sent
    assert isinstance(pipeline, steps.Pipeline)
    write, release = pipeline.commands
    assert write == WRITE
    assert release[0] == "EVAL" and "LREM" in release[1] and "t" in release
    assert answer == "written"


def indexes(*rows: tuple[str, str]) -> list[Any]:
    """A compact reply of `CALL db.indexes() YIELD label, status`: one row an index (its label, its status)."""
    return [[[1, "label"], [1, "status"]], [[[2, label], [2, state]] for label, state in rows],
            ["Query internal execution time: 0.1 ms"]]


BUILDING = "[Indexing] 500000/1098858: UNDER CONSTRUCTION"
NODES_BUILT = indexes(("Entity", "OPERATIONAL"), ("FACT", BUILDING))
ALL_BUILDING = indexes(("Entity", BUILDING), ("FACT", BUILDING))
ALL_BUILT = indexes(("Entity", "OPERATIONAL"), ("FACT", "OPERATIONAL"))
SEEK = ["Results", "    Conditional Traverse | (a)-[r:FACT]->(b:Entity)", "        Node By Index Scan | (a:Entity)"]
SCAN = ["Results", "    Conditional Traverse | (a)-[r:FACT]->(b:Entity)", "        Node By Label Scan | (a:Entity)"]
BY_ID = ("GRAPH.RO_QUERY", "g", "MATCH ()-[r:FACT]->() WHERE r.id = $id RETURN r", "--compact")


def test_while_indexes_build_a_read_waits_until_its_plan_scans_nothing() -> None:
    """An embedded server builds its indexes after it answers (DELAY_INDEXING), node labels first; a statement that
    would seek one still building scans its label (correct, but a record's links took 40 s at 1M), so it waits."""
    sent, building = run(steps.wait_for_indexes("g", "here", READ),
                         [ALL_BUILDING, SCAN, None, NODES_BUILT, SEEK])
    assert [kind(step) for step in sent] == ["GRAPH.RO_QUERY", "GRAPH.EXPLAIN", "Sleep", "GRAPH.RO_QUERY",
                                             "GRAPH.EXPLAIN"]
    assert building, "the FACT index is still being built: the next statement must look again"
    sent, building = run(steps.wait_for_indexes("g", "here", BY_ID),
                         [NODES_BUILT, ["Results", "    All Node Scan | (@anon_0)"], None, ALL_BUILT])
    assert [kind(step) for step in sent] == ["GRAPH.RO_QUERY", "GRAPH.EXPLAIN", "Sleep", "GRAPH.RO_QUERY"]
    assert not building, "once every index is built nothing needs to look again"


def test_while_indexes_build_a_write_and_an_index_procedure_wait_for_theirs() -> None:
    """A write's unique check and MERGE run without an index still building, and a full-text procedure on one
    answers nothing: a write waits for every index, a procedure for its label's."""
    sent, _ = run(steps.wait_for_indexes("g", "here", WRITE), [NODES_BUILT, None, ALL_BUILT])
    assert [kind(step) for step in sent] == ["GRAPH.RO_QUERY", "Sleep", "GRAPH.RO_QUERY"]
    facts = ("GRAPH.RO_QUERY", "g", "CALL db.idx.fulltext.queryRelationships('FACT', $q) YIELD relationship "
             "RETURN relationship", "--compact")
    sent, _ = run(steps.wait_for_indexes("g", "here", facts), [NODES_BUILT, None, ALL_BUILT])
    assert [kind(step) for step in sent] == ["GRAPH.RO_QUERY", "Sleep", "GRAPH.RO_QUERY"]
    entities = ("GRAPH.RO_QUERY", "g", "CALL db.idx.fulltext.queryNodes('Entity', $q) YIELD node RETURN node",
                "--compact")
    sent, building = run(steps.wait_for_indexes("g", "here", entities), [NODES_BUILT, ["Results", "ProcedureCall"]])
    assert building and [kind(step) for step in sent] == ["GRAPH.RO_QUERY", "GRAPH.EXPLAIN"]


def test_built_indexes_are_looked_at_once_and_other_commands_not_at_all() -> None:
    sent, building = run(steps.wait_for_indexes("g", "here", READ), [ALL_BUILT])
    assert [kind(step) for step in sent] == ["GRAPH.RO_QUERY"] and not building
    sent, building = run(steps.wait_for_indexes("g", "here", ("EVAL", "script", 0)), [])
    assert sent == [] and building
