"""Fixtures of the web inspector's tests: a small story in a scope of its own, and the inspector serving it.

The inspector runs in this process (uvicorn in a thread, its own event loop), over the same store a
synchronous :class:`~synapse_graph.Memory` reads, so what a page shows is compared with the library's
answers for the same question. Chromium is started once per test session.
"""

from __future__ import annotations

import contextlib
import socket
import threading
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import pytest

from synapse_graph import Memory, Triple
from tests.ci import require, unavailable

CHROMIUM = "/usr/bin/chromium"
# Without these, Debian's Chromium waits on connections to Google that cannot succeed here.
CHROMIUM_FLAGS = [
    "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage",
    # A host name that resolves to loopback: what a DNS-rebinding attack makes of the attacker's name.
    "--host-resolver-rules=MAP rebound.test 127.0.0.1",
]
EXTRACTOR = "extractor-model"
XSS = "<img src=x onerror=alert(1)>"
MARKUP = "[bold]"
DANA = "Dana Reyes"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@dataclass
class Story:
    """The scope the inspector shows and what the tests need to know about it."""

    memory: Memory
    scope: str
    location: str
    auth: tuple[str, str] | None
    before_move: datetime
    """An instant between Dana's move to Berlin being recorded and her move to London being recorded."""


def tell(memory: Memory) -> datetime:
    """Dana's story: moves (superseded values), a job change, hostile names, candidates, a dispute, an alias,
    observations and a session. Returns an instant when the memory knew less than it knows now."""
    memory.upsert([Triple(subject="Dana Reyes", predicate="LIVES_IN", object="Paris", valid_at="2019-03-01"),
                   Triple(subject="Dana Reyes", predicate="WORKS_AT", object="Acme", valid_at="2019-04-01"),
                   Triple(subject="Acme", predicate="LOCATED_IN", object="Paris", valid_at="2010-01-01")],
                  source="onboarding chat")
    memory.upsert(Triple(subject="Dana Reyes", predicate="LIVES_IN", object="Berlin", valid_at="2021-02-01"))
    time.sleep(1.2)
    between = datetime.now(UTC)
    time.sleep(1.2)
    memory.upsert(Triple(subject="Dana Reyes", predicate="LIVES_IN", object="London", valid_at="2022-09-15T09:30:00Z"))
    memory.upsert(Triple(subject="Dana Reyes", predicate="WORKS_AT", object="Globex", valid_at="2023-01-09"))
    memory.upsert(Triple(subject="Dana Reyes", predicate="KNOWS", object=XSS, valid_at="2020-05-01"))
    memory.upsert(Triple(subject=MARKUP, predicate="KNOWS", object="Dana Reyes", valid_at="2021-05-01"))
    memory.upsert([Triple(subject="Dana Reyes", predicate="LIKES", object="Jazz", confidence=0.3),
                   Triple(subject="Dana Reyes", predicate="PLAYS", object="Chess", confidence=0.3)], model=EXTRACTOR)
    memory.observe("Dana Reyes", ["Prefers email over phone", "Allergic to peanuts"])
    memory.alias("Dana Reyes", "Dana")
    [located] = memory.facts("Acme", "LOCATED_IN")
    memory.feedback(located, "stale")
    memory.register_session("chat-42")
    return between


@pytest.fixture
def story(backend_settings: dict[str, Any]) -> Iterator[Story]:
    require("fastapi")
    settings = dict(backend_settings)
    location = settings.pop("location")
    scope = f"ui-{uuid.uuid4().hex[:10]}"
    memory = Memory(location, scope=scope, client="story-agent", **settings)
    try:
        between = tell(memory)
        yield Story(memory, scope, location, settings.get("auth"), between)
    finally:
        with contextlib.suppress(Exception):
            memory.purge(scope=scope)
        memory.close()


@contextlib.contextmanager
def serving(story: Story, *, token: str | None = None, host: str = "127.0.0.1", allowed_hosts: tuple[str, ...] = (),
            allow_review: bool = True, allow_erasure: bool = True, page_size: int = 50) -> Iterator[str]:
    """The inspector over the story's scope, in a thread; yields its base URL."""
    require("uvicorn")
    import uvicorn

    from synapse_graph.aio import AsyncMemory
    from synapse_graph.listening import Bind
    from synapse_graph.ui import CLIENT, UiSettings, create_app

    port = free_port()
    settings = UiSettings(bind=Bind(host, port), token=token, allowed_hosts=allowed_hosts, allow_review=allow_review,
                          allow_erasure=allow_erasure, page_size=page_size)
    memory = AsyncMemory(story.location, scope=story.scope, auth=story.auth, client=CLIENT)
    server = uvicorn.Server(uvicorn.Config(create_app(memory, settings), host=host, port=port, log_level="warning",
                                           lifespan="on"))
    thread = threading.Thread(target=server.run, name="inspector", daemon=True)
    thread.start()
    deadline = time.monotonic() + 60
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("the inspector did not start")
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=30)


@pytest.fixture(scope="module")
def chromium() -> Iterator[Any]:
    """One headless Chromium per test module (each test opens its own context). Not per session: while
    Playwright's sync API is open, its event loop is the main thread's running loop, so any later test
    calling asyncio.run() would fail."""
    import shutil

    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        unavailable("playwright is not installed (pip install -e '.[test]')")
    if not shutil.which(CHROMIUM):
        unavailable(f"{CHROMIUM} is missing (apt-get install -y chromium)")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS, timeout=60_000)
        try:
            yield browser
        finally:
            browser.close()
