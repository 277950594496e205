"""Fixtures of the embedded-server tests: stores that leave no process behind, client processes, a short linger."""

from __future__ import annotations

import contextlib
import os
import signal
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from synapse_graph import Memory
from synapse_graph.backends.embedded import LINGER_ENV
from tests.integration.embedded_processes import LINGER_S, Client, servers_in, wait_until


@pytest.fixture
def lingering(monkeypatch: pytest.MonkeyPatch) -> None:
    """Servers started by the test (and its client processes) linger ``LINGER_S`` after their last client."""
    monkeypatch.setenv(LINGER_ENV, str(LINGER_S))


@pytest.fixture
def store_dir(tmp_path: Path) -> Iterator[Path]:
    """A directory for the test's stores; afterwards nothing may still run in it."""
    yield tmp_path
    wait_until(lambda: not servers_in(tmp_path), LINGER_S + 15)  # none outlives its linger
    left = servers_in(tmp_path)
    for pid in left:  # ours by their working directory: never leave a server behind
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGCONT)
            os.kill(pid, signal.SIGKILL)
    assert not left, f"processes left running in the test's stores: {left}"


@pytest.fixture
def clients() -> Iterator[list[Client]]:
    started: list[Client] = []
    yield started
    for client in started:
        if client.process.poll() is None:
            client.process.kill()
            client.process.wait(30)


@pytest.fixture
def plain(backend_settings: dict[str, Any]) -> Iterator[Memory]:
    """A synchronous Memory in a fresh scope (query plans and raw statements do not depend on the API)."""
    settings = dict(backend_settings)
    with Memory(settings.pop("location"), scope=f"test-{uuid.uuid4().hex[:12]}", **settings) as memory:
        yield memory
        memory.purge(scope=memory.scope)
