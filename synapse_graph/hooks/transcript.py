"""Read a Claude Code transcript (JSON Lines) into conversation turns.

Kept: records whose ``type`` is ``user`` or ``assistant``; skipped: ``isMeta``,
``isCompactSummary``, ``isSidechain`` and ``isVisibleInTranscriptOnly`` records (caveats,
the compaction summary, sub-agent threads) and every other record type (summaries, system,
snapshots). ``message.content`` is a string or a list of content blocks:

- text the user typed is a ``user`` turn; what Claude Code itself writes as user text is left
  out (``<command-name>`` records of slash commands, ``<local-command-stdout>``, caveats,
  ``<system-reminder>`` blocks, "[Request interrupted by user]");
- a tool's result, and the output of a shell command run with ``!``, is a ``tool`` turn: what
  a tool returned, never what the user said;
- a tool call is one short line of the assistant's turn, its input written as a person reads
  it; thinking is left out.

Tool calls and results are shortened after redaction, so a cut never leaves part of a secret.
A line that cannot be read (not JSON, nested too deeply, cut at ``MAX_LINE_BYTES``) is
skipped and counted.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from synapse_graph.offload.turns import Role, Turn
from synapse_graph.rules.redaction import redact_and_cut

MAX_TOOL_CHARS = 400
MAX_LINE_BYTES = 2_000_000
_MAX_INPUT_DEPTH = 4
_REMINDER = re.compile(r"<system-reminder>.*?(?:</system-reminder>|\Z)", re.DOTALL)
# User text Claude Code writes itself: slash commands and their output, caveats, hook output.
_HARNESS = re.compile(r"\s*(?:<(?:command-name|command-message|command-args|local-command-stdout"
                      r"|local-command-stderr|local-command-caveat|user-prompt-submit-hook|task-notification)>"
                      r"|\[Request interrupted by user)")
_SHELL_INPUT = re.compile(r"\s*<bash-input>(.*?)</bash-input>\s*\Z", re.DOTALL)
_SHELL_OUTPUT = re.compile(r"<bash-(?:stdout|stderr)>(.*?)</bash-(?:stdout|stderr)>", re.DOTALL)


@dataclass(frozen=True)
class TranscriptTurn:
    """A turn with where it is in the transcript file (one record can give a tool turn and a user turn)."""

    line: int
    """0-based line number of its record."""
    uuid: str | None
    turn: Turn
    prompt: bool
    """A prompt the user typed (it starts an exchange), as opposed to a tool result sent back."""


@dataclass
class Transcript:
    """The turns of a transcript, and how many of its lines could not be read."""

    turns: list[TranscriptTurn] = field(default_factory=list)
    skipped: int = 0


def read_transcript(path: str | os.PathLike[str]) -> Transcript:
    """The conversation's turns, in file order; unreadable lines are skipped and counted."""
    transcript = Transcript()
    with open(path, "rb") as handle:
        for number, raw in enumerate(handle):
            if len(raw) > MAX_LINE_BYTES:
                raw = raw[:MAX_LINE_BYTES]  # a pasted file: what fits of it is still read below if valid
            try:
                transcript.turns += _turns(number, json.loads(raw))
            except (ValueError, RecursionError):  # RecursionError: a line nested too deeply to read
                transcript.skipped += 1
    return transcript


def _turns(number: int, record: Any) -> list[TranscriptTurn]:
    if not isinstance(record, dict) or record.get("type") not in ("user", "assistant"):
        return []
    if any(record.get(flag) for flag in ("isMeta", "isCompactSummary", "isSidechain", "isVisibleInTranscriptOnly")):
        return []
    message = record.get("message")
    if not isinstance(message, dict):
        return []
    try:
        at = datetime.fromisoformat(str(record["timestamp"]).replace("Z", "+00:00")) if record.get("timestamp") \
            else None
    except ValueError:
        at = None
    uuid = record.get("uuid") if isinstance(record.get("uuid"), str) else None
    parts = _assistant_parts(message.get("content")) if record["type"] == "assistant" \
        else _user_parts(message.get("content"))
    turns: list[TranscriptTurn] = []
    for role, texts, typed in _merged(parts):
        text = "\n".join(texts).strip()
        if text:
            turns.append(TranscriptTurn(number, uuid, Turn(role=role, text=text, at=at), prompt=typed))
    return turns


