"""Memory.offload: turns of a bound session become that session's private memory (both APIs, both backends)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from synapse_graph import ConfigurationError, Memory
from synapse_graph.offload import OpenAIChatClient
from synapse_graph.testing import FakeModelServer

pytestmark = pytest.mark.integration
REPLY = '{"triples": [{"subject": "User", "predicate": "LIVES_IN", "object": "Lyon", "confidence": 0.95}]}'


def test_offload_fills_the_session_memory(make_memory: Callable[..., Memory], tmp_path: Path,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SYNAPSE_OFFLOAD_JOBS", str(tmp_path / "jobs.jsonl"))
    with FakeModelServer([REPLY]) as server:
        memory = make_memory(session="chat-1", offload_model=OpenAIChatClient(server.url, "fake", timeout=10))
        memory.register_session()
        job_id = memory.offload([{"role": "user", "text": "I live in Lyon now, mail me at dana@example.com"}])
        job = memory.offload_job(job_id, wait=None)
        assert (job.status, job.created, job.session) == ("done", 1, "chat-1")
        assert job.redacted == ["email"] and "dana@example.com" not in json.dumps(server.requests[0])
        [fact] = memory.facts("me", memory_scope="session")
        assert (fact.object, fact.source, fact.model, fact.session) == ("Lyon", "extracted", "fake", "chat-1")
        assert memory.facts("me") == []  # durable memory untouched
        assert [f.object for f in memory.recall("where does the user live?").facts] == ["Lyon"]


def test_offload_needs_a_model(memory: Memory) -> None:
    with pytest.raises(ConfigurationError, match="offload_model"):
        memory.offload([{"role": "user", "text": "hello"}])
