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


def test_ci_runs_the_readme_set_up_commands_word_for_word() -> None:
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    readme = [line for line in (root / "README.md").read_text(encoding="utf-8").splitlines()
              if line.startswith("scripts/dev ")][:2]
    run = [line for line in (root / ".ci" / "run").read_text(encoding="utf-8").splitlines()
           if line.strip() and not line.startswith("#")]
    assert [line.split()[1] for line in readme] == ["demo", "test"]
    assert run[-2:] == readme, "the last two commands of .ci/run must be the README's two, line for line"
