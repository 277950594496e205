"""Recall of a larger scope without an embedder reads its memories with the full-text leg alone
(``recall/memory_lexical_alone``), and a question of at most ``recall_statements.FEW_STEMS`` stems with FalkorDB's
first stem slots only (``recall/memory_lexical_few``) (issue 28: the harness's large-scope rows). The answer is
the one the statement of every slot gives, and a stem asked in any slot (the sixth, past the eighth) finds its
memories, on both backends and both APIs. Likewise the names each term matches, read for a question of at most
``recall.FEW_TERMS`` terms with FalkorDB's first term slots only (``recall/state_and_term_hits_few``)."""

from __future__ import annotations

from typing import Any

import pytest

from synapse_graph import Memory
from synapse_graph.engine import recall, recall_statements
from tests.integration.test_recall_known_common import scope

pytestmark = pytest.mark.integration

__all__ = ["scope"]  # the fixture: 10 facts that play chess (common stems) and one that drinks tea
FEW = "Who plays chess and drinks tea?"
SIXTH = "Which player plays chess daily, weekly, with tea?"
OBSERVED = "Player7 drinks green tea after every chess game"
NINTH = "Which player plays good chess daily, weekly, at night, at clubs, with friends and drinks tea?"


def answer(memory: Memory, question: str) -> list[dict[str, Any]]:
    return [m.model_dump(exclude={"usage"}) for m in memory.recall(question, limit=20).memories]


@pytest.mark.parametrize("question", [FEW, "chess tea", SIXTH, NINTH])
def test_the_first_slots_alone_give_the_answer_of_every_slot(
        scope: Memory, monkeypatch: pytest.MonkeyPatch, question: str) -> None:
    scope.observe("Player7", [OBSERVED])
    chosen = answer(scope, question)
    monkeypatch.setattr(recall_statements, "FEW_STEMS", 0)  # every question asked with all the slots
    assert answer(scope, question) == chosen
    lexical = [m for m in chosen if "lexical" in m["why"]["legs"] and "tea" in m["why"]["words"]]
    # the rare stem's fact and observation, found by the full-text leg wherever the stem is asked
    assert {m.get("object") or m.get("text") for m in lexical} == {"tea", OBSERVED}


NAMED_LAST = "Which player plays good chess daily, weekly, at night, with Zoltan?"


@pytest.mark.parametrize("question", [FEW, SIXTH, NAMED_LAST])
def test_the_first_term_slots_alone_give_the_answer_of_every_slot(
        scope: Memory, monkeypatch: pytest.MonkeyPatch, question: str) -> None:
    scope.observe("Player7", [OBSERVED])
    chosen = answer(scope, question)
    monkeypatch.setattr(recall, "FEW_TERMS", 0)  # every question's term counts read with all the slots
    assert answer(scope, question) == chosen

