"""The web inspector in a real Chromium (Playwright), on both backends.

What each page shows is counted against the library's answers for the same store: the overview's counts
and latest writes, the entities, an entity's facts, observations, aliases and timeline, the graph as of a
date (exactly the facts valid then), search with why each fact was recalled, review (whose actions change
the store and appear in its audit log), the audit log's filters, sessions, the export, and purge. Hostile
names are shown as text. Screenshots land in test-artifacts/inspector/ (docs/images/ with
``SYNAPSE_UI_SCREENSHOTS=docs/images``, how the README's were taken).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

from synapse_graph import Fact
from tests.ui.conftest import MARKUP, XSS, Story, serving

pytestmark = [pytest.mark.integration, pytest.mark.timeout(420)]

ROOT = Path(__file__).resolve().parents[2]
SHOTS = ROOT / os.environ.get("SYNAPSE_UI_SCREENSHOTS", "test-artifacts/inspector")
DANA = "Dana Reyes"


def ids(facts: list[Fact]) -> list[str]:
    return [f.id for f in facts]


def shown(page: Any, selector: str, attribute: str = "data-fact") -> list[str]:
    return [str(v) for v in page.locator(selector).evaluate_all(
        f"rows => rows.map(r => r.getAttribute('{attribute}'))")]


@pytest.fixture
def browser_page(chromium: Any) -> Iterator[Any]:
    context = chromium.new_context(viewport={"width": 1280, "height": 860}, color_scheme="light")
    page = context.new_page()
    page.set_default_timeout(20_000)
    alerts: list[str] = []
    page.on("dialog", lambda dialog: (alerts.append(dialog.message), dialog.dismiss()))
    page.alerts = alerts
    try:
        yield page
    finally:
        context.close()
    assert alerts == [], f"a page ran script from the store: {alerts}"


def screenshot(page: Any, name: str, backend: str) -> None:
    if backend == "falkordb":  # the README's pictures come from one backend
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SHOTS / f"inspector-{name}.png"))


def test_every_page_shows_what_the_memory_holds(story: Story, browser_page: Any, backend_name: str) -> None:
    from playwright.sync_api import expect

    memory, page = story.memory, browser_page
    with serving(story) as base:
        # Overview: the counts, the chart, the latest writes.
        page.goto(base + "/")
        stats, sessions = memory.stats(), memory.sessions()
        expected = {"entities": stats.entities, "facts_valid_now": stats.valid_now, "superseded": stats.expired_records,
                    "candidates": stats.candidates, "disputed": stats.disputed, "observations": stats.observations,
                    "sessions": len(sessions)}
        counts = {key: int(page.locator(f"dd[data-count='{key}']").inner_text().replace(",", ""))
                  for key in expected}
        assert counts == expected and stats.candidates == 2 and stats.disputed == 1
        assert shown(page, "#latest tr.audit", "data-entry") == [e.id for e in memory.audit(limit=10)]
        assert page.locator("svg.chart polyline.series.facts").count() == 1
        screenshot(page, "overview", backend_name)

        # Entities, a page of them.
        page.goto(base + "/entities")
        assert shown(page, "#entities tr[data-entity]", "data-entity") == [
            e.key for e in memory.entities(limit=50).entities]

        # An entity, as the memory knows it now: facts both ways, observations, aliases, timeline.
        page.goto(base + "/entity?name=" + quote("Dana"))  # an alias leads to the entity
        expect(page.locator("h1")).to_contain_text(DANA)
        both = {"include_candidates": True, "include_disputed": True}
        assert shown(page, "#facts tr.fact") == ids(memory.facts(DANA, **both))
        assert shown(page, "#incoming tr.fact") == ids(memory.facts(object=DANA, **both))
        assert shown(page, "#observations li", "data-observation") == [o.id for o in memory.observations(DANA)]
        assert page.locator(".alias").all_inner_texts() == memory.entity(DANA).aliases == ["Dana"]
        assert sorted(shown(page, "#timeline svg.bar")) == sorted(ids(memory.history(DANA)))
        # Hostile names are text: no image element, no alert (the fixture checks), markup shown literally.
        expect(page.locator("#facts").get_by_text(XSS, exact=True)).to_have_count(1)
        expect(page.locator("#incoming").get_by_text(MARKUP, exact=True)).to_have_count(1)
        assert page.locator("img").count() == 0
        screenshot(page, "entity", backend_name)

        # The as-of slider and the known-at toggle redraw the page as the memory was.
        def redraw(action: Any) -> None:
            with page.expect_response(lambda r: "/entity?" in r.url and r.status == 200):
                action()
            page.wait_for_load_state()

        between = int(story.before_move.timestamp())
        redraw(lambda: page.locator("#as-of").evaluate(
            "(slider, value) => { slider.value = value; slider.dispatchEvent(new Event('change', {bubbles: true})); }",
            str(between)))
        expect(page.locator("#shown")).to_have_attribute("data-known", "now")
        known_now = ids(memory.facts(DANA, as_of=between, **both))
        assert shown(page, "#facts tr.fact") == known_now
        redraw(lambda: page.locator("#known-then").check())
        expect(page.locator("#shown")).to_have_attribute("data-known", "then")
        known_then = ids(memory.facts(DANA, as_of=between, known_at=between, **both))
        assert shown(page, "#facts tr.fact") == known_then
        lived_then = [f.object for f in memory.facts(DANA, "LIVES_IN", as_of=between, known_at=between)]
        assert known_then != known_now and lived_then == ["Berlin"]  # London was not known yet
        assert "known=then" in page.url and f"as_of={between}" in page.url

        # The graph as of a date draws exactly the facts valid then (and the edges say when).
        page.goto(base + "/graph?name=" + quote(DANA) + "&as_of=2020-06-01&hops=2")
        expect(page.locator("#cy")).to_have_attribute("data-drawn", str(len(memory.neighbourhood(
            DANA, 2, as_of="2020-06-01"))))
        drawn = page.evaluate("() => window.synapseGraph.edges().map(e => e.id()).sort()")
        then = ids(memory.neighbourhood(DANA, 2, as_of="2020-06-01"))
        assert drawn == sorted(then) and sorted(shown(page, "#edges tr[data-fact]")) == sorted(then)
        assert set(then) != set(ids(memory.neighbourhood(DANA, 2)))  # a date that changes the answer
        labels = page.evaluate("() => window.synapseGraph.edges().map(e => e.data('label'))")
        assert "LIVES_IN\n[2019-03-01 → 2021-02-01)" in labels, labels
        page.locator("#theme-toggle").click()
        expect(page.locator("html")).to_have_attribute("data-theme", "dark")
        page.wait_for_function("() => document.querySelector('#cy').getAttribute('data-drawn') !== null")
        screenshot(page, "graph-dark", backend_name)
        page.locator("#theme-toggle").click()
        expect(page.locator("html")).to_have_attribute("data-theme", "light")

        # Search: recall's facts in its order, with the words and entity each was recalled by.
        question = "where does Dana live and work"
        page.goto(base + "/search?q=" + quote(question))
        recalled = memory.recall(question)
        assert shown(page, "#recalled tr.fact") == ids(recalled.facts)[:25]
        first = page.locator("#recalled tr.fact").first
        assert first.locator(".word").all_inner_texts() == recalled.facts[0].words
        expect(first.locator("td.why")).to_contain_text(f"via {recalled.facts[0].entry}")

        # Review: candidates and disputed facts; approve, reject and feedback change the store, audited.
        page.goto(base + "/review")
        pending = memory.pending(include_disputed=True)
        assert shown(page, "#candidates tr[data-fact]") == [f.id for f in pending if f.status == "candidate"]
        assert shown(page, "#disputed tr[data-fact]") == [f.id for f in pending if f.status == "disputed"]
        jazz, chess = (next(f for f in pending if f.object == name) for name in ("Jazz", "Chess"))
        [stale] = [f for f in pending if f.status == "disputed"]
        screenshot(page, "review", backend_name)
        page.locator(f"#candidates tr[data-fact='{jazz.id}'] button.approve").click()
        expect(page.locator(".done")).to_contain_text(f"approved {jazz.id}")
        row = page.locator(f"#candidates tr[data-fact='{chess.id}']")
        row.locator("input[name=reason]").fill("she said: <b>never</b>")
        row.locator("button.reject").click()
        expect(page.locator(".done")).to_contain_text(f"rejected {chess.id}")
        page.locator(f"#disputed tr[data-fact='{stale.id}'] button[value=helpful]").click()
        expect(page.locator("#disputed tr[data-fact]")).to_have_count(0)
        assert memory.pending(include_disputed=True) == []
        assert [f.object for f in memory.facts(DANA, "LIKES")] == ["Jazz"]
        assert memory.facts("Acme", "LOCATED_IN")[0].status == "believed"
        log = memory.audit(limit=3)
        assert [(e.action, e.client) for e in log] == [
            ("feedback:helpful", "synapse-graph-ui"), ("reject", "synapse-graph-ui"), ("approve", "synapse-graph-ui")]
        assert log[1].detail["rejected"][0]["reason"] == "she said: <b>never</b>"

        # The audit log, filtered, against the library's filters.
        page.goto(base + "/audit?client=synapse-graph-ui")
        assert shown(page, "#audit tr.audit", "data-entry") == [e.id for e in log]
        page.goto(base + "/audit?action=upsert&entity=" + quote(DANA))
        assert shown(page, "#audit tr.audit", "data-entry") == [e.id for e in memory.audit(DANA, action="upsert")]

        # Sessions, the export download.
        page.goto(base + "/sessions")
        assert shown(page, "#sessions tr[data-session]", "data-session") == [s.id for s in memory.sessions()]
        with page.expect_download() as download:
            page.locator("header a[href='/export']").click()
        lines = Path(download.value.path()).read_text(encoding="utf-8").splitlines()
        assert sorted(lines) == sorted(memory.export())

        # Purge, confirmed by typing the name; the confirmation names what goes.
        page.goto(base + "/purge?name=" + quote(MARKUP))
        expect(page.locator("#what-goes")).to_contain_text("1 fact validity interval")
        page.locator("input[name=confirm]").fill(MARKUP)
        page.locator("#what-goes button[type=submit]").click()
        expect(page.locator("#purged")).to_contain_text("Erased for good: 1 entity")
        assert memory.entity(MARKUP) is None

        # Every page's JSON twin answers as the page did.
        twin = page.request.get(base + "/entity.json?name=" + quote(DANA))
        assert ids(memory.facts(DANA, **both)) == [f["id"] for f in twin.json()["facts"]]
        assert json.loads(page.request.get(base + "/overview.json").text())["sections"]["counts"]["entities"] == (
            memory.stats().entities)


def test_the_browser_cannot_be_turned_against_the_memory(story: Story, browser_page: Any) -> None:
    page = browser_page
    [fact] = story.memory.facts(DANA, "WORKS_AT")
    with serving(story) as base:
        page.goto(base + "/entity?name=" + quote(DANA))
        token = page.locator("meta[name=csrf-token]").get_attribute("content")
        assert token and page.evaluate("() => document.cookie") == ""  # the session cookie is HttpOnly
        # A change without the CSRF token, or with another one, is refused; with it, it is made.
        body = {"fact": fact.id, "verdict": "stale"}
        assert page.request.post(base + "/api/feedback", data=body).status == 403
        assert page.request.post(base + "/api/feedback", data=body, headers={"X-CSRF-Token": "0" * 64}).status == 403
        assert page.request.post(base + "/feedback", form={"fact": fact.id, "verdict": "stale"}).status == 403
        assert story.memory.facts(DANA, "WORKS_AT")[0].status == "believed"
        answer = page.request.post(base + "/api/feedback", data=body, headers={"X-CSRF-Token": token})
        assert answer.status == 200 and answer.json()["status"] == "disputed"
        assert story.memory.audit(limit=1)[0].client == "synapse-graph-ui"
        # Another site's form posting to the inspector: the browser sends its Origin, the inspector refuses.
        page.set_content(f"<form method=post action='{base}/feedback'><input name=fact value='{fact.id}'>"
                         "<input name=verdict value=helpful><input name=csrf_token value='x'></form>")
        with page.expect_response(lambda r: "/feedback" in r.url) as refused:
            page.evaluate("() => document.forms[0].submit()")
        assert refused.value.status == 403
        page.wait_for_url("**/feedback")
        assert story.memory.facts(DANA, "WORKS_AT", include_disputed=True)[0].status == "disputed"
        # DNS rebinding: a name that resolves to loopback is not a name this server answers to.
        navigated = page.goto(base.replace("127.0.0.1", "rebound.test") + "/")
        assert navigated is not None and navigated.status == 421
        assert page.request.get(base + "/api/stats", headers={"Host": "rebound.test"}).status == 421


def test_off_loopback_every_request_needs_the_token(story: Story, browser_page: Any) -> None:
    import secrets

    token = secrets.token_urlsafe(32)
    page = browser_page
    with serving(story, token=token, host="0.0.0.0", allowed_hosts=("memory.lan",)) as base:
        assert page.request.get(base + "/api/stats").status == 401
        assert page.request.get(base + "/api/stats", headers={"Authorization": "Bearer " + "x" * 43}).status == 401
        answer = page.request.get(base + "/api/stats", headers={"Authorization": f"Bearer {token}"})
        assert answer.status == 200 and answer.json()["entities"] == story.memory.stats().entities
        # A browser signs in once; its session cookie (HttpOnly) stands for the token afterwards.
        page.goto(base + "/entity?name=" + quote(DANA))
        assert "/login" in page.url
        page.locator("input[name=token]").fill("not-the-token-" + "y" * 30)
        page.locator("form.login button").click()
        assert page.locator("[role=alert]").inner_text() == "That is not the token."
        page.locator("input[name=token]").fill(token)
        page.locator("form.login button").click()
        page.wait_for_url("**/entity?name=*")
        assert shown(page, "#facts tr.fact") == ids(story.memory.facts(DANA, include_candidates=True,
                                                                         include_disputed=True))
        assert page.evaluate("() => document.cookie") == ""
        page.locator("form.logout button").click()
        page.wait_for_url("**/login")
        assert page.request.get(base + "/api/stats").status == 401
