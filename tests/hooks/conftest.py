"""Fixtures of the hook tests: the environment Claude Code gives the hooks, the real command, a transcript.

The memory is the test's backend; the model is a fake OpenAI-compatible server on loopback
that extracts exactly the facts it is shown (see ``transcripts.facts_model``).
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from synapse_graph import Memory
from synapse_graph.testing import FakeModelServer
from tests.hooks.transcripts import EXE, SESSION, Hook, TranscriptWriter, facts_model


@pytest.fixture
def model() -> Iterator[FakeModelServer]:
    with FakeModelServer(facts_model) as server:
        yield server


@pytest.fixture
def hook_env(memory: Memory, model: FakeModelServer, tmp_path: Path, request: pytest.FixtureRequest,
             backend_name: str) -> dict[str, str]:
    """The environment Claude Code would give the hooks: where the memory is, which model, where state goes."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SYNAPSE_", "CLAUDE"))}
    env.update({"SYNAPSE_SCOPE": memory.scope, "SYNAPSE_OFFLOAD_URL": model.url,
                "SYNAPSE_OFFLOAD_MODEL": "fake-extractor", "SYNAPSE_HOOK_STATE": str(tmp_path / "state"),
                "SYNAPSE_OFFLOAD_JOBS": str(tmp_path / "jobs.jsonl"), "SYNAPSE_CONFIG": str(tmp_path / "none.json")})
    if backend_name == "falkordb":
        env["SYNAPSE_DB"] = request.getfixturevalue("falkordb_location")
    else:
        settings = request.getfixturevalue("neo4j_settings")
        env.update({"SYNAPSE_DB": settings["location"], "SYNAPSE_NEO4J_USER": settings["auth"][0],
                    "SYNAPSE_NEO4J_PASSWORD": settings["auth"][1]})
    return env


@pytest.fixture
def hook(hook_env: dict[str, str]) -> Hook:
    def run(command: str, payload: dict[str, Any] | str, **env: str) -> subprocess.CompletedProcess[str]:
        stdin = payload if isinstance(payload, str) else json.dumps(payload)
        return subprocess.run([EXE, "hook", command], input=stdin, capture_output=True, text=True, timeout=240,
                              env={**hook_env, **env}, check=False)
    return run


@pytest.fixture
def transcript(tmp_path: Path) -> TranscriptWriter:
    writer = TranscriptWriter(tmp_path / "projects" / "-home-dev-acme-web" / f"{SESSION}.jsonl")
    writer.path.parent.mkdir(parents=True)
    writer.header()
    return writer


@pytest.fixture
def session(memory: Memory, make_memory: Callable[..., Memory]) -> Memory:
    """The memory of the Claude Code session the hooks serve (offloaded turns become its private memory)."""
    return make_memory(scope=memory.scope, session=SESSION)