_Part = tuple[Role, str, bool]
"""(role, text, typed by the user)"""


def _merged(parts: list[_Part]) -> list[tuple[Role, list[str], bool]]:
    """Consecutive parts of one role joined into one turn."""
    merged: list[tuple[Role, list[str], bool]] = []
    for role, text, typed in parts:
        if merged and merged[-1][0] == role:
            merged[-1] = (role, [*merged[-1][1], text], merged[-1][2] or typed)
        else:
            merged.append((role, [text], typed))
    return merged


def _blocks(content: Any) -> list[dict[str, Any]]:
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return [b for b in content if isinstance(b, dict)] if isinstance(content, list) else []


def _user_parts(content: Any) -> list[_Part]:
    parts: list[_Part] = []
    for block in _blocks(content):
        kind = block.get("type")
        if kind == "text" and isinstance(block.get("text"), str):
            parts += _typed(block["text"])
        elif kind == "tool_result":
            parts.append(("tool", _short(_result_text(block.get("content"))), False))
        elif kind == "image":
            parts.append(("user", "[image]", False))
    return parts


def _typed(text: str) -> list[_Part]:
    """What a user text block is: typed text, Claude Code's own record (left out), or a shell command."""
    text = _REMINDER.sub("", text)
    if _HARNESS.match(text):
        return []
    shell = _SHELL_INPUT.match(text)
    if shell:
        return [("user", f"[ran in the shell: {_short(shell.group(1))}]", False)]
    output = _SHELL_OUTPUT.findall(text)
    if output:
        return [("tool", _short("\n".join(output)), False)]
    return [("user", text, True)] if text.strip() else []


def _result_text(content: Any) -> str:
    """A tool result's text (its text blocks; an image is a placeholder), without harness reminders."""
    pieces = [b["text"] if b.get("type") == "text" and isinstance(b.get("text"), str) else
              "[image]" if b.get("type") == "image" else "" for b in _blocks(content)]
    return _REMINDER.sub("", "\n".join(p for p in pieces if p))


def _assistant_parts(content: Any) -> list[_Part]:
    parts: list[_Part] = []
    for block in _blocks(content):
        kind = block.get("type")
        if kind == "text" and isinstance(block.get("text"), str):
            parts.append(("assistant", block["text"], False))
        elif kind == "tool_use":
            name = block["name"] if isinstance(block.get("name"), str) else "?"
            parts.append(("assistant", f"[tool call {_short(name)}: {_short(readable(block.get('input', {})))}]",
                          False))
        # thinking and redacted_thinking blocks are the model's scratch work: left out
    return parts


def readable(value: Any, depth: int = 0) -> str:
    """A tool's input as a person reads it (``command: ls -la``), not JSON-encoded: redaction must see the
    text itself, not its escaped form (``DB_PASSWORD=\\"...\\"``)."""
    if isinstance(value, str):
        return value
    if depth >= _MAX_INPUT_DEPTH and isinstance(value, dict | list):
        return "..."
    if isinstance(value, dict):
        text = ", ".join(f"{key}: {readable(item, depth + 1)}" for key, item in value.items())
        return text if depth == 0 else "{" + text + "}"
    if isinstance(value, list):
        return "[" + ", ".join(readable(item, depth + 1) for item in value) + "]"
    return json.dumps(value)


def _short(text: str) -> str:
    """Redacted, on one line, and at most ``MAX_TOOL_CHARS`` characters (cut after redaction)."""
    return redact_and_cut(" ".join(text.split()), MAX_TOOL_CHARS).text
