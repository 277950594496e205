"""Conversation turns handed to offload, and their redaction before any model sees them."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, ValidationError

from synapse_graph.errors import InvalidInputError
from synapse_graph.rules.redaction import redact_and_cut

Role = Literal["user", "assistant", "tool"]
"""``tool``: what a tool returned (a file read, a fetched page, a command's output), not what anyone said."""
MAX_TURNS = 2_000
MAX_TURN_CHARS = 20_000
"""A longer turn (a pasted log, a tool's whole output) keeps its beginning and end (after redaction)."""
_LEFT_OUT = "\n[... {n} characters left out ...]\n"


class Turn(BaseModel):
    """One message of a conversation: who said it, what, and when (``None``: unknown)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    role: Role
    text: str
    at: datetime | None = None


TurnInput = Turn | Mapping[str, Any]


def as_turns(turns: Iterable[TurnInput]) -> list[Turn]:
    """Turns from ``Turn`` objects or mappings ``{"role", "text" | "content", "at"?}``; checked, not yet redacted."""
    if isinstance(turns, str | bytes | Mapping):
        raise InvalidInputError("turns must be a list of turns, e.g. [{'role': 'user', 'text': '...'}]")
    result: list[Turn] = []
    for index, item in enumerate(turns):
        if len(result) >= MAX_TURNS:
            raise InvalidInputError(f"at most {MAX_TURNS} turns per offload; split the conversation")
        if isinstance(item, Turn):
            result.append(item)
            continue
        if not isinstance(item, Mapping):
            raise InvalidInputError(f"turn {index} must be a Turn or a mapping, got {type(item).__name__}")
        data = dict(item)
        if "text" not in data and "content" in data:
            data["text"] = data.pop("content")
        try:
            result.append(Turn.model_validate(data))
        except ValidationError as exc:
            problems = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors())
            raise InvalidInputError(f"turn {index}: {problems}") from None
    if not result:
        raise InvalidInputError("no turns to offload")
    return result


def redacted(turns: Iterable[Turn]) -> tuple[list[Turn], tuple[str, ...]]:
    """The turns with every secret replaced by ``[REDACTED:<kind>]``, and the kinds found.

    A turn longer than ``MAX_TURN_CHARS`` keeps its beginning and end, cut after redaction.
    """
    kinds: dict[str, None] = {}
    out: list[Turn] = []
    half = MAX_TURN_CHARS // 2
    for turn in turns:
        clean = redact_and_cut(turn.text, half, half, marker=_LEFT_OUT)
        kinds.update(dict.fromkeys(clean.kinds))
        out.append(turn.model_copy(update={"text": clean.text}))
    return out, tuple(kinds)
