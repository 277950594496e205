"""The extraction eval with the scripted fake model: the plumbing loses and invents nothing.

The scripted replies carry the labels in many reply shapes plus stated mistakes, so the
precision and recall they must give follow from those counts alone
(``expected_scripted``); any difference is a fact lost or invented between reply and store.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from benchmarks.offload_eval.conversations import CONVERSATIONS
from benchmarks.offload_eval.run import evaluate, expected_scripted, format_report, scripted_model
from synapse_graph.offload import OpenAIChatClient
from synapse_graph.testing import FakeModelServer

pytestmark = pytest.mark.integration


@pytest.fixture
def location(backend_settings: dict[str, Any]) -> tuple[str, tuple[str, str] | None]:
    return backend_settings["location"], backend_settings.get("auth")


def test_scripted_eval(location: tuple[str, tuple[str, str] | None], capsys: pytest.CaptureFixture[str]) -> None:
    assert 15 <= len(CONVERSATIONS) <= 25
    with FakeModelServer(scripted_model) as server:
        report = evaluate(location[0], OpenAIChatClient(server.url, "fake-extractor"), auth=location[1])
    with capsys.disabled():
        print("\n" + format_report(report))
    assert all(o.status == "done" for o in report.outcomes), [(o.name, o.error) for o in report.outcomes]
    precision, recall = expected_scripted()
    assert (report.precision, report.recall) == (precision, recall)
    assert report.precision < 1 and report.recall < 1  # the stated mistakes are really counted
    by_name = {o.name: o for o in report.outcomes}
    assert ("User", "REPORTS_TO", "Tom", "candidate") in by_name["manager"].stored  # below 0.6: a candidate
    assert all(p != "SAME_AS" for _, p, _, _ in by_name["injection"].stored)
    sent = json.dumps(server.requests)
    assert "ghp_abcdefghijklmnopqrstuvwxyz0123456789" not in sent and "[REDACTED:api_key]" in sent
