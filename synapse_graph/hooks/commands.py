"""What the hook commands do with the JSON Claude Code sends them on stdin.

- ``session-start`` (sources ``startup``, ``resume``, ``compact``): prints the recalled
  memory as additional context for the session.
- ``pre-compact``: offloads the turns older than the last ``keep_exchanges`` exchanges,
  and waits for it, so the memory has them when the compacted session starts again.
- ``stop``: the same, in a detached background process, so the session is not held up.

Every command exits 0: a problem becomes one line on stderr, never a broken session.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from synapse_graph.errors import ConfigurationError, InvalidInputError
from synapse_graph.hooks.config import HookConfig, load_config
from synapse_graph.hooks.conversation import chain, next_session
from synapse_graph.hooks.state import Position, TranscriptState, record_start, start_index, window_start
from synapse_graph.hooks.transcript import TranscriptTurn, read_transcript
from synapse_graph.rules.changes import CHANGES_READ, brief, most_relevant, previous_start
from synapse_graph.rules.text import USER_NAME

EVENTS = {"session-start": "SessionStart", "pre-compact": "PreCompact", "stop": "Stop"}
OFFLOADS = ("pre-compact", "stop", "offload")
MAX_TURNS_PER_JOB = 400
MAX_PAYLOAD_BYTES = 1_000_000
CLIENT = "synapse-graph-hook"


@dataclass(frozen=True)
class Payload:
    """The fields of a hook's stdin JSON that these commands use."""

    event: str
    session_id: str | None
    transcript_path: str | None
    cwd: str | None
    source: str | None = None
    trigger: str | None = None
    stop_hook_active: bool = False


def read_payload(text: str) -> Payload:
    try:
        data = json.loads(text) if text.strip() else {}
    except ValueError:
        raise InvalidInputError("the hook input on stdin is not JSON") from None
    if not isinstance(data, dict):
        raise InvalidInputError("the hook input on stdin is not a JSON object")

    def text_field(name: str) -> str | None:
        value = data.get(name)
        return value if isinstance(value, str) and value else None

    return Payload(event=text_field("hook_event_name") or "", session_id=text_field("session_id"),
                   transcript_path=text_field("transcript_path"), cwd=text_field("cwd"),
                   source=text_field("source"), trigger=text_field("trigger"),
                   stop_hook_active=data.get("stop_hook_active") is True)


def open_memory(config: HookConfig, session: str | None = None) -> Any:
    """The memory of the hook's project, bound to the Claude Code session (registered on first use).

    A conversation whose session expired goes on in a new session linked to it (see ``conversation``).
    """
    memory = _memory(config, session)
    if session is None:
        return memory
    try:
        if memory.register_session().status() == "expired":  # idempotent: a session's expiry never moves
            current = next_session(chain(memory.sessions(), session), session)
            if current != session:
                memory.close()
                memory = _memory(config, current)
                memory.register_session()
    except BaseException:
        memory.close()
        raise
    return memory


def _memory(config: HookConfig, session: str | None) -> Any:
    from synapse_graph.memory import Memory

    return Memory(config.db, scope=config.scope, client=CLIENT, auth=config.auth, session=session)


# -- SessionStart --------------------------------------------------------------------------------


def recall_query(payload: Payload, turns: list[TranscriptTurn]) -> str:
    """What the session is about: the project's folder name and the last prompts the user typed."""
    prompts = [t.turn.text for t in turns if t.prompt][-3:]
    project = Path(payload.cwd).name if payload.cwd else ""
    return " ".join([project, *prompts])[-2_000:]


