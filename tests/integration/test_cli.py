"""The CLI end to end through its real entry point, on each backend: every command, JSON output, exit codes.

Each command runs as a person or a script would run it: the installed ``synapse-graph``
script of this interpreter's environment, in a subprocess, with its output piped.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any

import pytest

from synapse_graph import Memory
from synapse_graph.cli import app

ROOT = Path(__file__).resolve().parents[2]
ENTRY_POINT = Path(sys.executable).parent / "synapse-graph"


class Cli:
    def __init__(self, options: list[str], env: dict[str, str]) -> None:
        self.options = options
        self.env = env
        self.last: subprocess.CompletedProcess[str] | None = None

    def run(self, *args: str, code: int = 0, input: str | None = None) -> subprocess.CompletedProcess[str]:
        if not ENTRY_POINT.exists():
            pytest.fail(f"{ENTRY_POINT} is missing: install the package (scripts/dev setup)", pytrace=False)
        env = {key: value for key, value in os.environ.items()
               if not key.startswith("SYNAPSE_") and key != "COLUMNS"}
        stdin = {"input": input} if input is not None else {"stdin": subprocess.DEVNULL}
        result = subprocess.run([str(ENTRY_POINT), *args, *self.options], env={**env, **self.env}, **stdin,
                                capture_output=True, text=True, timeout=120, check=False)
        assert result.returncode == code, (
            f"{args}: exit {result.returncode}\nstdout:\n{result.stdout}\nstderr:\n{result.stderr}")
        self.last = result
        return result

    def __call__(self, *args: str, code: int = 0, input: str | None = None) -> str:
        """stdout and stderr of one command (as a person sees them in a terminal)."""
        result = self.run(*args, code=code, input=input)
        return result.stdout + result.stderr

    def json(self, *args: str) -> Any:
        return json.loads(self.run(*args, "--json").stdout)

    def error(self, *args: str, code: int = 2) -> dict[str, str]:
        """The JSON error of a failing command under --json (stderr), checking stdout stays empty."""
        result = self.run(*args, "--json", code=code)
        assert result.stdout == "", result.stdout
        found: dict[str, str] = json.loads(result.stderr.splitlines()[-1])  # after a question, if one was asked
        return found


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
    assert cli.json("alias", "Dana Reyes", "Dana") == {"canonical": "Dana Reyes", "alias": "Dana", "changed": True,
                                                       "merged": True, "facts_moved": 1}
    entity = cli.json("entity", "dana")
    assert entity["name"] == "Dana Reyes" and "Dana" in entity["aliases"]
    near = {(f["subject"], f["object"]) for f in cli.json("neighbourhood", "Dana", "--hops", "2")}
    assert near == {("Dana Reyes", "Globex"), ("Globex", "London"), ("Dana Reyes", "tea")}
    stats = cli.json("stats")
    assert (stats["entities"], stats["aliases"], stats["facts"]) == (4, 1, 3)
    cli("entity", "nobody", code=1)
    assert cli.error("entity", "nobody", code=1)["error"] == "NotFoundError"


def test_retract_and_purge(cli: Cli) -> None:
    cli("add", "Dana", "LIKES", "tea", "--valid-at", "2020-01-01")
    cli("add", "Dana", "LIKES", "coffee", "--valid-at", "2020-01-01")
    assert cli.json("retract", "Dana", "LIKES", "tea") == {"ended": 1}
    assert [f["object"] for f in cli.json("facts", "Dana")] == ["coffee"]
    assert cli.json("purge", "coffee", "--yes") == {"entities": 1, "facts": 1, "records": 1, "aliases": 0}
    assert cli.json("facts", "Dana") == []
    cli("purge", "Dana", input="n\n", code=1)
    assert cli.error("purge", "Dana", code=1)["error"] == "NotConfirmed"  # no input: no answer, no traceback
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


def test_every_command_is_documented() -> None:
    docs = "\n".join(p.read_text(encoding="utf-8") for p in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))])
    commands = {c.name or (c.callback.__name__ if c.callback else "") for c in app.registered_commands}
    missing = [c for c in sorted(commands) if not re.search(rf"synapse-graph {c}\b", docs)]
    assert not missing, f"commands missing from the README and docs/: {missing}"


# -- issue 16: the first hour ---------------------------------------------------------------------------


def test_piped_tables_do_not_wrap(cli: Cli) -> None:
    subject = "Dana Reyes-Okafor of the Westminster Office"
    target = "the billing service of the Acme Corporation"
    cli("add", subject, "WORKS_ON", target, "--valid-at", "2022-09-15T09:30:00Z", "--invalid-at",
        "2024-01-31T17:45:10Z")
    for table in (cli("facts", subject, "--history"), cli("history", subject)):
        lines = table.splitlines()
        assert any(all(h in line for h in ("subject", "valid from (UTC)", "valid until")) for line in lines), table
        assert any(subject in line and target in line and "2022-09-15 09:30" in line and "2024-01-31 17:45:10" in line
                   for line in lines), table


def test_names_are_shown_as_text_not_markup(cli: Cli) -> None:
    cli("add", "[/x]", "LIKES", "[bold]tea[/bold]")
    cli("add", "[/x]", "LIVES_IN", "Paris", "--valid-at", "2020-01-01")
    for args in (("facts",), ("facts", "[/x]"), ("history", "[/x]"), ("entity", "[/x]"), ("neighbourhood", "[/x]")):
        shown = cli(*args)
        assert "[/x]" in shown, (args, shown)
    assert "[bold]tea[/bold]" in cli("facts", "[/x]")
    output = cli("add", "Dana", "[/x]", "tea", code=2)
    assert "invalid predicate '[/x]'" in output and "Traceback" not in output
    assert cli.json("stats")["facts"] == 2


def test_json_errors_on_stderr(cli: Cli, tmp_path: Path) -> None:
    error = cli.error("add", "Dana", "lives in", "Paris")
    assert error["error"] == "InvalidPredicateError" and "UPPER_SNAKE_CASE" in error["message"]
    assert cli.error("facts", "Dana", "--as-of", "01/02/2024")["error"] == "InvalidTimeError"
    usage = cli.error("facts", "--no-such-option")
    assert usage["error"] == "UsageError" and "--no-such-option" in usage["message"]
    plain = cli("add", "Dana", "lives in", "Paris", code=2)
    assert plain.startswith("error: ") and not plain.lstrip().startswith("{")


def test_file_problems_exit_2_with_a_message(cli: Cli, tmp_path: Path) -> None:
    binary = tmp_path / "photo.jpg"
    binary.write_bytes(bytes(range(256)) * 4)
    latin1 = tmp_path / "latin1.jsonl"
    latin1.write_bytes('{"kind": "entity", "name": "Sch\xf6n"}\n'.encode("latin-1"))
    for bad in (binary, latin1):
        output = cli("import", str(bad), code=2)
        assert "not UTF-8 text" in output and "Traceback" not in output
        # the library checks the file whole before any store is opened: its typed error, not the CLI's own
        assert cli.error("import", str(bad))["error"] == "InvalidImportError"
    missing = tmp_path / "no-such-folder" / "dump.jsonl"
    output = cli("export", "--out", str(missing), code=2)
    assert f"the folder {missing.parent} does not exist" in output and "Traceback" not in output
    assert cli.error("export", "--out", str(missing))["error"] == "FileError"
    cli("add", "Dana", "LIKES", "tea")
    written = cli.json("export", "--out", str(tmp_path / "dump.jsonl"))
    lines = (tmp_path / "dump.jsonl").read_text(encoding="utf-8").splitlines()
    assert written == {"out": str(tmp_path / "dump.jsonl"), "lines": len(lines)} and len(lines) >= 3


def memory_of(cli: Cli, **options: Any) -> Memory:
    """A Python ``Memory`` on the CLI's database and scope (for what the CLI cannot write or show)."""
    options_of = dict(zip(cli.options[::2], cli.options[1::2], strict=True))
    auth = (cli.env["SYNAPSE_NEO4J_USER"], cli.env["SYNAPSE_NEO4J_PASSWORD"]) if cli.env else None
    return Memory(options_of["--db"], scope=options_of["--scope"], auth=auth, **options)


