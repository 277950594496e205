"""Neo4j Browser: `synapse-graph browse`, the saved queries of cypher/browser/, and Browser itself.

The saved queries are for people, not for the library, so these tests are what keeps
them right: they run each one on a live Neo4j with data the library wrote, then open
the real Neo4j Browser (served by the server) in headless Debian Chromium with
Playwright, connect, set the parameters and the style that `browse` prints, run a saved
query and check what the result frame shows. The screenshot of the graph lands in
test-artifacts/neo4j-browser.png. They run on a second, short-lived Neo4j server that no other
test writes to, so a saved query that warns on a new database (a key no record stores yet) fails.
"""

from __future__ import annotations

import contextlib
import json
import re
import shutil
import subprocess
import time
import urllib.request
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from typer.testing import CliRunner

from benchmarks import neo4j_local
from synapse_graph import Memory, Triple
from synapse_graph.cli import app
from synapse_graph.cli.browse import BrowseInfo, browser_base_url, entity_key, instructions, saved_queries, style_sheet
from tests.ci import require, unavailable

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts"
SCREENSHOT = ARTIFACTS / "neo4j-browser.png"
CHROMIUM = "/usr/bin/chromium"
# Without these, Debian's Chromium waits on connections to Google that cannot succeed here.
CHROMIUM_FLAGS = [
    "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage",
]
QUERY_NAMES = {"current_facts", "graph_as_of", "facts_as_of", "entity_history", "aliases"}
CLEAN_ENV = {"SYNAPSE_DB": "", "SYNAPSE_NEO4J_URL": "", "SYNAPSE_NEO4J_BROWSER_URL": "", "SYNAPSE_NEO4J_USER": "",
             "SYNAPSE_NEO4J_HTTP_PORT": ""}


def utc(text: str) -> datetime:
    value = datetime.fromisoformat(text)
    return value if value.tzinfo else value.replace(tzinfo=UTC)


# -- `synapse-graph browse` (pure: no server needed) ------------------------------------------------


def test_browse_prints_url_style_params_and_every_saved_query() -> None:
    result = CliRunner().invoke(
        app, ["browse", "--db", "bolt://graph.example:7687", "--scope", "acme/web", "--name", "Dana O'Neil"],
        env=CLEAN_ENV)
    assert result.exit_code == 0, result.output
    out = result.output
    assert "http://graph.example:7474/browser/?connectURL=bolt://neo4j@graph.example:7687" in out
    assert ":param scope => 'acme/web'" in out.splitlines()
    assert ":param key => 'dana o\\'neil'" in out.splitlines()  # the stored key, computed by the library's rules
    assert ":config autoComplete: false" in out.splitlines()
    assert any(line.startswith(":param as_of => ") for line in out.splitlines())
    grass_file = style_sheet()[0]
    assert grass_file is None or f"drag {grass_file} onto the Browser window" in out
    assert any(line.startswith(":style ") and 'caption: "{predicate}"' in line for line in out.splitlines())
    queries = saved_queries()
    assert {q.name for q in queries} == QUERY_NAMES
    for saved in queries:
        body = [line for line in saved.text.splitlines() if not line.startswith("//")]
        assert "\n".join(body) in out, f"{saved.name} is missing from the output"


def test_browse_json_and_browser_url_rules() -> None:
    env = {**CLEAN_ENV, "SYNAPSE_NEO4J_URL": "neo4j://db.internal:7688", "SYNAPSE_NEO4J_USER": "reader",
           "SYNAPSE_NEO4J_BROWSER_URL": "http://proxy.example/browser/"}
    result = CliRunner().invoke(app, ["browse", "--json"], env=env)
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["browser_url"] == "http://proxy.example/browser/?connectURL=neo4j://reader@db.internal:7688"
    assert data["params"][0] == ":param scope => 'default'"
    assert data["settings"] == [":config autoComplete: false"]
    assert {q["name"] for q in data["queries"]} == QUERY_NAMES
    # No password ever reaches the output; TLS schemes get an https Browser.
    shown = instructions("neo4j+s://neo4j:secret@db.example:7687", environ={})
    assert "secret" not in json.dumps(shown.as_json())
    assert shown.browser_url == "https://db.example:7473/browser/?connectURL=neo4j%2Bs://neo4j@db.example:7687"


