"""The FalkorDB scope lock's one-round-trip procedures (sans I/O: the server's replies are scripted).

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


def run(procedure: steps.Steps, replies: list[Any]) -> tuple[list[Any], Any]:
    """Drive a procedure with scripted replies; the commands it sent, and what it returned."""
    sent: list[Any] = []
    reply: Any = None
    try:
        while True:
            sent.append(procedure.send(reply))
            reply = replies.pop(0)
    except StopIteration as done:
        assert replies == [], "the procedure stopped before using every reply"
        return sent, done.value


def test_a_read_that_ran_holding_the_lock_is_answered_in_the_same_round_trip() -> None:
    sent, answer = run(steps.acquire_with("g", "s", "t", 5.0, "here", READ), [[[1, 0], "rows"]])
    assert len(sent) == 1 and sent[0][0] == steps.PIPELINE
    [lock, read] = sent[0][1]
    assert lock[0] == "EVAL" and read == READ, "the lock's script must run before the read"
    assert answer == "rows"


def test_a_read_sent_while_another_writer_held_the_lock_is_sent_again_once_it_is_had() -> None:
    sent, answer = run(steps.acquire_with("g", "s", "t", 5.0, "here", READ),
                       [[[0, 3000], "stale rows"], None, [1, 0], "fresh rows"])
    assert [c[0] for c in sent] == [steps.PIPELINE, "XREAD", "EVAL", "GRAPH.RO_QUERY"]
    assert answer == "fresh rows", "a reply read without the lock was used"


def test_a_writer_that_never_gets_the_lock_leaves_the_queue_and_reads_nothing() -> None:
    procedure = steps.acquire_with("g", "s", "t", 0.0, "here", READ)
    assert procedure.send(None)[0] == steps.PIPELINE
    leave = procedure.send([[0, 3000], "stale rows"])
    assert leave[0] == "EVAL" and "LREM" in leave[1], "the writer must leave the queue"
    with pytest.raises(ScopeBusyError):
        procedure.send(1)


def test_the_last_write_runs_before_the_release_in_one_round_trip() -> None:
    sent, answer = run(steps.then_release("g", "s", "t", WRITE), [["written", 1]])
    [[kind, (write, release)]] = sent
    assert kind == steps.PIPELINE and write == WRITE
    assert release[0] == "EVAL" and "LREM" in release[1] and "t" in release
    assert answer == "written"
