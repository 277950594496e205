"""Recall's full-text leg sends back only the memories that can make its cut (issue 28: recall's p95 with
MiniLM within 1.5x of dense): the database scores every match as BM25 does and returns the best
``recalling.DEPTH`` (with those tied to the last), and what BM25 needs of them all, so the answer and its
scores are those of BM25 over every match, on both backends and both APIs, in a small scope (every stem asked
at once) and a larger one (stem by stem)."""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

import pytest

from synapse_graph import Memory, Triple
from synapse_graph.catalogue import Q
from synapse_graph.engine import recalling
from synapse_graph.models import RecalledObservation
from synapse_graph.rules.recall import content_terms
from synapse_graph.rules.stems import bm25, stems, term_stems

pytestmark = pytest.mark.integration

FILLERS = ["red", "green", "blue", "violet", "amber", "olive", "azure", "coral", "ivory", "khaki"]
TEXTS = [" ".join(["Sam plays chess", *FILLERS[:i % 10], f"game {i}"]) for i in range(150)]
"""150 memories holding the question's words, 15 of each length: BM25 ranks the shorter first, and the 50
best (the 45 shortest and 5 of the next length) tie with the 10 others of that length."""
KEPT = 60
"""The memories that can make the cut of the 50 best: those scoring at least the 50th (ties included)."""
QUESTION = "Who plays chess?"


LEXICAL_READS = (Q.MEMORY_LEXICAL, Q.MEMORY_LEXICAL_SCANNED, Q.MEMORY_LEXICAL_EACH, Q.MEMORY_LEXICAL_ALONE,
                 Q.MEMORY_LEXICAL_FEW)


def memories_read(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many memories each of recall's reads of the full-text leg sent back (memories anywhere in its rows,
    whatever their shape), as recall runs; on every backend and API (recall's reads pass through here)."""
    counts: list[int] = []
    inner = recalling.read_each

    def recording(*requests: Any) -> Generator[Any, Any, Any]:
        answers = yield from inner(*requests)
        for request, rows in zip(requests, answers, strict=True):
            if request is not None and request.name in LEXICAL_READS:
                counts.append(_memories(rows))
        return answers

    def recording_one(name: Any, params: Any) -> Generator[Any, Any, Any]:  # a small scope's one statement
        rows = yield from inner_one(name, params)
        if name in LEXICAL_READS:
            counts.append(_memories(rows))
        return rows

    inner_one = recalling.read
    monkeypatch.setattr(recalling, "read_each", recording)
    monkeypatch.setattr(recalling, "read", recording_one)
    return counts


def _memories(value: Any) -> int:
    if isinstance(value, dict):
        itself = 1 if {"id", "recorded_at"} <= value.keys() else 0
        return itself + sum(_memories(v) for v in value.values())
    if isinstance(value, list):
        return sum(_memories(v) for v in value)
    return 0


def expected_scores(texts: list[str], question: str) -> dict[str, float]:
    """BM25 over every memory holding a stem of the question, as recall scored them when all came back."""
    asked = term_stems(content_terms(question))
    docs = {t: stems(t) for t in texts if set(stems(t)) & set(asked)}
    return bm25(asked, docs, corpus_size=len(texts))


@pytest.mark.parametrize("stem_by_stem", [False, True], ids=["small-scope", "larger-scope"])
def test_the_full_text_leg_sends_back_only_what_can_make_the_cut(memory: Memory, monkeypatch: pytest.MonkeyPatch,
                                                                 stem_by_stem: bool) -> None:
    memory.observe("Sam", TEXTS)
    if stem_by_stem:
        monkeypatch.setattr(recalling, "SMALL_SCOPE", 0)  # as in a scope of 1,000 memories or more
    read = memories_read(monkeypatch)
    found = memory.recall(QUESTION, limit=20)
    assert read and max(read) <= KEPT < len(TEXTS)
    expected = expected_scores(TEXTS, QUESTION)
    shortest = {t for t in TEXTS if t.split()[3] == "game"}
    observations = [m for m in found.memories if isinstance(m, RecalledObservation)]
    assert len(observations) == 20 and {m.text for m in observations[:15]} == shortest
    for m in observations:  # scored among all 150, exactly
        assert m.why is not None and m.why.lexical == expected[m.text]


def test_the_best_valid_in_the_time_asked_come_back_beside_the_best(memory: Memory,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    # Without an embedder, the window leg is the best of the lexical leg's matches valid in the time the question
    # names: here the 20 longest, below the cut of the 50 best; they come back too, and first.
    dated = TEXTS[9::10] + TEXTS[8::10][:5]
    memory.observe("Sam", [t for t in TEXTS if t not in dated], valid_at="2020-03-01")
    memory.observe("Sam", dated, valid_at="2021-03-01")
    read = memories_read(monkeypatch)
    found = memory.recall("Who played chess in 2021?", limit=20)
    assert read and max(read) <= KEPT + len(dated) < len(TEXTS)
    assert {m.text for m in found.memories} == set(dated)
    expected = expected_scores(TEXTS, "Who played chess in 2021?")
    for m in found.memories:
        assert m.why is not None and m.why.lexical == expected[m.text] and "window" in m.why.legs


def test_a_small_scope_finds_the_entities_the_question_names_as_a_larger_one_does(
        memory: Memory, monkeypatch: pytest.MonkeyPatch) -> None:
    """A small scope reads the entities the question's words name (by name and by alias) in the memories' own
    statement (recall/memory_lexical's first rows); a larger one with recall/search_lexical: the same entities."""
    memory.upsert([Triple(subject="Dana Scully", predicate="WORKS_AT", object="FBI"),
                   Triple(subject="Fox Mulder", predicate="WORKS_AT", object="FBI")])
    memory.alias("Dana Scully", "Starbuck")
    memory.observe("Dana Scully", ["Dana plays chess on Sundays"])
    for question in ("Where does Starbuck work?", "Who plays chess with Mulder?"):
        small = memory.recall(question, limit=5)
        monkeypatch.setattr(recalling, "SMALL_SCOPE", 0)
        larger = memory.recall(question, limit=5)
        monkeypatch.undo()
        assert small.entities and small.entities == larger.entities, question
        assert [m.model_dump(exclude={"usage"}) for m in small.memories] == [
            m.model_dump(exclude={"usage"}) for m in larger.memories], question
