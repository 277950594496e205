"""The inspector's rules that need no database: the guard in front of every request, the settings it
refuses, the drawings' geometry, the URL parameters, the vendored files and the templates' escaping."""

from __future__ import annotations

import asyncio
import hashlib
import re
import secrets
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from synapse_graph.errors import ConfigurationError
from tests.ci import require

require("fastapi")

from starlette.applications import Starlette  # noqa: E402
from starlette.requests import Request  # noqa: E402
from starlette.responses import JSONResponse  # noqa: E402
from starlette.routing import Route  # noqa: E402

from synapse_graph.growth import Growth, GrowthPoint  # noqa: E402
from synapse_graph.listening import Bind  # noqa: E402
from synapse_graph.models import Fact  # noqa: E402
from synapse_graph.ui.drawing import growth_chart, timeline  # noqa: E402
from synapse_graph.ui.guard import SESSION_COOKIE, Guard, Sessions  # noqa: E402
from synapse_graph.ui.params import Page, when  # noqa: E402
from synapse_graph.ui.settings import UiSettings  # noqa: E402

UI = Path(__file__).resolve().parents[2] / "synapse_graph" / "ui"
PORT = 8766
ORIGIN = f"http://127.0.0.1:{PORT}"


async def _echo(request: Request) -> JSONResponse:
    body = (await request.body()).decode()
    return JSONResponse({"csrf": request.state.csrf_token, "body": body})


def guarded(settings: UiSettings) -> Any:
    httpx = require("httpx")
    app = Starlette(routes=[Route("/x", _echo, methods=["GET", "POST"]), Route("/login", _echo, methods=["GET"])])
    transport = httpx.ASGITransport(app=Guard(app, settings, Sessions()))
    return httpx.AsyncClient(transport=transport, base_url=ORIGIN)


def run(coroutine: Any) -> Any:
    return asyncio.run(coroutine)


def test_the_guard_checks_host_origin_and_the_csrf_token_of_every_change() -> None:
    async def check() -> None:
        async with guarded(UiSettings(bind=Bind("127.0.0.1", PORT))) as client:
            page = await client.get("/x")
            assert page.status_code == 200
            cookie = page.cookies[SESSION_COOKIE]
            set_cookie = page.headers["set-cookie"]
            assert "HttpOnly" in set_cookie and "SameSite=Strict" in set_cookie and "Secure" not in set_cookie
            token = page.json()["csrf"]
            for header in ("content-security-policy", "x-content-type-options", "x-frame-options", "server-timing"):
                assert header in page.headers
            assert "script-src 'self'" in page.headers["content-security-policy"]
            assert re.fullmatch(r"app;dur=\d+\.\d", page.headers["server-timing"])
            # Host: only the names the server may be reached by (any port), else 421.
            assert (await client.get("/x", headers={"host": "evil.example"})).status_code == 421
            assert (await client.get("/x", headers={"host": f"localhost:{PORT}"})).status_code == 200
            assert (await client.get("/x", headers={"host": "[::1]:1"})).status_code == 200
            # Origin: this server only (scheme, name and port), whatever the method.
            for origin in ("http://evil.example", f"http://127.0.0.1:{PORT + 1}", "null"):
                assert (await client.get("/x", headers={"origin": origin})).status_code == 403
            assert (await client.get("/x", headers={"origin": ORIGIN})).status_code == 200
            # A change needs its session's CSRF token, as a header or a form field (the form reaches the app).
            assert (await client.post("/x", json={})).status_code == 403
            assert (await client.post("/x", headers={"x-csrf-token": "0" * 64})).status_code == 403
            assert (await client.post("/x", headers={"x-csrf-token": token})).status_code == 200
            sent = await client.post("/x", data={"csrf_token": token, "fact": "a<b"})
            assert sent.status_code == 200 and sent.json()["body"] == f"csrf_token={token}&fact=a%3Cb"
            assert (await client.post("/x", data={"csrf_token": "x", "fact": "a"})).status_code == 403
            changed = await client.post("/x", headers={"x-csrf-token": token, "sec-fetch-site": "cross-site"})
            assert changed.status_code == 403
            client.cookies.clear()
            client.cookies.set(SESSION_COOKIE, "another-session-" + "a" * 20)
            assert cookie != client.cookies[SESSION_COOKIE]
            assert (await client.post("/x", headers={"x-csrf-token": token})).status_code == 403
    run(check())


