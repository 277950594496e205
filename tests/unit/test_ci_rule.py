"""``tests.ci``: a missing dependency skips a test on a workstation and fails it under CI."""

from __future__ import annotations

import pytest

from tests import ci

MISSING = "synapse_graph_no_such_module"


def test_a_present_module_is_returned() -> None:
    assert ci.require("json").dumps([1]) == "[1]"


def test_a_missing_module_skips_outside_ci(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ci, "IN_CI", False)
    with pytest.raises(pytest.skip.Exception, match=MISSING):
        ci.require(MISSING)


def test_a_missing_module_fails_under_ci(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ci, "IN_CI", True)
    with pytest.raises(pytest.fail.Exception, match=f"{MISSING}.*CI must run this test"):
        ci.require(MISSING)
    with pytest.raises(pytest.fail.Exception, match="not the local server"):
        ci.unavailable("not the local server")