def session_context(memory: Any, payload: Payload, turns: list[TranscriptTurn], limit: int,
                    earlier: Sequence[Any] = ()) -> str:
    """The memory a session starts with, as text for the model (empty when nothing was recalled).

    The one place that decides what a session is given: what changed in the durable scope since the
    previous session began (the most relevant first), the durable scope's digest (pinned facts, the
    user, the central entities), then what this session's own memory recalls for what it is about (the
    turns offloaded before a compaction), then ``earlier``: what the conversation's earlier sessions
    recalled. Each fact carries its trust qualifiers.
    """
    digest = memory.digest(limit=limit)
    recalled: list[Any] = []
    if memory.session is not None:
        recalled = memory.recall(recall_query(payload, turns), limit=limit, memory_scope="session").facts
    recalled = [*recalled, *earlier][:limit]
    since, changed = changes_since_last_session(memory, [USER_NAME, *digest.entities], limit)
    if not digest.facts and not recalled and not changed:
        return ""
    lines = [f"Memory from synapse-graph (scope {memory.scope!r}). {digest.notice}"]
    if changed:
        lines.append(f"Changed since your last session (it began {since}), most relevant first:")
        lines += [f"- {line}" for line in changed]
    if digest.facts:
        lines.append("What to know (durable memory):")
        lines += [_line(fact) for fact in digest.facts]
    if recalled:
        lines.append("Earlier in this session (offloaded before the context was compacted):")
        lines += [_line(fact) for fact in recalled]
    return "\n".join(lines)


def changes_since_last_session(memory: Any, about: Sequence[str], limit: int) -> tuple[str, list[str]]:
    """What changed in the durable scope since the session before this one began (the session registry), as
    lines, most relevant first, at most ``limit``; and when that session began (nothing without one)."""
    since = previous_start(memory.sessions(), memory.session)
    if since is None:
        return "", []
    found = memory.changes(since, limit=CHANGES_READ).changes
    return since.isoformat(timespec="seconds"), brief(most_relevant(found, about, limit))


def _line(fact: Any) -> str:
    since = fact.valid_at.date().isoformat()
    hedges = "; ".join(fact.qualifiers())
    return (f"- {fact.subject} {fact.predicate} {fact.object} (since {since}; confidence {fact.confidence:.2f}"
            + (f"; {hedges}" if hedges else "") + ")")


def session_start(payload: Payload, config: HookConfig) -> str:
    turns = _turns(payload)
    with open_memory(config, payload.session_id) as memory:
        earlier: list[Any] = []
        if payload.session_id is not None and memory.session != payload.session_id:  # a continued conversation
            for link in reversed(chain(memory.sessions(), payload.session_id)[:-1]):
                with _memory(config, link.id) as older:
                    earlier += older.recall(recall_query(payload, turns), limit=config.recall_limit,
                                            memory_scope="session").facts
        context = session_context(memory, payload, turns, config.recall_limit, earlier)
    if not context:
        return ""
    return json.dumps({"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": context}})


# -- PreCompact and Stop: offload ---------------------------------------------------------------


@dataclass(frozen=True)
class OffloadOutcome:
    status: str
    """``nothing`` (all older turns already offloaded), ``busy`` (another offload holds the transcript),
    or the job's status."""
    turns: int = 0
    created: int = 0
    error: str | None = None


def offload_transcript(payload: Payload, config: HookConfig, *,
                       make_client: Callable[[HookConfig], Any] | None = None) -> OffloadOutcome:
    """Offload the turns older than the last ``keep_exchanges`` exchanges that were not offloaded yet.

    Whatever stops it before its job runs (no model configured, the store unreachable) is logged as
    a failed job, so ``synapse-graph jobs`` shows it even when no one reads the hook's stderr.
    """
    chunk: list[TranscriptTurn] = []
    try:
        if not payload.transcript_path:
            raise InvalidInputError("the hook input has no transcript_path")
        state = TranscriptState(payload.transcript_path)
        with state.locked() as have_lock:
            if not have_lock:
                return OffloadOutcome("busy")
            transcript = read_transcript(payload.transcript_path)
            turns = transcript.turns
            start = start_index(turns, state.load())
            end = record_start(turns, min(window_start(turns, config.keep_exchanges), start + MAX_TURNS_PER_JOB))
            if end <= start:
                return OffloadOutcome("nothing")
            chunk = turns[start:end]
            job = _offload(payload, config, chunk, make_client or model_client, transcript.skipped)
            if job.status == "done":
                state.save(Position(chunk[-1].line + 1, chunk[-1].uuid))
            return OffloadOutcome(job.status, len(chunk), job.created, job.error)
    except Exception as exc:
        log_failed_offload(config, payload, len(chunk), exc)
        raise


