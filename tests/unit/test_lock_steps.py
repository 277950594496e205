"""The FalkorDB scope lock's one-round-trip procedures, and the schema's wait for indexes (sans I/O: the server's
replies are scripted).

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


def indexes(*states: str) -> list[Any]:
    """A compact reply of `CALL db.indexes() YIELD status`: one row an index, its status."""
    return [[[1, "status"]], [[[2, state]] for state in states], ["Query internal execution time: 0.1 ms"]]


def test_the_schema_waits_for_an_index_built_in_the_background_before_anything_reads() -> None:
    """FalkorDB builds an index added to a label that holds records in the background; until then a statement that
    would seek it scans the label (store format 13's FACT end keys: a record's links took 40 s at 1M)."""
    building = indexes("OPERATIONAL", "[Indexing] 500000/1098858: UNDER CONSTRUCTION")
    sent, _ = run(steps._indexes_built("g", "here"), [building, None, building, None, indexes("OPERATIONAL")])
    assert [kind(step) for step in sent] == ["GRAPH.RO_QUERY", "Sleep", "GRAPH.RO_QUERY", "Sleep", "GRAPH.RO_QUERY"]
    sent, _ = run(steps._indexes_built("g", "here"), [indexes("OPERATIONAL", "OPERATIONAL")])
    assert [kind(step) for step in sent] == ["GRAPH.RO_QUERY"], "built indexes are looked at once"
