"""An entity's page a page at a time (issue 31: a hub's page reads a page of what it holds, not all of it), on
both backends: its observations are paged as its facts are, and the pages together show every one; the audit
log filtered by a hub shows each bulk write in brief (its first entities, counted), the JSON API whole."""

from __future__ import annotations

import pytest

from synapse_graph import Triple
from synapse_graph.ui import views
from synapse_graph.ui.views import AUDIT_BRIEF
from tests.ci import require
from tests.ui.conftest import DANA, Story, serving

pytestmark = [pytest.mark.integration, pytest.mark.timeout(420)]


def test_an_entity_with_many_observations_shows_them_a_page_at_a_time(story: Story) -> None:
    httpx = require("httpx")
    notes = [f"note {i:02d} about the hub" for i in range(12)]
    for note in notes:
        story.memory.observe("Hub Person", [note])
    held = [o.text for o in story.memory.observations("Hub Person")]
    assert sorted(held) == sorted(notes)
    shown: list[str] = []
    with serving(story, page_size=5) as base, httpx.Client(base_url=base, timeout=60) as client:
        for number in (1, 2, 3):
            page = client.get("/entity.json", params={"name": "Hub Person", "page": number}).json()
            assert len(page["observations"]) == (5 if number < 3 else 2)
            assert page["more"] is (number < 3)
            shown += [o["text"] for o in page["observations"]]
        html = client.get("/entity", params={"name": "Hub Person", "page": 3}).text
    assert shown == held  # oldest recorded first, each once
    assert notes[-1] in html and notes[0] not in html


def test_the_audit_page_shows_a_bulk_write_in_brief_and_the_api_whole(story: Story) -> None:
    httpx = require("httpx")
    story.memory.upsert([Triple(subject="Hub Person", predicate="KNOWS", object=f"Friend {i:02d}") for i in range(40)])
    [whole] = story.memory.audit("Hub Person")
    assert len(whole.entities) == 41 and len(whole.facts) == 40
    with serving(story) as base, httpx.Client(base_url=base, timeout=60) as client:
        [entry] = client.get("/audit.json", params={"entity": "Hub Person"}).json()["entries"]
        html = client.get("/audit", params={"entity": "Hub Person"}).text
        api = client.get("/api/audit", params={"entity": "Hub Person"}).json()["entries"]
        short = client.get("/api/audit", params={"entity": "Hub Person", "brief": 2}).json()["entries"]
    assert entry["id"] == whole.id and entry["brief"] and entry["detail"] == {}
    assert entry["entities"] == whole.entities[:AUDIT_BRIEF] and entry["facts"] == whole.facts[:AUDIT_BRIEF]
    assert (entry["entity_count"], entry["fact_count"]) == (41, 40)
    assert f"(+{41 - AUDIT_BRIEF})" in html and whole.entities[-1] not in html
    assert api == [whole.model_dump(mode="json")]
    assert short == [story.memory.audit("Hub Person", brief=2)[0].model_dump(mode="json")]


def test_the_timeline_pages_through_every_interval_and_says_where_it_is_cut(story: Story,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """A hub's timeline draws a page of its intervals, says which, and links to the rest; a predicate chosen pages
    its own (before, it promised all of them and drew the first page again)."""
    httpx = require("httpx")
    monkeypatch.setattr(views, "TIMELINE_RECORDS", 5)
    story.memory.upsert([Triple(subject="Hub Person", predicate="VISITED", object=f"City {i:02d}",
                                valid_at=f"{2000 + i}-01-01") for i in range(12)])
    story.memory.upsert(Triple(subject="Hub Person", predicate="KNOWS", object=DANA, valid_at="2001-06-01"))
    for predicate in (None, "VISITED"):
        held = [f.id for f in story.memory.facts("Hub Person", predicate, include_history=True)]
        drawn: list[str] = []
        with serving(story) as base, httpx.Client(base_url=base, timeout=60) as client:
            for number in (1, 2, 3):
                view = client.get("/entity.json", params={"name": "Hub Person", "timeline": number,
                                                          **({"predicate": predicate} if predicate else {})}).json()
                assert view["timeline_page"] == number and view["history_offset"] == 5 * (number - 1)
                assert view["history_more"] is (number < 3) and not view["history_complete"]
                drawn += [f["id"] for f in view["history"]]
            html = client.get("/entity", params={"name": "Hub Person", "timeline": 2,
                                                 **({"predicate": predicate} if predicate else {})}).text
        assert drawn == held and len(held) == (13 if predicate is None else 12)
        assert "intervals 6–10, oldest first" in html and "timeline=3" in html and "timeline=1" in html
