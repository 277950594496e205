"""The inspector's JSON API, on both backends: the same answers as the Python API for the same calls, and
every answer as its OpenAPI schema says (schemathesis generates the requests from that schema).

Writes are compared by making the same calls through HTTP on one scope and through Python on a twin scope
that holds the same story; reads by asking both of the same store.
"""

from __future__ import annotations

import secrets
import uuid
from collections.abc import Iterator
from typing import Any

import pytest

from synapse_graph import Memory, Triple
from tests.ci import require
from tests.ui.conftest import DANA, Story, serving, tell

pytestmark = [pytest.mark.integration, pytest.mark.timeout(420)]


def timeless(value: Any) -> Any:
    """An answer without the milliseconds a recall took (``usage.ms``: each call's own)."""
    if isinstance(value, dict) and isinstance(value.get("usage"), dict):
        return {**value, "usage": {k: v for k, v in value["usage"].items() if k != "ms"}}
    return value


def dumped(value: Any) -> Any:
    if isinstance(value, list):
        return [dumped(v) for v in value]
    return value.model_dump(mode="json")


@pytest.fixture
def twin(story: Story) -> Iterator[Memory]:
    """Another scope with the same story, written through Python."""
    scope = f"ui-twin-{uuid.uuid4().hex[:10]}"
    memory = Memory(story.location, scope=scope, client="synapse-graph-ui", auth=story.auth)
    try:
        tell(memory)
        yield memory
    finally:
        memory.purge(scope=scope)
        memory.close()


@pytest.fixture
def api(story: Story) -> Iterator[Any]:
    httpx = require("httpx")
    token = secrets.token_urlsafe(32)
    with serving(story, token=token) as base, httpx.Client(base_url=base, timeout=60,
                                                          headers={"Authorization": f"Bearer {token}"}) as client:
        yield client


def test_reads_answer_as_the_python_api(story: Story, api: Any) -> None:
    memory, between = story.memory, story.before_move.isoformat()
    same = [
        ("/api/facts", {"subject": "Dana"}, memory.facts("Dana")),
        ("/api/facts", {"subject": DANA, "as_of": "2020-06-01", "include_candidates": "true"},
         memory.facts(DANA, as_of="2020-06-01", include_candidates=True)),
        ("/api/facts", {"subject": DANA, "as_of": between, "known_at": between},
         memory.facts(DANA, as_of=between, known_at=between)),
        ("/api/facts", {"object": DANA, "include_history": "true"}, memory.facts(object=DANA, include_history=True)),
        ("/api/history", {"subject": DANA, "predicate": "LIVES_IN"}, memory.history(DANA, "LIVES_IN")),
        ("/api/history", {"subject": DANA, "known_at": between}, memory.history(DANA, known_at=between)),
        ("/api/recall", {"query": "where does Dana live", "as_of": "2022-01-01"},
         memory.recall("where does Dana live", as_of="2022-01-01")),
        ("/api/neighbourhood", {"entity": DANA, "hops": "2", "as_of": "2021-06-01"},
         memory.neighbourhood(DANA, 2, as_of="2021-06-01")),
        ("/api/entity", {"name": "Dana"}, memory.entity("Dana")),
        ("/api/entities", {"limit": "3"}, memory.entities(limit=3)),
        ("/api/observations", {"entity": DANA}, memory.observations(DANA)),
        ("/api/stats", {}, memory.stats()),
        ("/api/sessions", {}, memory.sessions()),
        ("/api/pending", {"include_disputed": "true"}, memory.pending(include_disputed=True)),
    ]
    for path, params, expected in same:
        answer = api.get(path, params=params)
        assert answer.status_code == 200, (path, answer.text)
        assert timeless(answer.json()) == timeless(dumped(expected)), (path, params)
    growth = memory.growth(steps=5)
    assert api.get("/api/growth", params={"steps": 5, "since": growth.since.isoformat(),  # type: ignore[union-attr]
                                          "until": growth.until.isoformat()}).json() == dumped(growth)  # type: ignore[union-attr]
    page = api.get("/api/audit", params={"limit": 4}).json()
    assert page["entries"] == dumped(memory.audit(limit=4))
    older = api.get("/api/audit", params={"limit": 100, "after": page["next"]}).json()
    assert older["entries"] == dumped(memory.audit(after=memory.audit(limit=4)[-1])) and older["next"] is None
    assert api.get("/api/audit", params={"action": "feedback"}).json()["entries"] == dumped(
        memory.audit(action="feedback"))
    exported = api.get("/api/export")
    assert exported.headers["content-type"].startswith("application/x-ndjson")
    assert sorted(exported.text.splitlines()) == sorted(memory.export())


