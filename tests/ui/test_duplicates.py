"""Duplicate entities in the inspector, on both backends: the review page and its JSON twin list the scope's
proposals with their score and evidence as ``Memory.duplicates`` does, an entity's page names its own; merge,
keep distinct and unmerge change the store as the Python calls would, each audited with the inspector as its
client, and each refused without the CSRF token. The JSON API's duplicate calls answer as the Python API.
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Iterator
from typing import Any

import pytest

from synapse_graph import Triple
from tests.ci import require
from tests.ui.conftest import DANA, Story, serving

pytestmark = [pytest.mark.integration, pytest.mark.timeout(420)]

SHORT = "D. Reyes"
"""Dana written again by initial, at her employer and in her city at overlapping times: a strong proposal."""


def dumped(values: list[Any]) -> list[Any]:
    return [v.model_dump(mode="json") for v in values]


def write_duplicate(story: Story) -> None:
    story.memory.upsert([
        Triple(subject=SHORT, predicate="WORKS_AT", object="Acme", valid_at="2019-05-01", invalid_at="2022-12-01"),
        Triple(subject=SHORT, predicate="LIVES_IN", object="Paris", valid_at="2019-03-01", invalid_at="2021-01-01")])


@pytest.fixture
def browser_like(story: Story) -> Iterator[tuple[Any, str]]:
    """A client holding a session cookie (as a browser does) and that session's CSRF token."""
    httpx = require("httpx")
    write_duplicate(story)
    with serving(story) as base, httpx.Client(base_url=base, timeout=60) as client:
        token = client.get("/api/csrf").json()["csrf_token"]
        yield client, token


def pair_of(found: list[Any]) -> list[tuple[str, str]]:
    return [(p["canonical"], p["other"]) for p in found]


def test_review_lists_proposals_and_merge_distinct_unmerge_change_the_store(story: Story,
                                                                             browser_like: tuple[Any, str]) -> None:
    client, token = browser_like
    memory = story.memory
    proposed = memory.duplicates()
    assert (DANA, SHORT) in [(p.canonical, p.other) for p in proposed]
    review = client.get("/review.json").json()
    assert review["duplicates"] == dumped(proposed)
    page = client.get("/review").text
    dana = next(p for p in proposed if p.other == SHORT)
    row = re.search(rf'<tr class="proposal" data-pair="{dana.canonical_key} {dana.other_key}">(.*?)</tr>', page, re.S)
    assert row is not None and f"{dana.score:.2f}" in row.group(1)
    assert all(e.text.replace("'", "&#39;") in row.group(1) for e in dana.evidence)

    # The entity page names its proposals (read by the review page just now), on both entities' pages (the
    # alias's page too).
    for name in (DANA, "Dana", SHORT):
        shown = client.get("/entity.json", params={"name": name}).json()["duplicates"]
        assert pair_of(shown) == [(DANA, SHORT)], name
    assert 'id="possible-duplicates"' in client.get("/entity", params={"name": SHORT}).text
    assert client.get("/entity.json", params={"name": "Globex"}).json()["duplicates"] == []

    # Without the CSRF token nothing changes.
    form = {"canonical": DANA, "other": SHORT}
    for path in ("/review/merge", "/review/distinct", "/review/unmerge"):
        refused = client.post(path, data={**form, "reason": "x", "name": SHORT})
        assert refused.status_code == 403, path
    assert memory.entity(SHORT).name == SHORT and memory.audit(limit=1)[0].action != "merge duplicate"  # type: ignore[union-attr]

    merged = client.post("/review/merge", data={**form, "csrf_token": token})
    assert merged.status_code == 303 and "done=merged" in merged.headers["location"]
    assert memory.entity(SHORT).name == DANA  # type: ignore[union-attr]
    # An entity's page does not wait for the scope's proposals to be read again after a write: it says so.
    assert 'id="duplicates-pending"' in client.get("/entity", params={"name": DANA}).text
    entry = memory.audit(limit=1)[0]
    assert (entry.action, entry.client) == ("merge duplicate", "synapse-graph-ui")
    assert entry.detail["proposal"]["score"] >= 0.8  # the pair as scored at the merge, with its evidence
    after = client.get("/review.json").json()
    assert (DANA, SHORT) not in pair_of(after["duplicates"]) and after["duplicates"] == dumped(memory.duplicates())
    latest = after["merges"][0]
    assert (latest["merged"], latest["into"], latest["current"]) == (SHORT, DANA, True)
    assert after["merges"][0]["score"] == entry.detail["proposal"]["score"]

    unmerged = client.post("/review/unmerge", data={"name": SHORT, "csrf_token": token})
    assert unmerged.status_code == 303
    assert memory.entity(SHORT).name == SHORT and memory.entity(DANA).aliases == ["Dana"]  # type: ignore[union-attr]
    assert sorted(f.object for f in memory.facts(SHORT, include_history=True)) == ["Acme", "Paris"]
    assert (memory.audit(limit=1)[0].action, memory.audit(limit=1)[0].client) == ("unmerge", "synapse-graph-ui")
    again = client.get("/review.json").json()
    assert (DANA, SHORT) in pair_of(again["duplicates"]) and not again["merges"][0]["current"]

    distinct = client.post("/review/distinct", data={**form, "reason": "her cousin <b>Diego</b>",
                                                     "csrf_token": token})
    assert distinct.status_code == 303
    assert (DANA, SHORT) not in [(p.canonical, p.other) for p in memory.duplicates()]
    assert (memory.audit(limit=1)[0].action, memory.audit(limit=1)[0].client) == ("distinct", "synapse-graph-ui")
    assert client.get("/review.json").json()["duplicates"] == dumped(memory.duplicates())
    assert client.get("/entity.json", params={"name": SHORT}).json()["duplicates"] == []
    assert client.post("/review/merge", data={**form, "csrf_token": token}).status_code == 303  # still possible
    assert client.post("/review/unmerge", data={"name": "Globex", "csrf_token": token}).status_code == 400


