"""The LoCoMo harness's pure rules: evidence ids, session dates, recall@k, the names left out of a question."""

from __future__ import annotations

from datetime import datetime

import pytest

from benchmarks.locomo.data import Conversation, Question, Sentence, evidence_ids, session_date
from benchmarks.locomo.metrics import Answer, recall_at, report
from benchmarks.locomo.research import names_in, without_names


@pytest.mark.parametrize(("raw", "ids"), [
    (["D3:5"], ["D3:5"]), (["D:11:26"], ["D11:26"]), (["D30:05"], ["D30:5"]), (["D8:6; D9:17"], ["D8:6", "D9:17"]),
    ("D1:3", ["D1:3"]), (["D"], []), (["D2:1", "D2:01"], ["D2:1"]),
])
def test_evidence_ids_are_normalised(raw: list[str] | str, ids: list[str]) -> None:
    assert evidence_ids(raw) == ids


def test_session_dates() -> None:
    assert session_date("1:56 pm on 8 May, 2023") == datetime(2023, 5, 8, 13, 56)
    assert session_date("12:09 am on 13 September, 2023") == datetime(2023, 9, 13, 0, 9)
    with pytest.raises(ValueError, match="not a LoCoMo session date"):
        session_date("yesterday")


def test_recall_counts_the_evidence_the_returned_sentences_cite() -> None:
    when = datetime(2023, 5, 8)
    sentences = tuple(Sentence(i, "Ann", f"s{i}", 1, when, frozenset(cited))
                      for i, cited in enumerate([{"D1:1"}, {"D1:2", "D1:3"}, set(), {"D1:4"}]))
    questions = (Question("q1", 1, frozenset({"D1:1", "D1:3"})), Question("q2", 4, frozenset({"D1:4"})))
    conv = Conversation("c", ("Ann", "Bo"), sentences, questions, {1: when})
    first, second = Answer("c", questions[0], (2, 1, 0), 0.001), Answer("c", questions[1], (), 0.002)
    assert [recall_at(conv, first, k) for k in (1, 2, 3)] == [0.0, 0.5, 1.0]
    assert recall_at(conv, second, 10) == 0.0
    found = report([conv], [first, second])
    assert found["overall"]["recall@5"] == 0.5 and found["overall"]["full_hit@5"] == 0.5
    assert set(found["categories"]) == {"multi-hop", "single-hop"}  # categories without questions are left out


def test_names_in_a_question_and_the_question_without_them() -> None:
    speakers = ["Melanie", "Caroline"]
    assert names_in("What did Mel and her kids make?", "Melanie")  # a prefix, as an alias would match
    assert not names_in("What did Me do?", "Melanie")  # fewer than 3 letters name no one
    assert without_names("What did Caroline's mom and Mel make?", speakers) == "What did mom and make?"
    assert without_names("What animals do they own?", speakers) == "What animals do they own?"