def test_with_a_token_every_request_proves_it_and_browsers_sign_in() -> None:
    token = secrets.token_urlsafe(32)

    async def check() -> None:
        settings = UiSettings(bind=Bind("0.0.0.0", PORT), token=token, allowed_hosts=("memory.lan",))
        async with guarded(settings) as client:
            assert (await client.get("/x")).status_code == 401
            assert (await client.get("/x", headers={"authorization": f"Bearer {token}x"})).status_code == 401
            ok = await client.get("/x", headers={"authorization": f"Bearer {token}", "host": "memory.lan"})
            assert ok.status_code == 200 and "set-cookie" not in ok.headers  # no anonymous session with a token
            # The bearer token is proof enough for a change: no browser sends it to another site.
            assert (await client.post("/x", headers={"authorization": f"Bearer {token}"})).status_code == 200
            page = await client.get("/x?a=1", headers={"accept": "text/html"})
            assert page.status_code == 303 and page.headers["location"] == "/login?next=%2Fx%3Fa%3D1"
            assert (await client.get("/login")).status_code == 200
            # Behind a proxy the browser's Origin is the allowed name on its default port.
            proxied = await client.get("/x", headers={"authorization": f"Bearer {token}",
                                                      "origin": "https://memory.lan"})
            assert proxied.status_code == 200
    run(check())


def test_sessions_start_end_and_expire() -> None:
    sessions = Sessions(hours=0.0)
    assert not sessions.valid(sessions.start())  # expired at once
    sessions = Sessions(hours=1.0)
    session = sessions.start()
    assert sessions.valid(session) and not sessions.valid(None) and not sessions.valid("x")
    sessions.end(session)
    assert not sessions.valid(session)


def test_settings_refuse_exposing_the_memory(tmp_path: Path) -> None:
    assert UiSettings.resolve(environ={}).token is None
    with pytest.raises(ConfigurationError, match=r"needs a bearer token.*SYNAPSE_UI_TOKEN"):
        UiSettings.resolve("192.168.1.20", environ={})
    token = secrets.token_urlsafe(32)
    assert UiSettings.resolve("192.168.1.20", environ={"SYNAPSE_UI_TOKEN": token}).token == token
    with pytest.raises(ConfigurationError, match="--allowed-host"):
        UiSettings.resolve("0.0.0.0", environ={"SYNAPSE_UI_TOKEN": token})
    with pytest.raises(ConfigurationError, match="--port"):
        UiSettings.resolve(port=70_000, environ={})
    secret = tmp_path / "token"
    secret.write_text(token)
    secret.chmod(0o644)
    with pytest.raises(ConfigurationError, match="chmod 600"):
        UiSettings.resolve("192.168.1.20", token_file=secret, environ={})
    secret.chmod(0o600)
    assert UiSettings.resolve("192.168.1.20", token_file=secret, environ={}).token == token
    with pytest.raises(ConfigurationError, match="needs a bearer token"):
        UiSettings(bind=Bind("10.0.0.1", 1))


def fact(predicate: str, obj: str, start: str, end: str | None = None, fid: str | None = None) -> Fact:
    moment = datetime.fromisoformat(start).replace(tzinfo=UTC)
    return Fact(id=fid or f"{predicate}-{obj}", subject="Dana", predicate=predicate, object=obj, valid_at=moment,
                invalid_at=None if end is None else datetime.fromisoformat(end).replace(tzinfo=UTC),
                recorded_at=moment, confidence=1.0, confirmations=1)


def test_the_timeline_draws_a_lane_per_predicate_and_stacks_overlapping_values() -> None:
    records = [fact("LIVES_IN", "Paris", "2019-01-01", "2021-01-01"), fact("LIVES_IN", "Berlin", "2021-01-01"),
               fact("KNOWS", "Erin", "2020-01-01"), fact("KNOWS", "Femi", "2020-06-01")]
    now = datetime(2024, 1, 1, tzinfo=UTC)
    drawn = timeline(records, shown=datetime(2020, 3, 1, tzinfo=UTC), now=now)
    assert [lane.predicate for lane in drawn.lanes] == ["KNOWS", "LIVES_IN"]
    knows, lives = drawn.lanes
    assert knows.height == 2 * lives.height  # Erin and Femi at once: two rows; Paris then Berlin: one
    assert [b.label for b in lives.bars] == ["Paris", "Berlin"] and lives.bars[0].y == lives.bars[1].y
    paris, berlin = lives.bars
    assert paris.holds and not berlin.holds and berlin.open_end and not paris.open_end
    assert paris.x < drawn.marker < berlin.x  # type: ignore[operator]
    assert abs(paris.x + paris.width - berlin.x) < 0.2  # Paris ends where Berlin begins
    assert [t.label for t in drawn.ticks] == [str(y) for y in range(2019, 2025)]
    assert timeline([], shown=now, now=now).lanes == []