@pytest.mark.parametrize("db", ["/tmp/memory.db", "redis://localhost:6379"])
def test_browse_refuses_falkordb_databases(db: str) -> None:
    result = CliRunner().invoke(app, ["browse", "--db", db], env=CLEAN_ENV)
    assert result.exit_code == 2
    message = " ".join(result.output.split())
    assert "Neo4j Browser only shows Neo4j databases" in message and "FalkorDB Browser" in message


def test_browse_uses_the_configured_http_port_and_the_library_key() -> None:
    env = {**CLEAN_ENV, "SYNAPSE_NEO4J_HTTP_PORT": "17474"}
    result = CliRunner().invoke(app, ["browse", "--db", "bolt://127.0.0.1:17687", "--name", " STRASSE  Straße "],
                                env=env)
    assert result.exit_code == 0, result.output
    assert "http://127.0.0.1:17474/browser/?connectURL=bolt://neo4j@127.0.0.1:17687" in result.output
    assert ":param key => 'strasse strasse'" in result.output.splitlines()
    assert browser_base_url("bolt://db.example:7687", {"SYNAPSE_NEO4J_HTTP_PORT": "8080"}) == (
        "http://db.example:8080/browser/")
    bad = CliRunner().invoke(app, ["browse", "--db", "bolt://x:7687"],
                             env={**CLEAN_ENV, "SYNAPSE_NEO4J_HTTP_PORT": "web"})
    assert bad.exit_code == 2 and "not a port number" in bad.output
    assert entity_key("Straße") == "strasse" and entity_key("  Dana   REYES ") == "dana reyes"
    assert entity_key("me") == "user"


def test_saved_queries_declare_the_params_they_use() -> None:
    for saved in saved_queries():
        used = set(re.findall(r"\$([A-Za-z_][A-Za-z0-9_]*)", saved.text))
        assert used == set(saved.params), f"{saved.name}: uses {used}, declares :param {set(saved.params)}"


# -- the saved queries on a live Neo4j ----------------------------------------------------------------


