"""Read a Claude Code transcript (JSON Lines) into conversation turns.

Kept: records whose ``type`` is ``user`` or ``assistant``; skipped: ``isMeta``,
``isCompactSummary`` and ``isSidechain`` records (caveats, the compaction summary,
sub-agent threads) and every other record type (summaries, system, snapshots).
``message.content`` is a string or a list of content blocks: text is kept, a tool call
and a tool result become one short bracketed line each, thinking is left out.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from synapse_graph.offload.turns import Role, Turn

MAX_TOOL_CHARS = 400
MAX_LINE_BYTES = 2_000_000


@dataclass(frozen=True)
class TranscriptTurn:
    """A turn with where it is in the transcript file."""

    line: int
    """0-based line number of its record."""
    uuid: str | None
    turn: Turn
    prompt: bool
    """A prompt the user typed (it starts an exchange), as opposed to a tool result sent back."""


def read_transcript(path: str | os.PathLike[str]) -> list[TranscriptTurn]:
    """The conversation's user and assistant turns, in file order; unreadable lines are skipped."""
    turns: list[TranscriptTurn] = []
    with open(path, "rb") as handle:
        for number, raw in enumerate(handle):
            if len(raw) > MAX_LINE_BYTES:
                raw = raw[:MAX_LINE_BYTES]  # a pasted file: what fits of it is still read below if valid
            try:
                record = json.loads(raw)
            except ValueError:
                continue
            turn = _turn(number, record)
            if turn is not None:
                turns.append(turn)
    return turns


def _turn(number: int, record: Any) -> TranscriptTurn | None:
    if not isinstance(record, dict) or record.get("type") not in ("user", "assistant"):
        return None
    if record.get("isMeta") or record.get("isCompactSummary") or record.get("isSidechain"):
        return None
    message = record.get("message")
    if not isinstance(message, dict):
        return None
    role: Role = "assistant" if record["type"] == "assistant" else "user"
    text, typed = _text(message.get("content"))
    if not text.strip():
        return None
    try:
        at = datetime.fromisoformat(str(record["timestamp"]).replace("Z", "+00:00")) if record.get("timestamp") \
            else None
    except ValueError:
        at = None
    uuid = record.get("uuid") if isinstance(record.get("uuid"), str) else None
    return TranscriptTurn(number, uuid, Turn(role=role, text=text.strip(), at=at), prompt=role == "user" and typed)


def _text(content: Any) -> tuple[str, bool]:
    """The content as text, and whether any of it was typed text (not only tool results)."""
    if isinstance(content, str):
        return content, True
    if not isinstance(content, list):
        return "", False
    parts: list[str] = []
    typed = False
    for block in content:
        if not isinstance(block, dict):
            continue
        kind = block.get("type")
        if kind == "text" and isinstance(block.get("text"), str):
            parts.append(block["text"])
            typed = True
        elif kind == "tool_use":
            arguments = json.dumps(block.get("input", {}), ensure_ascii=False, sort_keys=True)
            parts.append(f"[tool call {block.get('name', '?')}: {_short(arguments)}]")
        elif kind == "tool_result":
            result, _ = _text(block.get("content"))
            parts.append(f"[tool result: {_short(result)}]")
        elif kind == "image":
            parts.append("[image]")
        # thinking and redacted_thinking blocks are the model's scratch work: left out
    return "\n".join(parts), typed


def _short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= MAX_TOOL_CHARS else text[:MAX_TOOL_CHARS] + " ..."
