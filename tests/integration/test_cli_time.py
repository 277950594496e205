"""The CLI's time questions (issue 35): changes since a recorded time, diff of two valid times, on both backends."""

from __future__ import annotations

import pytest

from tests.integration.test_cli import Cli, cli  # noqa: F401  (the fixture)

pytestmark = pytest.mark.integration


def test_changes_and_diff(cli: Cli) -> None:  # noqa: F811
    cli("add", "Dana", "LIVES_IN", "Paris", "--valid-at", "2019-01-01")
    since = cli.json("facts", "Dana")[0]["recorded_at"]
    cli("add", "Dana", "LIVES_IN", "London", "--valid-at", "2022-09-15")
    page = cli.json("changes", since)
    assert [(c["kind"], c["fact"]["object"]) for c in page["changes"]] == [
        ("added", "Paris"), ("ended", "Paris"), ("added", "London")]
    assert page["changes"][1]["why"] == "superseded" and page["changes"][1]["superseded_by"]["object"] == "London"
    assert "superseded by London from 2022-09-15" in cli("changes", since)
    assert cli.json("changes", since, "--entity", "Nobody")["changes"] == []
    diff = cli.json("diff", "2020-01-01", "2023-01-01")
    assert ([f["object"] for f in diff["began"]], [f["object"] for f in diff["ended"]]) == (["London"], ["Paris"])
    assert "+ 2022-09-15  Dana LIVES_IN London" in cli("diff", "2020-01-01", "2023-01-01")