def test_an_import_that_is_no_export_exits_2_with_one_line_and_imports_nothing(cli: Cli, tmp_path: Path) -> None:
    cli("add", "Dana", "LIKES", "tea")
    other = Cli([*cli.options[:2], "--scope", f"cli-{uuid.uuid4().hex[:10]}"], cli.env)
    other("add", "Kim", "LIKES", "coffee")
    newer = tmp_path / "newer.jsonl"
    other("export", "--out", str(newer))
    lines = newer.read_text(encoding="utf-8").splitlines()
    header = json.loads(lines[0])
    assert header["kind"] == "header" and len(lines) > 3  # a real export, its facts after the header
    newer.write_text("\n".join([json.dumps({**header, "format": "synapse-graph/99"}), *lines[1:]]) + "\n",
                     encoding="utf-8")
    empty = tmp_path / "empty.jsonl"
    empty.write_text("", encoding="utf-8")
    before = cli.run("export").stdout
    for file, said in ((empty, "the input holds no export: it is empty, or has no header line; nothing was written"),
                       (newer, "unknown export format 'synapse-graph/99'; this version reads synapse-graph/")):
        result = cli.run("import", str(file), code=2)
        assert result.stdout == ""
        shown = result.stderr.splitlines()
        assert len(shown) == 1, result.stderr  # one line, nothing before or after it
        assert shown[0].startswith("error: ") and said in shown[0], result.stderr
        error = cli.error("import", str(file))
        assert error["error"] == "InvalidImportError" and said in error["message"]
    assert [(f["subject"], f["object"]) for f in cli.json("facts")] == [("Dana", "tea")]
    assert cli.run("export").stdout == before


