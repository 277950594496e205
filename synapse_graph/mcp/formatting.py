"""Results written for a model: compact text lines, a size budget, and opaque cursors to continue.

A tool result goes to the model twice: as text (``content``) and as data
(``structuredContent``). The budget bounds both together, in tokens estimated as
characters / 4. A list that does not fit is cut after the last item that does, and the
result carries a cursor; the same call with that cursor returns the next page. The cursor
pins the times the first page was read at (``as_of`` and ``known_at`` default to *now*),
so later pages read the same snapshot even while other clients write.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from pydantic import BaseModel

from synapse_graph.errors import InvalidInputError
from synapse_graph.models import EntryEntity, Fact, Observation, RecalledFact, RecalledObservation
from synapse_graph.rules.qualifiers import STALE_AFTER, age_text

CHARS_PER_TOKEN = 4
DEFAULT_MAX_RESULT_TOKENS = 8_000
"""Well under the 25k-token limit agents such as Claude Code put on a tool result (and under its 10k warning)."""
_CURSOR_RESERVE = 400
"""Characters kept free for the continuation line and the cursor in both channels."""


class InvalidCursorError(InvalidInputError):
    """A cursor that this server did not issue for this call."""


def when(value: datetime | None, open_end: str = "now") -> str:
    """A UTC time as short as it is exact: the date alone at midnight, else down to the second (or microsecond)."""
    if value is None:
        return open_end
    if (value.hour, value.minute, value.second, value.microsecond) == (0, 0, 0, 0):
        return value.date().isoformat()
    spec = "microseconds" if value.microsecond else "seconds"
    return value.replace(tzinfo=None).isoformat(timespec=spec) + "Z"


def moment(value: datetime | str | None) -> str | None:
    """A time a result was read at (or given as), to the second: ``2026-12-02T06:45:22Z`` (a date alone at
    midnight). Cursors keep the exact instant; the model needs no more than this."""
    if value is None:
        return None
    at = datetime.fromisoformat(value) if isinstance(value, str) else value
    if at.tzinfo is not None:
        at = at.astimezone(UTC)
    return when(at.replace(microsecond=0))


@dataclass(frozen=True)
class Trust:
    """How results qualify what they show: judged at ``now``, old after ``stale_after``.

    The warnings are the library's (:meth:`Fact.qualifiers`): disputed, unreviewed candidate, no
    longer valid, stored or last confirmed long ago, low confidence. A model that reads them can
    hedge ("as of last year...") instead of asserting a stale fact.
    """

    now: datetime
    stale_after: timedelta = STALE_AFTER

    @classmethod
    def at_now(cls, stale_after: timedelta = STALE_AFTER) -> Trust:
        return cls(datetime.now(UTC), stale_after)

    def of(self, fact: Fact) -> list[str]:
        return fact.qualifiers(self.now, stale_after=self.stale_after)

    def of_observation(self, observation: Observation) -> list[str]:
        """An observation has no trust state or validity; it can only be old (worded as a fact's)."""
        age = self.now - observation.recorded_at
        return [f"stored {age_text(age)} ago — may be outdated"] if age >= self.stale_after else []


def fact_line(fact: Fact, qualifiers: Sequence[str]) -> str:
    """``Dana LIVES_IN London  [2022-09-15 → now]  conf 1  id …`` (a closed interval ends with ``)``), then
    ``⚠`` and the fact's qualifiers if any apply."""
    end = "now]" if fact.invalid_at is None else f"{when(fact.invalid_at)})"
    line = f"{fact.subject} {fact.predicate} {fact.object}  [{when(fact.valid_at)} → {end}  conf {fact.confidence:g}"
    if isinstance(fact, RecalledFact):
        line += f"  rel {fact.relevance:.2f}" + (f"  via {fact.entry}" if fact.hop > 1 and fact.entry else "")
    if fact.expired_at is not None:
        line += f"  superseded {when(fact.expired_at)}"
    if fact.pinned:
        line += "  pinned"
    if fact.source:
        line += f"  from {json.dumps(fact.source, ensure_ascii=False)}"
    if qualifiers:
        line += "  ⚠ " + "; ".join(qualifiers)
    return f"{line}  id {fact.id}"


def observation_line(observation: Observation, qualifiers: Sequence[str]) -> str:
    """``Dana: "Visited Porto"  [2024-04-10]  recorded 2024-05-01`` (the text quoted, so it stays one line; the
    time it is valid at, if known; the day it was recorded; a recalled one's relevance)."""
    text = json.dumps(observation.text, ensure_ascii=False)
    valid = "" if observation.valid_at is None else f"  [{when(observation.valid_at)}]"
    line = f"{observation.entity}: {text}{valid}  recorded {observation.recorded_at.date().isoformat()}"
    if isinstance(observation, RecalledObservation):
        line += f"  rel {observation.relevance:.2f}"
    line += "  ⚠ " + "; ".join(qualifiers) if qualifiers else ""
    return f"{line}  id {observation.id}"


def entity_line(entity: EntryEntity) -> str:
    legs = []
    if entity.lexical_rank is not None:
        legs.append(f"text #{entity.lexical_rank}")
    if entity.vector_rank is not None:
        legs.append(f"vector #{entity.vector_rank}")
    return f"{entity.name}  score {entity.score:.4f}" + (f"  ({', '.join(legs)})" if legs else "")


# -- cursors -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Snapshot:
    """Where a listing is read: from which item (its position, or for a listing ordered by a key, the key of
    the last item shown), at which valid time and belief time."""

    offset: int
    as_of: str | None
    known_at: str | None
    after: str | None = None


def fingerprint(tool: str, args: BaseModel) -> str:
    """What a cursor is bound to: the tool and every argument but the cursor."""
    data = json.dumps([tool, args.model_dump(mode="json", exclude={"cursor"})], sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(data.encode()).hexdigest()[:16]


def encode_cursor(tool: str, args: BaseModel, snapshot: Snapshot) -> str:
    body = {"f": fingerprint(tool, args), "o": snapshot.offset, "a": snapshot.as_of, "k": snapshot.known_at,
            "p": snapshot.after}
    return base64.urlsafe_b64encode(json.dumps(body, separators=(",", ":")).encode()).decode().rstrip("=")


def decode_cursor(tool: str, args: BaseModel, cursor: str) -> Snapshot:
    """The snapshot a cursor continues; :class:`InvalidCursorError` if it is not this call's."""
    fix = "call again without a cursor to start from the beginning"
    try:
        body = json.loads(base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)))
    except (binascii.Error, ValueError, UnicodeDecodeError):
        raise InvalidCursorError(f"cursor is not one this server issued; {fix}") from None
    if not isinstance(body, dict) or body.get("f") != fingerprint(tool, args):
        raise InvalidCursorError(
            f"cursor belongs to a different call; repeat exactly the arguments of the call that returned it, or {fix}")
    offset, as_of, known_at, after = body.get("o"), body.get("a"), body.get("k"), body.get("p")
    if (isinstance(offset, bool) or not isinstance(offset, int) or offset < 0
            or not all(v is None or isinstance(v, str) for v in (as_of, known_at, after))):
        raise InvalidCursorError(f"cursor is damaged; {fix}")
    return Snapshot(offset=offset, as_of=as_of, known_at=known_at, after=after)