def test_writes_do_what_the_python_api_does(story: Story, api: Any, twin: Memory) -> None:
    memory = story.memory
    triples = [{"subject": "Erin", "predicate": "WORKS_AT", "object": "Acme", "valid_at": "2024-01-01"},
               {"subject": "Dana", "predicate": "LIVES_IN", "object": "Lisbon", "valid_at": "2024-06-01"}]
    written = api.post("/api/upsert", json={"triples": triples, "source": "http"})
    assert written.status_code == 200, written.text
    assert written.json() == dumped(twin.upsert([Triple(**t) for t in triples], source="http"))
    assert [f.object for f in memory.facts(DANA, "LIVES_IN")] == ["Lisbon"]
    assert memory.facts("Erin")[0].source == "http" and memory.audit(limit=1)[0].client == "synapse-graph-ui"

    observed = api.post("/api/observe", json={"entity": "Erin", "texts": ["Runs marathons"], "entity_type": "person"})
    assert [o["text"] for o in observed.json()] == [o.text for o in twin.observe("Erin", ["Runs marathons"],
                                                                                  entity_type="person")]
    assert observed.json() == dumped(memory.observations("Erin"))

    retracted = api.post("/api/retract", json={"subject": DANA, "predicate": "WORKS_AT", "at": "2024-02-01"})
    assert retracted.json() == {"retracted": twin.retract(DANA, "WORKS_AT", at="2024-02-01")} == {"retracted": 1}
    assert memory.facts(DANA, "WORKS_AT") == []

    [erin] = memory.facts("Erin", "WORKS_AT")
    judged = api.post("/api/feedback", json={"fact": erin.id, "verdict": "wrong"})
    assert judged.json() == dumped(memory.facts("Erin", "WORKS_AT", include_disputed=True)[0])
    assert judged.json()["status"] == twin.feedback(twin.facts("Erin", "WORKS_AT")[0], "wrong").status == "disputed"

    jazz, chess = sorted(memory.pending(), key=lambda f: f.object != "Jazz")
    assert api.post("/api/approve", json={"fact": jazz.id}).status_code == 200
    assert api.post("/api/reject", json={"fact": chess.id, "reason": "no"}).status_code == 200
    assert memory.pending() == [] and [f.object for f in memory.facts(DANA, "LIKES")] == ["Jazz"]
    assert [e.action for e in memory.audit(limit=2)] == ["reject", "approve"]

    purged = api.post("/api/purge", json={"entity": "Erin"})
    assert purged.json() == dumped(twin.purge("Erin")) and memory.entity("Erin") is None
    revoked = api.post("/api/sessions/revoke", json={"session": "chat-42"})
    assert revoked.status_code == 200 and memory.sessions()[0].revoked_at is not None


def test_errors_are_typed_and_the_flags_decide_what_exists(story: Story, api: Any) -> None:
    bad = api.post("/api/upsert", json={"triples": [{"subject": "A", "predicate": "lives in", "object": "B"}]})
    assert bad.status_code == 400 and bad.json()["error"] == "InvalidPredicateError"
    assert api.get("/api/facts", params={"subject": DANA, "as_of": "not a time"}).json()["error"] == "InvalidTimeError"
    assert api.get("/api/entity", params={"name": "Nobody"}).status_code == 404
    assert api.post("/api/feedback", json={"fact": "a" * 25, "verdict": "wrong"}).status_code == 404
    assert api.post("/api/upsert", json={"triples": [], "extra": 1}).status_code == 422
    assert story.memory.stats().facts == 8  # nothing above changed the store
    with serving(story, allow_review=False, allow_erasure=False) as base:
        httpx = require("httpx")
        spec = httpx.get(base + "/api/openapi.json").json()
        assert {"/api/pending", "/api/approve", "/api/reject", "/api/purge", "/api/sessions/revoke"}.isdisjoint(
            spec["paths"])
        assert httpx.get(base + "/api/pending").status_code == 404
        assert httpx.get(base + "/review").status_code == 404
        assert httpx.get(base + "/purge?name=Dana").status_code == 404


def test_every_operation_answers_as_its_openapi_schema_says(story: Story) -> None:
    schemathesis = require("schemathesis")
    from hypothesis import HealthCheck, given, settings
    from schemathesis.checks import (
        content_type_conformance,
        not_a_server_error,
        response_schema_conformance,
        status_code_conformance,
    )

    token = secrets.token_urlsafe(32)
    with serving(story, token=token) as base:
        httpx = require("httpx")
        spec = httpx.get(base + "/api/openapi.json", headers={"Authorization": f"Bearer {token}"}).json()
        schema = schemathesis.openapi.from_dict(spec)
        checks = [not_a_server_error, status_code_conformance, content_type_conformance, response_schema_conformance]
        operations = [result.ok() for result in schema.get_all_operations()]
        assert len(operations) >= 20
        for operation in operations:
            if operation.path == "/api/export":
                continue  # JSON Lines, not a JSON document: checked against the Python API above

            @given(case=operation.as_strategy())
            @settings(max_examples=8, deadline=None, database=None, suppress_health_check=list(HealthCheck))
            def call(case: Any) -> None:
                response = case.call(base_url=base, headers={"Authorization": f"Bearer {token}"})
                case.validate_response(response, checks=checks)

            call()


def test_the_overview_shows_what_the_latest_writes_changed(story: Story, api: Any) -> None:
    memory = story.memory
    since = min(e.at for e in memory.audit(limit=10))
    expected = memory.changes(since=since, limit=30)
    shown = api.get("/overview.json").json()["sections"]["changes"]
    assert shown == expected.model_dump(mode="json")
    assert any(c["kind"] == "observed" for c in shown["changes"]), shown  # the story's latest writes include these
    page = api.get("/overview")
    assert page.status_code == 200
    changes = page.text[page.text.index('id="changes"'):page.text.index('id="latest"')]
    for change in expected.changes:
        if change.observation is not None:
            assert change.observation.text in changes