def test_the_growth_chart_draws_each_series_that_has_values() -> None:
    at = datetime(2024, 1, 1, tzinfo=UTC)
    points = [GrowthPoint(at=at + timedelta(days=i), facts=i * 10, candidates=0, entities=i, observations=0)
              for i in range(5)]
    chart = growth_chart(Growth(scope="s", since=at, until=at + timedelta(days=4), points=points))
    assert chart is not None and [s.name for s in chart.series] == ["facts", "entities"]
    assert chart.top == 40 and len(chart.series[0].points.split()) == 5 and chart.series[0].last == 40
    assert growth_chart(Growth(scope="s")) is None


def test_url_parameters() -> None:
    assert when(None) is None and when("  ") is None
    assert when("1700000000") == 1_700_000_000 and when("1700000000.5") == 1_700_000_000.5
    assert when("2024-03-01") == "2024-03-01"
    page = Page(3, 10)
    assert (page.offset, page.read) == (20, 31)
    assert page.cut(list(range(31))) == (list(range(20, 30)), True)
    assert page.cut(list(range(25))) == (list(range(20, 25)), False)


def test_forms_send_the_browser_back_to_this_site_only() -> None:
    from synapse_graph.ui.pages import _back

    assert _back("/entity?name=x", "/") == "/entity?name=x"
    for elsewhere in ("//evil.example/", "https://evil.example/", "/\\evil.example", None, ""):
        assert _back(elsewhere, "/review") == "/review"


def test_the_vendored_libraries_are_the_published_files_with_their_licences() -> None:
    table = (UI / "static" / "vendor" / "README.md").read_text(encoding="utf-8")
    for folder in ("htmx-2.0.11", "cytoscape-3.35.0"):
        [script] = (UI / "static" / "vendor" / folder).glob("*.min.js")
        digest = hashlib.sha256(script.read_bytes()).hexdigest()
        assert f"`{folder}/`" in table and digest in table, folder
        assert (script.parent / "LICENSE").read_text(encoding="utf-8").strip()
    used = re.findall(r'src="/static/vendor/([^"]+)"', "".join(
        p.read_text(encoding="utf-8") for p in (UI / "templates").rglob("*.html")))
    assert sorted(set(used)) == ["cytoscape-3.35.0/cytoscape.min.js", "htmx-2.0.11/htmx.min.js"]


def test_templates_never_turn_escaping_off_nor_load_anything_from_elsewhere() -> None:
    for template in (UI / "templates").rglob("*.html"):
        text = template.read_text(encoding="utf-8")
        assert not re.search(r"\|\s*safe\b|autoescape\s+false|Markup", text), template.name
        assert not re.search(r"""(src|href)=["']?(https?:)?//""", text), template.name
        assert "<script>" not in text and " style=" not in text and "<style" not in text, template.name


def test_whole_scope_reads_are_kept_until_the_scope_changes() -> None:
    from synapse_graph.ui import views

    class Store:
        written: datetime | None = None

        async def last_write(self) -> datetime | None:
            return self.written

    store, loads = Store(), []

    async def load() -> int:
        loads.append(1)
        return len(loads)

    async def check() -> None:
        kept = views.Aggregates()
        first, read_at = await kept.read(store, "counts", load, timed=True)  # type: ignore[arg-type]
        assert (first, len(loads)) == (1, 1)
        assert (await kept.read(store, "counts", load, timed=True))[0] == 1  # type: ignore[arg-type]
        store.written = datetime.now(UTC)  # a write: read again before answering
        assert (await kept.read(store, "counts", load, timed=True))[0] == 2  # type: ignore[arg-type]
        kept._kept["counts"].read_at -= timedelta(seconds=views.TIMED_SECONDS)  # a minute later
        assert (await kept.read(store, "counts", load, timed=True))[0] == 2  # type: ignore[arg-type]
        await asyncio.sleep(0.01)  # the background read ran
        value, again = await kept.read(store, "counts", load, timed=True)  # type: ignore[arg-type]
        assert value == 3 and again > read_at
        kept._kept["counts"].read_at -= timedelta(seconds=views.TIMED_SECONDS)
        assert (await kept.read(store, "counts", load, timed=False))[0] == 3  # not timed: kept until a write
        assert len(loads) == 3
    run(check())