# -- pages within the budget -------------------------------------------------------------------------


@dataclass(frozen=True)
class Answer:
    """A tool's answer: the text the model reads and the data matching the tool's output schema."""

    text: str
    data: BaseModel

    def structured(self) -> dict[str, Any]:
        return self.data.model_dump(mode="json", exclude_none=True)

    def size(self) -> int:
        """Characters of both channels, as they go on the wire."""
        return len(self.text) + len(json.dumps(self.structured(), ensure_ascii=False, separators=(",", ":")))


LIST_ENDS = 2 * 2 * len("[\n  ]")
"""What a list's brackets add to both channels once it holds items, for the two lists of a graph answer
(``synapse_graph.mcp.reference``)."""


def size_at_most(item: BaseModel) -> int:
    """The characters an item adds to a graph answer's two channels at most: its compact JSON and a comma,
    and its indented JSON, each line indented two levels deeper (4 spaces), with a comma and a line break."""
    dumped = item.model_dump(mode="json", exclude_none=True)
    indented = json.dumps(dumped, indent=2, ensure_ascii=False)
    compact = json.dumps(dumped, ensure_ascii=False, separators=(",", ":"))
    return len(indented) + 4 * (indented.count("\n") + 1) + 2 + len(compact) + 1


def cursor_at_most(tool: str, args: BaseModel, snap: Snapshot, resume: str) -> int:
    """What a nextCursor that resumes after ``resume`` adds to both channels at most."""
    cursor = encode_cursor(tool, args, Snapshot(0, None, snap.known_at, after=resume))
    return 2 * (len(cursor) + len(',\n  "nextCursor": ""'))


def tokens(chars: int) -> int:
    return -(-chars // CHARS_PER_TOKEN)


def page_size(lines: Sequence[str], items: Sequence[BaseModel], offset: int, budget_chars: int, fixed: int) -> int:
    """How many items from ``offset`` fit in the budget next to ``fixed`` characters (at least one)."""
    used, count = fixed + _CURSOR_RESERVE, 0
    for line, item in zip(lines[offset:], items[offset:], strict=True):
        cost = len(line) + 1 + len(item.model_dump_json(exclude_none=True)) + 1
        if count and used + cost > budget_chars:
            break
        used += cost
        count += 1
    return count
