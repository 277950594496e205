"""The CLI end to end, on each backend: every command, JSON output, exit codes."""

from __future__ import annotations

import json
import re
import uuid
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from synapse_graph.cli import app

ROOT = Path(__file__).resolve().parents[2]


class Cli:
    def __init__(self, options: list[str], env: dict[str, str]) -> None:
        self.options = options
        self.env = env
        self.runner = CliRunner()

    def __call__(self, *args: str, code: int = 0, input: str | None = None) -> str:
        result = self.runner.invoke(app, [*args, *self.options], env=self.env, input=input)
        assert result.exit_code == code, f"{args}: exit {result.exit_code}\n{result.output}\n{result.exception!r}"
        return result.output

    def json(self, *args: str) -> Any:
        return json.loads(self(*args, "--json"))


@pytest.fixture
def cli(request: pytest.FixtureRequest, backend_name: str) -> Cli:
    scope = f"cli-{uuid.uuid4().hex[:10]}"
    if backend_name == "falkordb":
        return Cli(["--db", request.getfixturevalue("falkordb_location"), "--scope", scope], {})
    settings = request.getfixturevalue("neo4j_settings")
    user, password = settings["auth"]
    return Cli(["--db", settings["location"], "--scope", scope],
               {"SYNAPSE_NEO4J_USER": user, "SYNAPSE_NEO4J_PASSWORD": password})


def test_add_facts_history_and_point_in_time(cli: Cli) -> None:
    cli("add", "Dana", "LIVES_IN", "Paris", "--valid-at", "2020-01-01")
    cli("add", "Dana", "LIVES_IN", "London", "--valid-at", "2023-01-01")
    assert [f["object"] for f in cli.json("facts", "Dana", "--as-of", "2021-06-01")] == ["Paris"]
    assert [f["object"] for f in cli.json("facts", "Dana")] == ["London"]
    assert [f["object"] for f in cli.json("history", "Dana")] == ["Paris", "London"]
    table = cli("facts", "Dana", "--history")
    assert "Paris" in table and "London" in table and "2023-01-01" in table


def test_known_at_shows_the_earlier_belief(cli: Cli) -> None:
    cli("add", "Dana", "WORKS_AT", "Acme", "--valid-at", "2020-01-01")
    before = cli.json("facts", "Dana")[0]["recorded_at"]
    cli("add", "Dana", "WORKS_AT", "Globex", "--valid-at", "2022-01-01")
    assert [f["object"] for f in cli.json("facts", "Dana", "--as-of", "2023-01-01", "--known-at", before)] == ["Acme"]
    assert [f["object"] for f in cli.json("facts", "Dana", "--as-of", "2023-01-01")] == ["Globex"]


def test_alias_entity_neighbourhood_and_stats(cli: Cli) -> None:
    cli("add", "Dana Reyes", "WORKS_AT", "Globex")
    cli("add", "Globex", "LOCATED_IN", "London")
    cli("add", "Dana", "LIKES", "tea")
    assert cli.json("alias", "Dana Reyes", "Dana") == {"merged": True}
    entity = cli.json("entity", "dana")
    assert entity["name"] == "Dana Reyes" and "Dana" in entity["aliases"]
    near = {(f["subject"], f["object"]) for f in cli.json("neighbourhood", "Dana", "--hops", "2")}
    assert near == {("Dana Reyes", "Globex"), ("Globex", "London"), ("Dana Reyes", "tea")}
    stats = cli.json("stats")
    assert (stats["entities"], stats["aliases"], stats["facts"]) == (4, 1, 3)
    cli("entity", "nobody", code=1)


def test_retract_and_purge(cli: Cli) -> None:
    cli("add", "Dana", "LIKES", "tea", "--valid-at", "2020-01-01")
    cli("add", "Dana", "LIKES", "coffee", "--valid-at", "2020-01-01")
    assert cli.json("retract", "Dana", "LIKES", "tea") == {"ended": 1}
    assert [f["object"] for f in cli.json("facts", "Dana")] == ["coffee"]
    assert cli.json("purge", "coffee", "--yes") == {"entities": 1, "facts": 1, "records": 1, "aliases": 0}
    assert cli.json("facts", "Dana") == []
    cli("purge", "Dana", input="n\n", code=1)
    assert cli.json("stats")["entities"] == 2
    removed = cli.json("purge", "--whole-scope", "--yes")
    assert removed["entities"] == 2 and cli.json("stats")["entities"] == 0


def test_export_then_import_into_another_scope(cli: Cli, tmp_path: Path) -> None:
    cli("add", "Dana", "LIVES_IN", "Paris", "--valid-at", "2020-01-01")
    cli("add", "Dana", "LIVES_IN", "London", "--valid-at", "2023-01-01")
    dump = tmp_path / "dump.jsonl"
    cli("export", "--out", str(dump))
    other = Cli([*cli.options[:2], "--scope", f"cli-{uuid.uuid4().hex[:10]}"], cli.env)
    assert other.json("import", str(dump))["created"] == 3  # Paris closed + its correction + London
    assert other.json("history", "Dana") == cli.json("history", "Dana")
    assert other.json("import", str(dump))["created"] == 0


def test_bad_input_gives_a_clear_message_and_exit_code(cli: Cli) -> None:
    output = cli("add", "Dana", "lives in", "Paris", code=2)
    assert "UPPER_SNAKE_CASE" in output
    assert "ambiguous" in cli("facts", "Dana", "--as-of", "01/02/2024", code=2)
    assert cli.json("stats")["facts"] == 0


def test_demo_tells_the_story(cli: Cli) -> None:
    report = cli.json("demo")
    answers = {a["as_of"]: sorted(f["object"] for f in a["facts"]) for a in report["answers"]}
    assert answers["2020-06-01"] == ["Acme", "Paris"]
    assert answers["2021-06-01"] == ["Acme", "Berlin"]
    assert answers["2023-01-09T12:00:00Z"] == ["Engineer", "Globex", "London"]
    assert answers["2023-01-09T18:00:00Z"] == ["Globex", "London", "Team Lead"]
    assert [f["object"] for f in report["history"]] == ["Paris", "Berlin", "London"]
    near = {n for f in report["neighbourhood"] for n in (f["subject"], f["object"])}
    assert {"Globex", "billing service", "London"} <= near and "Paris" not in near  # Paris ended, Acme too
    assert "Sam Okafor" not in near  # Sam manages the billing service: 3 hops away
    assert report["entity"]["aliases"] == ["Dana"]
    assert "2-hop neighbourhood" in cli("demo")


def test_every_command_is_documented_in_the_readme() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    commands = {c.name or (c.callback.__name__ if c.callback else "") for c in app.registered_commands}
    missing = [c for c in sorted(commands) if not re.search(rf"synapse-graph {c}\b", readme)]
    assert not missing, f"commands missing from README.md: {missing}"
