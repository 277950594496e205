"""Changing the embedding model, on both backends: the endpoint embedder serves recall's vector leg (both APIs),
and ``synapse-graph reembed`` embeds a scope again with another model, after which that model's recall works
and the old one is refused."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from synapse_graph import EmbedderMismatchError, Memory
from synapse_graph.embedders.endpoint import OpenAIEmbedder
from tests.embedding_server import embeddings_endpoint
from tests.integration.test_recall import TrigramEmbedder

pytestmark = pytest.mark.integration
CLI = Path(sys.executable).parent / "synapse-graph"


def test_an_endpoint_embedder_serves_the_vector_leg(make_memory: Callable[..., Memory]) -> None:
    with embeddings_endpoint() as endpoint:
        memory = make_memory(embedder=OpenAIEmbedder(endpoint.url, "fake-embed"))
        try:
            memory.observe("Dana", ["Dana bought a car last week.", "Dana plays chess."])
            found = memory.recall("an automobile", limit=1)  # no shared word: the double's synonym
            assert [o.text for o in found.observations] == ["Dana bought a car last week."]
            assert found.observations[0].why is not None and found.observations[0].why.legs == ["vector"]
            sent = [text for r in endpoint.requests for text in r["input"]]
            assert "Dana plays chess." in sent and "an automobile" in sent  # written memories and the question
        finally:
            memory.purge(scope=memory.scope)


def _cli(location: str, scope: str, env: dict[str, str], *args: str, code: int = 0) -> dict[str, Any]:
    base = {k: v for k, v in os.environ.items() if not k.startswith("SYNAPSE_")}
    done = subprocess.run([str(CLI), "reembed", *args, "--db", location, "--scope", scope, "--json"],
                          env={**base, **env}, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == code, done.stdout + done.stderr
    found: dict[str, Any] = json.loads(done.stdout if code == 0 else done.stderr.splitlines()[-1])
    return found


def test_reembed_switches_a_scope_to_another_model(make_memory: Callable[..., Memory], backend_name: str,
                                                   backend_settings: dict[str, Any]) -> None:
    scope = f"test-{uuid.uuid4().hex[:12]}"
    old = make_memory(scope=scope, embedder=TrigramEmbedder())
    old.observe("Dana", ["Dana bought a car last week."])
    env = {}
    if backend_name == "neo4j":
        user, password = backend_settings["auth"]
        env = {"SYNAPSE_NEO4J_USER": user, "SYNAPSE_NEO4J_PASSWORD": password}
    try:
        with embeddings_endpoint("nomic-test") as endpoint:
            new = make_memory(scope=scope, embedder=OpenAIEmbedder(endpoint.url, "nomic-test"))
            with pytest.raises(EmbedderMismatchError, match="reembed"):
                new.recall("an automobile")
            refused = _cli(backend_settings["location"], scope, env, "--embedder", "http://10.9.9.9:11434",
                           "--embedder-model", "nomic-test", code=2)
            assert refused["error"] == "ConfigurationError" and "--allow-remote" in refused["message"]
            done = _cli(backend_settings["location"], scope, {**env, "SYNAPSE_EMBEDDER": endpoint.url,
                                                              "SYNAPSE_EMBEDDER_MODEL": "nomic-test"})
            assert (done["embedded"], done["embedder"], done["dimensions"]) == (2, "nomic-test", 384)
            assert [o.text for o in new.recall("an automobile", limit=1).observations] == [
                "Dana bought a car last week."]
            with pytest.raises(EmbedderMismatchError):
                old.recall("an automobile")
            again = _cli(backend_settings["location"], scope, env, "--embedder", endpoint.url, "--embedder-model",
                         "nomic-test")
            assert again["embedded"] == 0  # nothing lacks this model's vectors any more
    finally:
        make_memory(scope=scope).purge(scope=scope)