def test_the_json_api_reviews_duplicates_as_the_python_api(story: Story) -> None:
    httpx = require("httpx")
    write_duplicate(story)
    token = secrets.token_urlsafe(32)
    memory = story.memory
    with serving(story, token=token) as base, httpx.Client(base_url=base, timeout=60, headers={
            "Authorization": f"Bearer {token}"}) as api:
        assert api.get("/api/duplicates").json() == dumped(memory.duplicates())
        assert api.get("/api/duplicates", params={"threshold": 0.3, "limit": 5}).json() == dumped(
            memory.duplicates(threshold=0.3, limit=5))
        merged = api.post("/api/approve_duplicate", json={"canonical": DANA, "other": SHORT})
        assert merged.status_code == 200 and merged.json()["merged"] >= 1, merged.text
        assert memory.entity(SHORT).name == DANA  # type: ignore[union-attr]
        undone = api.post("/api/unmerge", json={"name": SHORT}).json()
        assert (undone["restored"], undone["kept"], undone["facts_restored"]) == (SHORT, DANA, 2)
        assert api.post("/api/reject_duplicate", json={"canonical": DANA, "other": SHORT, "reason": "two"}
                        ).status_code == 200
        assert api.get("/api/duplicates").json() == dumped(memory.duplicates()) and all(
            p.other != SHORT for p in memory.duplicates())
        assert [e.client for e in memory.audit(limit=3)] == ["synapse-graph-ui"] * 3
        assert api.post("/api/unmerge", json={"name": "Nobody"}).status_code == 404
    with serving(story, allow_review=False) as base:
        spec = httpx.get(base + "/api/openapi.json").json()
        assert {"/api/duplicates", "/api/approve_duplicate", "/api/reject_duplicate", "/api/unmerge"}.isdisjoint(
            spec["paths"])