def test_session_promote_copies_the_session_fact_into_the_durable_scope(cli: Cli) -> None:
    assert cli.json("session", "register", "s-7")["id"] == "s-7"
    with memory_of(cli, session="s-7") as agent:
        agent.upsert([("Dana", "PREFERS", "dark mode"), ("Dana", "DEBUGGING", "login bug")], valid_at="2024-05-01",
                     memory_scope="session")
        [keep] = agent.facts("Dana", "PREFERS", memory_scope="session")
    assert cli.json("facts", "Dana") == []  # session facts are not durable until promoted
    assert cli.json("session", "promote", "s-7", keep.id)["created"] == 1
    [shown] = cli.json("facts", "Dana")
    assert (shown["predicate"], shown["object"], shown["session"], shown["source"]) == (
        "PREFERS", "dark mode", "s-7", "promoted from session s-7")
    with memory_of(cli, session="s-7") as agent:
        [durable] = agent.facts("Dana", memory_scope="durable")
        assert (durable.object, durable.session, durable.valid_at) == ("dark mode", "s-7", keep.valid_at)
        assert durable.id != keep.id  # a copy: the session keeps its own facts
        assert sorted(f.object for f in agent.facts("Dana", memory_scope="session")) == ["dark mode", "login bug"]


def test_messages_speak_the_cli_words(cli: Cli) -> None:
    cli("add", "Dana", "LIKES", "tea")
    output = cli("add", "Sam", "LIKES", "coffee", "--max-entities", "3", code=2)
    assert "--max-entities" in output and "max_entities" not in output
    assert cli.json("stats")["entities"] == 2
    cli("alias", "Dana", "Dana Reyes")
    stats = cli("stats")
    assert "1 alias," in stats and "1 aliases" not in stats and "2 entities" in stats and "1 fact " in stats
    assert "removed 1 entity, 1 fact, 1 stored record, 1 alias" in cli("purge", "Dana", "--yes")


def test_alias_to_the_same_entity_changes_nothing(cli: Cli) -> None:
    cli("add", "Dana", "LIKES", "tea")
    before = len(cli.json("audit"))
    for args in (("Dana", "Dana"), ("Dana", "  DANA ")):
        output = cli("alias", *args)
        assert output.startswith("nothing changed") and "is now an alias" not in output
    assert cli.json("alias", "Dana", "dana") == {"canonical": "Dana", "alias": "dana", "changed": False,
                                                 "merged": False, "facts_moved": 0}
    assert "is now an alias of 'Dana'" in cli("alias", "Dana", "Dana Reyes")
    assert cli("alias", "Dana", "Dana Reyes").startswith("nothing changed: 'Dana Reyes' already names 'Dana'")
    assert len(cli.json("audit")) == before + 1  # only the real alias was logged
    assert cli.json("entity", "Dana")["aliases"] == ["Dana Reyes"]


