"""A session starts with what changed since the previous one: the SessionStart hook, run as Claude Code runs it."""

from __future__ import annotations

import json

import pytest

from synapse_graph import Memory, Triple
from tests.hooks.transcripts import Hook, TranscriptWriter, payload

pytestmark = pytest.mark.integration

FIRST = "0b6f9d3c-1a2e-4f5b-8c7d-6e5f4a3b2c1d"
SECOND = "7c1e2d3f-4a5b-4c6d-9e8f-0a1b2c3d4e5f"
HEADING = "Changed since your last session"


def changed_lines(context: str) -> list[str]:
    """The lines of the context's section of changes, in order ([] if it has none)."""
    lines = context.splitlines()
    start = next((i for i, line in enumerate(lines) if line.startswith(HEADING)), None)
    if start is None:
        return []
    section = []
    for line in lines[start + 1:]:
        if not line.startswith("- "):
            break
        section.append(line[2:])
    return section


def start_session(hook: Hook, transcript: TranscriptWriter, session: str) -> str:
    done = hook("session-start", payload("SessionStart", transcript, source="startup", session_id=session))
    assert (done.returncode, done.stderr) == (0, "")
    return str(json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"]) if done.stdout else ""


def test_a_second_session_starts_with_exactly_what_was_recorded_since_the_first(
        memory: Memory, hook: Hook, transcript: TranscriptWriter) -> None:
    memory.upsert([Triple(subject="Dana", predicate="LIVES_IN", object="Paris", valid_at="2019-01-01"),
                   Triple(subject="Dana", predicate="WORKS_AT", object="Acme", valid_at="2020-01-01")])
    first = start_session(hook, transcript, FIRST)
    assert "Dana LIVES_IN Paris" in first and changed_lines(first) == []  # no session before the first
    # Between the two sessions, the memory learns and unlearns:
    memory.upsert(Triple(subject="Dana", predicate="LIVES_IN", object="London", valid_at="2022-09-15"))
    memory.retract("Dana", "WORKS_AT", at="2024-01-31")
    memory.upsert(Triple(subject="Dana", predicate="LIKES", object="Tea", valid_at="2024-03-01"))
    second = start_session(hook, transcript, SECOND)
    assert changed_lines(second) == [
        "Dana WORKS_AT Acme ended 2024-01-31 (retracted)",  # a value ended, latest first
        "Dana LIVES_IN London from 2022-09-15 (before: Paris)",  # a value replaced, said once
        "Dana LIKES Tea from 2024-03-01 (new)",
    ]
    assert second.index(HEADING) < second.index("What to know")
    # A session that starts again (compaction, resume) is not the next session: the same changes.
    again = hook("session-start", payload("SessionStart", transcript, source="compact", session_id=SECOND))
    assert changed_lines(json.loads(again.stdout)["hookSpecificOutput"]["additionalContext"]) == changed_lines(second)