@pytest.fixture(scope="module")
def fresh_neo4j(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """A Neo4j server no other test has written to: the saved queries must not warn on a new database, where
    no record stores a key it leaves at its default (status, confidence, expired_at, ...). A second server of
    the same jars (scripts/neo4j-local with its own state dir and ports), for this module only."""
    for tool in ("java", "curl"):
        if not shutil.which(tool):
            unavailable(f"{tool} is missing (scripts/neo4j-local needs it)")
    with contextlib.ExitStack() as stack:
        try:
            env = stack.enter_context(neo4j_local.private_server(tmp_path_factory.mktemp("neo4j") / "state"))
        except (RuntimeError, OSError, subprocess.SubprocessError) as exc:
            unavailable(f"no private Neo4j server: {exc}")
        yield {"location": env["SYNAPSE_NEO4J_URL"], "environ": env,
               "auth": (env["SYNAPSE_NEO4J_USER"], env["SYNAPSE_NEO4J_PASSWORD"])}


def _warnings(records_summary: Any) -> list[str]:
    return [g.status_description for g in records_summary.gql_status_objects if g.raw_severity == "WARNING"]


def test_the_saved_queries_warn_of_nothing_on_a_new_database(fresh_neo4j: dict[str, Any]) -> None:
    """One believed fact at full confidence, never superseded: the store holds none of the optional keys."""
    neo4j = require("neo4j")
    scope = f"fresh-{uuid.uuid4().hex[:10]}"
    with Memory(fresh_neo4j["location"], auth=fresh_neo4j["auth"], scope=scope) as memory:
        memory.upsert(Triple(subject="Dana", predicate="LIKES", object="tea", valid_at="2020-01-01"))
        params = {"scope": scope, "key": entity_key("Dana"), "as_of": "2021-06-01"}
        with neo4j.GraphDatabase.driver(fresh_neo4j["location"], auth=fresh_neo4j["auth"]) as driver:
            for saved in saved_queries():
                records, summary, _ = driver.execute_query(saved.text, {k: params[k] for k in saved.params},
                                                           routing_="r")
                assert _warnings(summary) == [], f"{saved.name}: {_warnings(summary)}"
                assert len(records) == 1, saved.name  # each finds the fact, or Dana
            # The check itself works: a key no record stores (and no index names: `status` has one since the
            # pending page reads through it) is warned about on this database.
            _, summary, _ = driver.execute_query("MATCH ()-[r:FACT]->() RETURN r.flag LIMIT 1", routing_="r")
            assert any("flag" in warned for warned in _warnings(summary))
        memory.purge(scope=scope)


@pytest.fixture(scope="module")
def story(fresh_neo4j: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """A person who moved city twice and changed employer, with an alias, in a scope of its own."""
    scope = f"browser-{uuid.uuid4().hex[:10]}"
    with Memory(fresh_neo4j["location"], auth=fresh_neo4j["auth"], scope=scope) as memory:
        memory.upsert([
            Triple(subject="Dana Reyes", predicate="LIVES_IN", object="Paris", valid_at="2019-03-01"),
            Triple(subject="Dana Reyes", predicate="WORKS_AT", object="Acme", valid_at="2019-04-01"),
            Triple(subject="Acme", predicate="LOCATED_IN", object="Paris", valid_at="2010-01-01"),
        ], source="browser test")
        memory.upsert(Triple(subject="Dana Reyes", predicate="LIVES_IN", object="Berlin", valid_at="2021-02-01"))
        memory.upsert(Triple(subject="Dana Reyes", predicate="LIVES_IN", object="London",
                             valid_at="2022-09-15T09:30:00Z"))
        memory.upsert(Triple(subject="Dana Reyes", predicate="WORKS_AT", object="Globex", valid_at="2023-01-09"))
        memory.upsert(Triple(subject="Straße", predicate="PART_OF", object="Berlin", valid_at="2000-01-01",
                             invalid_at="2005-01-01"))
        memory.alias("Dana Reyes", "Dana")
        memory.alias("Straße", "Strasse des 17. Juni")
        try:
            yield {**fresh_neo4j, "scope": scope}
        finally:
            memory.purge(scope=scope)


@pytest.fixture(scope="module")
def run_saved(story: dict[str, Any]) -> Iterator[Any]:
    neo4j = require("neo4j")
    driver = neo4j.GraphDatabase.driver(story["location"], auth=story["auth"])
    texts = {q.name: q.text for q in saved_queries()}

    def run(query_name: str, **params: Any) -> list[dict[str, Any]]:
        records, summary, _ = driver.execute_query(texts[query_name], {"scope": story["scope"], **params},
                                                   routing_="r")
        assert _warnings(summary) == [], f"{query_name}: {_warnings(summary)}"  # e.g. a key the store never had
        return [dict(record) for record in records]

    yield run
    driver.close()


def _path_triples(rows: list[dict[str, Any]]) -> list[tuple[str, str, str]]:
    found = []
    for row in rows:
        for rel in row["p"].relationships:
            found.append((rel.start_node["name"], rel["predicate"], rel.end_node["name"]))
    return found


def test_current_facts_by_alias_name_or_key(run_saved: Any) -> None:
    expected = [("Dana Reyes", "LIVES_IN", "London"), ("Dana Reyes", "WORKS_AT", "Globex")]
    assert _path_triples(run_saved("current_facts", key=entity_key("Dana"))) == expected
    assert _path_triples(run_saved("current_facts", key=entity_key("  dana   REYES "))) == expected
    assert run_saved("current_facts", key=entity_key("Nobody")) == []


def test_graph_as_of_shows_the_scope_at_a_time(run_saved: Any) -> None:
    assert sorted(_path_triples(run_saved("graph_as_of", as_of="2020-06-01"))) == [
        ("Acme", "LOCATED_IN", "Paris"), ("Dana Reyes", "LIVES_IN", "Paris"), ("Dana Reyes", "WORKS_AT", "Acme")]
    assert sorted(_path_triples(run_saved("graph_as_of", as_of="2021-06-01T00:00:00Z"))) == [
        ("Acme", "LOCATED_IN", "Paris"), ("Dana Reyes", "LIVES_IN", "Berlin"), ("Dana Reyes", "WORKS_AT", "Acme")]
    # Half-open intervals: at the instant of the move, London holds and Berlin no longer does.
    at_move = _path_triples(run_saved("graph_as_of", as_of="2022-09-15T09:30:00Z"))
    assert ("Dana Reyes", "LIVES_IN", "London") in at_move and ("Dana Reyes", "LIVES_IN", "Berlin") not in at_move
    assert run_saved("graph_as_of", as_of="2009-01-01") == []


def test_facts_as_of_lists_the_graph_with_validity(run_saved: Any) -> None:
    rows = run_saved("facts_as_of", as_of="2021-06-01")
    got = [(r["subject"], r["predicate"], r["object"], r["valid_from"].to_native(),
            None if r["valid_until"] is None else r["valid_until"].to_native()) for r in rows]
    assert got == [
        ("Acme", "LOCATED_IN", "Paris", utc("2010-01-01"), None),
        ("Dana Reyes", "LIVES_IN", "Berlin", utc("2021-02-01"), utc("2022-09-15T09:30:00+00:00")),
        ("Dana Reyes", "WORKS_AT", "Acme", utc("2019-04-01"), utc("2023-01-09")),
    ]
    graphed = sorted(_path_triples(run_saved("graph_as_of", as_of="2021-06-01")))
    assert graphed == sorted((s, p, o) for s, p, o, _, _ in got)


def test_entity_history_lists_every_interval_oldest_first(run_saved: Any) -> None:
    rows = run_saved("entity_history", key=entity_key("Dana"))
    got = [(r["predicate"], r["object"], r["valid_at"].to_native(),
            None if r["invalid_at"] is None else r["invalid_at"].to_native()) for r in rows]
    assert got == [
        ("LIVES_IN", "Paris", utc("2019-03-01"), utc("2021-02-01")),
        ("WORKS_AT", "Acme", utc("2019-04-01"), utc("2023-01-09")),
        ("LIVES_IN", "Berlin", utc("2021-02-01"), utc("2022-09-15T09:30:00+00:00")),
        ("LIVES_IN", "London", utc("2022-09-15T09:30:00+00:00"), None),
        ("WORKS_AT", "Globex", utc("2023-01-09"), None),
    ]
    assert {r["subject"] for r in rows} == {"Dana Reyes"} and {r["status"] for r in rows} == {"believed"}
    assert rows[0]["source"] == "browser test" and rows[0]["recorded_at"] is not None


def test_aliases_resolve_both_ways(run_saved: Any) -> None:
    for name in ("Dana", "dana reyes"):
        [row] = run_saved("aliases", key=entity_key(name))
        assert (row["name"], row["key"], row["aliases"], row["type"]) == ("Dana Reyes", "dana reyes", ["Dana"], None)
    assert run_saved("aliases", key=entity_key("Nobody")) == []


def test_case_folded_names_are_found_by_the_library_key(run_saved: Any) -> None:
    """Straße is stored under the key 'strasse': Cypher's toLower would give 'straße' and miss it."""
    for name in ("Straße", "STRASSE", "strasse des 17. juni"):
        [row] = run_saved("aliases", key=entity_key(name))
        assert (row["name"], row["aliases"]) == ("Straße", ["Strasse des 17. Juni"])
        [fact] = run_saved("entity_history", key=entity_key(name))
        assert (fact["subject"], fact["predicate"], fact["object"]) == ("Straße", "PART_OF", "Berlin")


# -- Neo4j Browser itself, in headless Chromium --------------------------------------------------------


def _browser_info(story: dict[str, Any]) -> BrowseInfo:
    info = instructions(story["location"], scope=story["scope"], name="Dana", user=story["auth"][0],
                        environ=story["environ"])
    base = browser_base_url(story["location"], story["environ"])
    try:
        with urllib.request.urlopen(base, timeout=10) as response:
            assert response.status == 200
    except OSError as exc:
        unavailable(f"Neo4j Browser does not answer at {base}: {exc} (set SYNAPSE_NEO4J_BROWSER_URL)")
    return info


@pytest.mark.timeout(360)
def test_neo4j_browser_draws_exactly_the_facts_asked_for(story: dict[str, Any]) -> None:
    try:
        from playwright.sync_api import expect, sync_playwright
    except ImportError:
        unavailable("playwright is not installed (pip install -e '.[test]')")
    if not shutil.which(CHROMIUM):
        unavailable(f"{CHROMIUM} is missing (apt-get install -y chromium)")
    info = _browser_info(story)
    expect.set_options(timeout=30_000)  # generous: Browser is a large app and CI machines are busy
    user, password = story["auth"]
    allowed = {"127.0.0.1", "localhost", urlsplit(info.browser_url).hostname}
    started = time.monotonic()

    def step(what: str) -> None:  # printed with the output of a failing test
        print(f"{time.monotonic() - started:6.1f} s  {what}")

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS, timeout=30_000)
        page = None
        try:
            context = browser.new_context(viewport={"width": 1400, "height": 1000})
            # Browser asks Google Fonts, Segment and Canny for extras: refuse at once instead of waiting.
            context.route("**/*", lambda route: route.continue_()
                          if urlsplit(route.request.url).hostname in allowed or route.request.url.startswith("data:")
                          else route.abort())
            page = context.new_page()
            page.set_default_timeout(30_000)
            step("chromium started")
            page.goto(info.browser_url, wait_until="domcontentloaded")
            step(f"opened {info.browser_url}")

            # The connect frame, pre-filled from ?connectURL= (scheme, host:port, user).
            page.get_by_test_id("password").wait_for()
            bolt = urlsplit(story["location"])
            expect(page.get_by_test_id("boltaddress")).to_have_value(f"{bolt.hostname}:{bolt.port or 7687}")
            expect(page.get_by_test_id("username")).to_have_value(user)
            expect(page.get_by_test_id("bolt-scheme-select")).to_have_value(f"{bolt.scheme}://")
            step("connect form pre-filled")
            page.get_by_test_id("password").fill(password)
            page.get_by_test_id("connect").click()
            expect(page.get_by_test_id("disconnectedBanner")).to_have_count(0)
            expect(page.get_by_test_id("frame").filter(has_text="You are connected as")).to_have_count(1)
            step("connected")

            def run(command: str) -> Any:
                """Type a command into the main editor, run it, and return its result frame."""
                page.get_by_test_id("activeEditor").click()
                page.keyboard.insert_text(command)
                page.keyboard.press("Control+Enter")
                first_line = command.strip().splitlines()[0]
                return page.get_by_test_id("frame").filter(
                    has=page.get_by_test_id("frameCommand").filter(has_text=first_line[:40])).first

            for line in info.settings:  # as `browse` prints them: "Connect result nodes" off
                expect(run(line)).to_contain_text('"autoComplete": false')
            def set_param(line: str) -> None:
                """Set a parameter and wait until Browser has it (a query run before that would use the old value)."""
                expect(run(line).get_by_test_id("frameStatusbar")).to_contain_text("Successfully set your parameter")

            for line in info.param_lines:
                set_param(line)
            step("settings and parameters set")
            # Load the style sheet as a person would: drop the .grass file onto Browser (it then runs :style).
            grass = page.evaluate_handle(
                "text => { const data = new DataTransfer();"
                " data.items.add(new File([text], 'synapse.grass', {type: 'text/plain'})); return data; }",
                style_sheet()[1])
            page.locator(".filedrop").dispatch_event("drop", {"dataTransfer": grass})
            style_frame = page.get_by_test_id("frame").filter(
                has=page.get_by_test_id("frameCommand").filter(has_text=":style")).first
            expect(style_frame).to_contain_text('caption: "{predicate}"')
            step("style sheet dropped")

            def run_saved(name: str) -> Any:
                saved = next(q for q in info.queries if q.name == name)
                return run("\n".join(line for line in saved.text.splitlines() if not line.startswith("//")))

            def drawn(frame: Any, relationships: int, nodes: int) -> list[str]:
                """Wait for the graph, give Browser time to add anything more, return the edge captions."""
                frame.get_by_test_id("cypherFrameSidebarVisualization").click()  # Browser keeps the last view
                graph = frame.get_by_test_id("frame-loaded-contents")
                expect(graph.locator("svg g.relationship")).to_have_count(relationships)
                page.wait_for_timeout(2000)  # "Connect result nodes" would add its edges by now
                expect(graph.locator("svg g.relationship")).to_have_count(relationships)
                expect(graph.locator("svg g.node")).to_have_count(nodes)
                return sorted(graph.locator("svg g.relationship text").all_text_contents())

            # Current facts: the captions come from the style sheet (default captions would say FACT).
            frame = run_saved("current_facts")
            assert drawn(frame, 2, 3) == ["LIVES_IN", "WORKS_AT"]
            graph = frame.get_by_test_id("frame-loaded-contents")
            for text in ("Dana Reyes", "London", "Globex"):
                expect(graph.locator("svg g.node text").filter(has_text=text).first).to_be_visible()
            step("current facts drawn")
            page.wait_for_timeout(1000)  # let the force layout settle before the picture
            ARTIFACTS.mkdir(exist_ok=True)
            frame.screenshot(path=str(SCREENSHOT))
            # Table view: the returned paths as text.
            frame.get_by_test_id("cypherFrameSidebarTable").click()
            table = frame.get_by_test_id("frameContents")
            for text in ("Dana Reyes", "London", "Globex", "LIVES_IN", "WORKS_AT", story["scope"]):
                expect(table).to_contain_text(text)
            for absent in ("Paris", "Berlin", "Acme"):
                expect(table).not_to_contain_text(absent)
            expect(frame.get_by_test_id("frameStatusbar")).to_contain_text("2 records")
            step("table checked")

            # The graph as of mid-2021: exactly the three facts valid then. Dana's other LIVES_IN
            # records (Paris, London, the superseded ones) connect the same nodes and must not be drawn.
            set_param(":param as_of => '2021-06-01'")
            frame = run_saved("graph_as_of")
            assert drawn(frame, 3, 4) == ["LIVES_IN", "LOCATED_IN", "WORKS_AT"]
            graph = frame.get_by_test_id("frame-loaded-contents")
            for text in ("Dana Reyes", "Berlin", "Acme", "Paris"):
                expect(graph.locator("svg g.node text").filter(has_text=text).first).to_be_visible()
            page.wait_for_timeout(1000)
            frame.screenshot(path=str(ARTIFACTS / "neo4j-browser-as-of.png"))
            step("graph as of 2021-06-01 drawn")

            # ...and the same facts with their validity, as a table.
            frame = run_saved("facts_as_of")
            table = frame.get_by_test_id("frameContents")
            for text in ("Berlin", "2021-02-01", "2022-09-15T09:30", "LOCATED_IN", "2010-01-01"):
                expect(table).to_contain_text(text)
            expect(table).not_to_contain_text("London")
            expect(frame.get_by_test_id("frameStatusbar")).to_contain_text("3 records")

            # Aliases: a table (no lone alias node drawn), found by the key 'strasse' for Straße.
            set_param(f":param key => '{entity_key('Straße')}'")
            frame = run_saved("aliases")
            expect(frame.get_by_test_id("frameContents")).to_contain_text("Strasse des 17. Juni")
            expect(frame.get_by_test_id("frameStatusbar")).to_contain_text("1 record")
            expect(frame.locator("svg g.node")).to_have_count(0)
            step("tables checked")
        except BaseException:
            if page is not None:
                ARTIFACTS.mkdir(exist_ok=True)
                page.screenshot(path=str(ARTIFACTS / "neo4j-browser-failure.png"), full_page=True)
            raise
        finally:
            browser.close()
    assert SCREENSHOT.stat().st_size > 10_000