def _offload(payload: Payload, config: HookConfig, chunk: list[TranscriptTurn],
             make_client: Callable[[HookConfig], Any], skipped: int) -> Any:
    """Run one offload job of the chunk (in the session the conversation writes to) and wait for it."""
    client = make_client(config)
    from synapse_graph.offload.offloader import Offloader

    notes = [f"{skipped} line{'s' if skipped > 1 else ''} of the transcript could not be read (skipped)"] \
        if skipped else []
    with open_memory(config, payload.session_id) as memory:
        offloader = Offloader(memory, client)
        try:
            return offloader.wait(offloader.submit([t.turn for t in chunk], session=memory.session, notes=notes),
                                  timeout=config.timeout + 30)
        finally:
            offloader.close(wait=False)


def log_failed_offload(config: HookConfig | None, payload: Payload | None, turns: int, exc: BaseException) -> None:
    """Record an offload that failed before its job ran as a failed job (never raises)."""
    from synapse_graph.offload.jobs import FileJobLog, Job, error_text, utcnow

    now = utcnow()
    scope = config.scope if config is not None else os.environ.get("SYNAPSE_SCOPE") or HookConfig.scope
    job = Job(id=uuid.uuid4().hex, scope=scope, session=payload.session_id if payload else None, status="failed",
              submitted_at=now, finished_at=now, turns=turns, model=config.model if config else None,
              error=error_text(exc))
    with contextlib.suppress(Exception):  # an unwritable log must not hide the error itself
        FileJobLog().record(job)


def model_client(config: HookConfig) -> Any:
    from synapse_graph.offload.client import OpenAIChatClient

    if not config.model_url or not config.model:
        raise ConfigurationError(
            "no extraction model configured: set SYNAPSE_OFFLOAD_URL and SYNAPSE_OFFLOAD_MODEL "
            "(or model_url and model in the config file)")
    return OpenAIChatClient(config.model_url, config.model, api_key=config.api_key,
                            allow_remote=config.allow_remote, timeout=config.timeout,
                            response_format=config.response_format)  # type: ignore[arg-type]


def spawn_offload(payload_text: str) -> None:
    """Run the offload in a detached process that outlives the hook (its turns stay in that process)."""
    child = subprocess.Popen(
        # -P: the library installed, never a `synapse_graph` folder of the working directory (the user's project)
        [sys.executable, "-P", "-m", "synapse_graph.hooks", "offload"], stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True, env=dict(os.environ))
    assert child.stdin is not None
    child.stdin.write(payload_text.encode())
    child.stdin.close()


def _turns(payload: Payload) -> list[TranscriptTurn]:
    if not payload.transcript_path or not os.path.exists(payload.transcript_path):
        return []
    return read_transcript(payload.transcript_path).turns


# -- the entry point -----------------------------------------------------------------------------


def run(command: str, stdin: TextIO, stdout: TextIO, stderr: TextIO, *, detach: bool | None = None) -> int:
    """Run one hook command; always returns 0, reporting a problem as one line on stderr."""
    payload: Payload | None = None
    try:
        text = stdin.read(MAX_PAYLOAD_BYTES)
        payload = read_payload(text)
        config = load_config()
    except Exception as exc:
        if command in OFFLOADS:
            log_failed_offload(None, payload, 0, exc)
        return _failed(command, exc, stderr)
    try:
        if command == "session-start":
            output = session_start(payload, config)
            if output:
                stdout.write(output + "\n")
        elif command == "pre-compact":
            _report(offload_transcript(payload, config), stderr)
        elif command == "stop":
            if detach is None:
                detach = os.environ.get("SYNAPSE_HOOK_SYNC") != "1"
            if detach:
                spawn_offload(text)
            else:
                _report(offload_transcript(payload, config), stderr)
        elif command == "offload":  # the detached worker of `stop`
            _report(offload_transcript(payload, config), stderr)
        else:
            raise InvalidInputError(f"unknown hook command {command!r}; use one of {', '.join(EVENTS)}")
    except Exception as exc:  # a hook must never break the host session
        return _failed(command, exc, stderr)
    return 0


def _failed(command: str, exc: Exception, stderr: TextIO) -> int:
    message = " ".join(str(exc).split())[:300]
    stderr.write(f"synapse-graph hook {command}: error: {type(exc).__name__}: {message}\n")
    return 0


def _report(outcome: OffloadOutcome, stderr: TextIO) -> None:
    if outcome.status in ("failed", "cancelled"):
        stderr.write(f"synapse-graph: offload {outcome.status}: {outcome.error}\n")
