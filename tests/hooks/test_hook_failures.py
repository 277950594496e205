"""Hooks that meet a problem: it is logged where the user can see it, and no later hook breaks over it.

Each test runs the real ``synapse-graph hook`` commands against a fake model, on both backends.
"""

from __future__ import annotations

import json
import subprocess
import time
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest

from synapse_graph import Memory
from synapse_graph.testing import FakeModelServer
from tests.hooks.transcripts import EXE, SESSION, Hook, TranscriptWriter, owners, payload

pytestmark = [pytest.mark.integration, pytest.mark.parametrize("api", ["sync"])]  # the hooks use no Python API
EVENTS = {"stop": "Stop", "pre-compact": "PreCompact", "session-start": "SessionStart"}


def jobs(hook_env: dict[str, str], scope: str, *, wait_for: int = 1) -> list[dict[str, Any]]:
    """The offload jobs ``synapse-graph jobs`` lists for the scope (waiting a while for a detached one)."""
    deadline = time.monotonic() + 120
    while True:
        listed = subprocess.run([EXE, "jobs", "--json", "--scope", scope], capture_output=True, text=True,
                                env=hook_env, check=True, timeout=120)
        found: list[dict[str, Any]] = json.loads(listed.stdout)
        if len([j for j in found if j["status"] in ("done", "failed")]) >= wait_for or time.monotonic() > deadline:
            return found
        time.sleep(0.3)


@pytest.mark.parametrize("command", ["stop", "pre-compact"])
def test_an_offload_without_a_model_is_logged_as_a_failed_job(command: str, memory: Memory, model: FakeModelServer,
                                                              hook: Hook, hook_env: dict[str, str],
                                                              transcript: TranscriptWriter) -> None:
    for _ in range(12):
        transcript.exchange()
    done = hook(command, payload(EVENTS[command], transcript), SYNAPSE_OFFLOAD_URL="")
    assert (done.returncode, done.stdout) == (0, "")
    [job] = jobs(hook_env, memory.scope)
    assert (job["status"], job["session"], job["turns"]) == ("failed", SESSION, 8)  # exchanges 1 and 2
    assert job["error"].startswith("ConfigurationError: no extraction model configured")
    assert model.requests == []


def test_a_deeply_nested_transcript_line_is_skipped_and_counted(memory: Memory, session: Memory, hook: Hook,
                                                                 hook_env: dict[str, str],
                                                                 transcript: TranscriptWriter) -> None:
    transcript.exchange()
    with transcript.path.open("a") as handle:
        handle.write('{"type": "user", "message": {"role": "user", "content": ' + "[" * 100_000 + "]" * 100_000
                     + "}}\n")
    for _ in range(11):
        transcript.exchange()
    for command in ("pre-compact", "session-start"):
        done = hook(command, payload(EVENTS[command], transcript, source="resume"))
        assert (done.returncode, done.stderr) == (0, ""), command
    assert owners(session) == {1, 2}
    [job] = jobs(hook_env, memory.scope)
    assert job["status"] == "done" and "1 line of the transcript could not be read (skipped)" in job["problems"]
    transcript.exchange()  # and the next hook of the session offloads as before
    assert hook("pre-compact", payload("PreCompact", transcript)).stderr == ""
    assert owners(session) == {1, 2, 3}


def test_a_conversation_resumed_after_its_session_expired_goes_on_in_a_linked_session(
        memory: Memory, make_memory: Callable[..., Memory], hook: Hook, transcript: TranscriptWriter) -> None:
    # The conversation's session took its last writes seven days ago (here: two seconds).
    first = make_memory(scope=memory.scope, session=SESSION)
    first.register_session(ttl=timedelta(seconds=2))
    first.upsert([("service-100", "OWNED_BY", "team-100")], memory_scope="session")
    while first.sessions()[0].status() != "expired":
        time.sleep(0.2)
    for _ in range(13):
        transcript.exchange()
    done = hook("pre-compact", payload("PreCompact", transcript, trigger="auto"))
    assert (done.returncode, done.stderr) == (0, "")
    linked = f"{SESSION}.2"
    assert {s.id: s.status() for s in memory.sessions()} == {SESSION: "expired", linked: "active"}
    assert owners(make_memory(scope=memory.scope, session=linked)) == {1, 2, 3}
    assert owners(first) == {100}  # the expired session keeps its memory and takes no writes
    # After the compaction, the session gets back what both parts of the conversation offloaded.
    transcript.compaction()
    transcript.prompt("Who owns service-100 and service-2 again?")
    started = hook("session-start", payload("SessionStart", transcript, source="compact"))
    context = json.loads(started.stdout)["hookSpecificOutput"]["additionalContext"]
    assert "service-100 OWNED_BY team-100" in context and "service-2 OWNED_BY team-2" in context


def test_a_revoked_session_is_not_continued(memory: Memory, make_memory: Callable[..., Memory], hook: Hook,
                                            hook_env: dict[str, str], transcript: TranscriptWriter) -> None:
    make_memory(scope=memory.scope, session=SESSION).register_session()
    memory.revoke_session(SESSION)
    for _ in range(12):
        transcript.exchange()
    done = hook("pre-compact", payload("PreCompact", transcript))
    assert done.returncode == 0 and "SessionClosedError" in done.stderr and "revoked" in done.stderr
    assert [s.id for s in memory.sessions()] == [SESSION]
    [job] = jobs(hook_env, memory.scope)
    assert job["status"] == "failed" and "revoked" in job["error"]