def test_review_and_audit_commands(cli: Cli) -> None:
    cli("add", "Dana", "WORKS_AT", "Acme", "--valid-at", "2019-01-01")
    cli("add", "Dana", "WORKS_AT", "Globex", "--valid-at", "2023-01-09", "--model", "extractor-1",
        "--confidence", "0.3")
    cli("add", "Dana", "LIKES", "opera", "--model", "extractor-1", "--confidence", "0.2")
    waiting = cli.json("pending")
    assert sorted(f["object"] for f in waiting) == ["Globex", "opera"] and {f["status"] for f in waiting} == {
        "candidate"}
    table = cli("pending")
    ids = {f["object"]: f["id"] for f in waiting}
    assert ids["Globex"] in table and "Globex" in table and "approve one" in table
    assert [f["object"] for f in cli.json("facts", "Dana", "--predicate", "WORKS_AT")] == ["Acme"]

    assert cli.json("approve", ids["Globex"]) == {"approved": ids["Globex"]}
    assert [f["object"] for f in cli.json("facts", "Dana", "--predicate", "WORKS_AT")] == ["Globex"]
    assert "rejected" in cli("reject", ids["opera"], "--reason", "the user never said so")
    assert cli.json("pending") == [] and "no candidate waits for review" in cli("pending")
    assert cli.error("approve", ids["opera"])["error"] == "NotFoundError"  # rejected: nothing to approve
    cli("reject", "no-such-id", code=2)

    log = cli.json("audit")
    assert [entry["action"] for entry in log[:2]] == ["reject", "approve"]
    assert len(log) == 5
    about_opera = cli.json("audit", "opera")
    assert {entry["action"] for entry in about_opera} == {"upsert", "reject"}
    shown = cli("audit")
    assert "reject" in shown and "approve" in shown and "synapse-graph-cli" in shown


def test_rules_pins_observations_and_sessions_from_the_shell(cli: Cli) -> None:
    assert cli.json("rules", "--max-facts", "50", "--single-valued", "OWNS")["max_facts"] == 50
    assert cli.json("rules")["single_valued"] == ["OWNS"]
    cli("add", "Dana", "OWNS", "bike", "--valid-at", "2020-01-01")
    cli("add", "Dana", "OWNS", "car", "--valid-at", "2022-01-01")  # OWNS is single-valued in this scope now
    [car] = cli.json("facts", "Dana")
    assert car["object"] == "car" and cli.json("pin", car["id"])["pinned"] is True
    assert cli.json("unpin", car["id"])["pinned"] is False
    assert [o["text"] for o in cli.json("observe", "Dana", "Speaks Spanish", "Plays chess")] == [
        "Speaks Spanish", "Plays chess"]
    assert "Dana: Plays chess" in cli("observations", "Dana")
    registered = cli.json("session", "register", "s-1", "--days", "2")
    assert registered["id"] == "s-1" and [s["status"] for s in cli.json("session", "list")] == ["active"]
    assert cli.json("session", "revoke", "s-1")["entities"] == 0
    assert [s["status"] for s in cli.json("session", "list")] == ["revoked"]


def test_init_creates_a_store_and_reads_never_do(tmp_path: Path) -> None:
    store = tmp_path / "fresh" / "memory.db"
    cli = Cli(["--db", str(store), "--scope", "s"], {})
    assert cli.error("facts", "Dana")["error"] == "NotFoundError" and not store.parent.exists()
    assert "store ready" in cli("init")
    assert cli.json("facts", "Dana") == []


def test_digest_tells_what_to_know_first(cli: Cli) -> None:
    cli("add", "me", "LIVES_IN", "Lisbon")
    cli("add", "Acme", "LOCATED_IN", "Berlin")
    cli("add", "Acme", "MAKES", "bikes")
    digest = cli.json("digest")
    assert [(f["subject"], f["object"]) for f in digest["about_user"]] == [("User", "Lisbon")]
    assert digest["entities"][0] == "Acme" and len(digest["about_entities"]) == 2
    shown = cli("digest", "--limit", "1")
    assert "about the user" in shown and "Lisbon" in shown and "Berlin" not in shown


def test_session_register_refuses_days_no_time_can_hold_in_one_line(cli: Cli) -> None:
    for days in ("inf", "nan", "1e12", "-1", "0"):
        result = cli.run("session", "register", "s-odd", "--days", days, code=2)
        shown = result.stderr.splitlines()
        assert len(shown) == 1 and shown[0].startswith("error: ") and "days" in shown[0], result.stderr
        assert cli.error("session", "register", "s-odd", "--days", days)["error"] == "InvalidInputError"
    assert cli.json("session", "list") == []


def test_a_session_scope_is_refused_as_a_scope(cli: Cli) -> None:
    cli("session", "register", "s-8")
    cli("session", "revoke", "s-8")
    session_scope = f"{cli.options[-1]}/session:s-8"
    inside = Cli([*cli.options[:-1], session_scope], cli.env)
    result = inside.run("add", "Dana", "LIKES", "tea", code=2)
    assert len(result.stderr.splitlines()) == 1 and "session" in result.stderr, result.stderr
    assert inside.error("facts")["error"] == "InvalidScopeError"
    with memory_of(cli, session="s-8") as agent:
        assert agent.facts(memory_scope="session", include_history=True) == []
