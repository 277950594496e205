"""Read a model's reply defensively: whatever it says, only well-formed triples come out.

Models wrap JSON in code fences, add prose before and after, use other field names,
put numbers where strings belong, stop mid-list (a token limit), or repeat instructions
they found in the conversation. The parser takes the first JSON value it can read, or
salvages every complete triple before the point where the text breaks off, and checks
each one: names must be storable, predicates are normalised to ``UPPER_SNAKE_CASE``,
times must parse, confidences must be numbers in [0, 1]. Everything it drops is
counted with a reason, never with the dropped value (a job log must not hold secrets).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from synapse_graph.errors import InvalidInputError
from synapse_graph.models import Triple
from synapse_graph.rules.predicates import SAME_AS, check_predicate
from synapse_graph.rules.text import clean_name, name_key
from synapse_graph.rules.timeparse import to_micros

MAX_REPLY_CHARS = 64_000
MAX_TRIPLES = 200
MAX_PROBLEMS = 20
_FENCE = re.compile(r"```[A-Za-z0-9_-]*[ \t]*\n?(.*?)(?:```|\Z)", re.DOTALL)
_NOT_WORD = re.compile(r"[^A-Za-z0-9]+")
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_YEAR = re.compile(r"\d{4}")
_YEAR_MONTH = re.compile(r"(\d{4})-(\d{2})")
_LIST_KEYS = ("triples", "facts", "relations", "relationships", "triplets", "edges", "items", "data", "results")
_FIELDS: dict[str, tuple[str, ...]] = {
    "subject": ("subject", "subj", "s", "head", "source", "from", "entity"),
    "predicate": ("predicate", "pred", "p", "relation", "relationship", "rel", "property", "verb", "type"),
    "object": ("object", "obj", "o", "tail", "target", "to", "value"),
    "valid_at": ("valid_at", "valid_from", "since", "start", "from_date", "date", "when", "at"),
    "invalid_at": ("invalid_at", "valid_to", "valid_until", "until", "end", "to_date"),
    "confidence": ("confidence", "score", "certainty", "probability", "conf"),
}
_DECODER = json.JSONDecoder()
_ITEM_WINDOW = 4_000
_MAX_SALVAGE_ATTEMPTS = 5_000


@dataclass
class Parsed:
    """Triples read from a reply, and why anything else was left out."""

    triples: list[Triple] = field(default_factory=list)
    found: int = 0
    """Items that looked like triples, before checks."""
    dropped: int = 0
    problems: list[str] = field(default_factory=list)
    truncated: bool = False
    """The JSON broke off; complete triples before the break were kept."""

    def problem(self, text: str) -> None:
        if len(self.problems) < MAX_PROBLEMS:
            self.problems.append(text)


def parse_reply(reply: object) -> Parsed:
    """The triples in a model's reply (see the module docstring for what is tolerated)."""
    parsed = Parsed()
    if not isinstance(reply, str):
        parsed.problem(f"reply is {type(reply).__name__}, not text")
        return parsed
    text = reply[:MAX_REPLY_CHARS]
    if len(reply) > MAX_REPLY_CHARS:
        parsed.problem(f"reply cut to its first {MAX_REPLY_CHARS} characters")
    items = _items(text, parsed)
    if items is None:
        parsed.problem("no JSON triples found in the reply")
        return parsed
    seen: set[tuple[str, str, str]] = set()
    for index, item in enumerate(items):
        if len(parsed.triples) >= MAX_TRIPLES:
            parsed.problem(f"more than {MAX_TRIPLES} triples; the rest were ignored")
            parsed.dropped += len(items) - index
            break
        parsed.found += 1
        notes: list[str] = []
        try:
            triple = to_triple(item, notes)
        except _Drop as reason:
            parsed.dropped += 1
            parsed.problem(f"item {index}: {reason}")
            continue
        identity = (name_key(triple.subject), triple.predicate, name_key(triple.object))
        if identity in seen:
            parsed.dropped += 1
            parsed.problem(f"item {index}: repeats an earlier triple")
            continue
        seen.add(identity)
        parsed.triples.append(triple)
        for note in notes:
            parsed.problem(f"item {index}: {note}")
    return parsed


# -- finding the JSON ----------------------------------------------------------------------------


def _candidates(text: str) -> Iterator[str]:
    """Fenced blocks first (a model's answer is usually the fenced part), then the whole text."""
    for match in _FENCE.finditer(text):
        yield match.group(1)
    yield text


def _items(text: str, parsed: Parsed) -> list[Any] | None:
    for candidate in _candidates(text):
        start = _next_open(candidate, 0)
        while start >= 0:
            try:
                value, end = _DECODER.raw_decode(candidate, start)
            except (json.JSONDecodeError, RecursionError):
                salvaged = _salvage(candidate, start)
                if salvaged:
                    parsed.truncated = True
                    parsed.problem("the JSON breaks off; complete triples before the break were kept")
                    return salvaged
                break  # nothing complete in this candidate: try the next one
            items = _triple_list(value)
            if items is not None:
                return items
            start = _next_open(candidate, end)
    return None


def _triple_list(value: Any) -> list[Any] | None:
    """The list of triple-like items inside a decoded value, if it has one."""
    if isinstance(value, list):
        if not value or any(_looks_like_triple(v) for v in value):
            return value
        for v in value:  # [{"triples": [...]}]
            found = _triple_list(v) if isinstance(v, dict) else None
            if found is not None:
                return found
        return None
    if isinstance(value, dict):
        lowered = {str(k).lower(): v for k, v in value.items()}
        for key in _LIST_KEYS:
            if isinstance(lowered.get(key), list):
                return list(lowered[key])
        if _looks_like_triple(value):
            return [value]
        for v in value.values():  # {"result": {"triples": [...]}}
            found = _triple_list(v) if isinstance(v, dict) else None
            if found is not None:
                return found
    return None


def _looks_like_triple(value: Any) -> bool:
    if isinstance(value, dict):
        keys = {str(k).lower() for k in value}
        return all(keys & set(_FIELDS[f]) for f in ("subject", "predicate", "object"))
    return isinstance(value, list) and 3 <= len(value) <= 6


def _salvage(text: str, start: int) -> list[Any]:
    """Complete triple-like values after ``start`` in JSON that breaks off (a truncated list).

    Each attempt reads at most ``_ITEM_WINDOW`` characters (a triple is far shorter), and
    the attempts are bounded, so hostile text such as ``[[[[...`` costs linear time.
    """
    found: list[Any] = []
    position = start + 1
    for _ in range(_MAX_SALVAGE_ATTEMPTS):
        brace = _next_open(text, position)
        if brace < 0 or len(found) > MAX_TRIPLES:
            break
        window = text[brace:brace + _ITEM_WINDOW]
        try:
            value, end = _DECODER.raw_decode(window)
        except (json.JSONDecodeError, RecursionError):
            position = brace + 1
            continue
        if _looks_like_triple(value):
            found.append(value)
            position = brace + end
        else:
            position = brace + 1
    return found


def _next_open(text: str, position: int) -> int:
    candidates = [i for i in (text.find("{", position), text.find("[", position)) if i >= 0]
    return min(candidates) if candidates else -1


# -- checking one item ------------------------------------------------------------------------------


class _Drop(Exception):
    """Why an item is not a usable triple (never includes the item's values)."""


def to_triple(item: Any, notes: list[str] | None = None) -> Triple:
    """One checked ``Triple`` from a dict or a list item of a reply; raises ``_Drop`` with the reason.

    A time that cannot be read is left out (the triple stays, valid from the reference time),
    and ``notes`` says so; so is a confidence that is not a number in [0, 1].
    """
    notes = [] if notes is None else notes
    if isinstance(item, dict):
        fields = _fields(item)
    elif isinstance(item, list) and 3 <= len(item) <= 6:
        fields = dict(zip(("subject", "predicate", "object"), item[:3], strict=True))
        for extra in item[3:]:  # [s, p, o, confidence] or [s, p, o, valid_at, confidence]
            if isinstance(extra, int | float) and not isinstance(extra, bool) and 0 <= extra <= 1:
                fields["confidence"] = extra
            elif isinstance(extra, str) and "valid_at" not in fields:
                fields["valid_at"] = extra
    else:
        raise _Drop(f"a {type(item).__name__} is not a triple")
    subject = _name(fields.get("subject"), "subject")
    obj = _name(fields.get("object"), "object")
    predicate = normalise_predicate(fields.get("predicate"))
    valid_at = _time(fields.get("valid_at"), "valid_at", notes)
    invalid_at = _time(fields.get("invalid_at"), "invalid_at", notes)
    if valid_at is not None and invalid_at is not None and to_micros(invalid_at) <= to_micros(valid_at):
        raise _Drop("invalid_at is not after valid_at")
    confidence = _confidence(fields.get("confidence"))
    if confidence is None and fields.get("confidence") is not None:
        notes.append("confidence is not a number in [0, 1]; left out")
    return Triple(subject=subject, predicate=predicate, object=obj, valid_at=valid_at, invalid_at=invalid_at,
                  confidence=confidence)


def _fields(item: dict[Any, Any]) -> dict[str, Any]:
    lowered = {str(k).strip().lower(): v for k, v in item.items()}
    fields: dict[str, Any] = {}
    for name, aliases in _FIELDS.items():
        for alias in aliases:
            if alias in lowered and lowered[alias] is not None:
                fields[name] = lowered[alias]
                break
    return fields


def _name(value: Any, field_name: str) -> str:
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        kind = "missing" if value is None else f"a {type(value).__name__}, not a name"
        raise _Drop(f"{field_name} is {kind}")
    try:
        return clean_name(str(value), field=field_name)
    except InvalidInputError as exc:
        raise _Drop(f"{field_name} is not a storable name ({type(exc).__name__})") from None


def normalise_predicate(value: Any) -> str:
    """``works at``, ``worksAt``, ``works-at`` -> ``WORKS_AT``; raises ``_Drop`` if nothing valid remains."""
    if not isinstance(value, str):
        raise _Drop("predicate is " + ("missing" if value is None else f"a {type(value).__name__}, not text"))
    words = _NOT_WORD.sub("_", _CAMEL.sub("_", value.strip())).strip("_").upper()
    if words == SAME_AS:
        raise _Drop("SAME_AS is reserved for aliases, which a model may not merge on its own")
    try:
        return check_predicate(words)
    except InvalidInputError:
        raise _Drop("predicate cannot be made UPPER_SNAKE_CASE (1-64 characters, starting with a letter)") from None


def _time(value: Any, field_name: str, notes: list[str]) -> str | None:
    if value is None or (isinstance(value, str) and value.strip().lower() in ("", "null", "none", "unknown", "n/a")):
        return None
    if isinstance(value, int) and not isinstance(value, bool) and 1000 <= value <= 9999:
        value = str(value)  # a bare year; as a number it would read as epoch seconds
    if not isinstance(value, str):
        notes.append(f"{field_name} is a {type(value).__name__}, not a date; left out")
        return None
    text = value.strip()
    if _YEAR.fullmatch(text):
        text += "-01-01"
    elif _YEAR_MONTH.fullmatch(text):
        text += "-01"
    try:
        to_micros(text, field=field_name)
    except InvalidInputError:
        notes.append(f"{field_name} is not an unambiguous date; left out")
        return None
    return text


def _confidence(value: Any) -> float | None:
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, str):
        text = value.strip().rstrip("%")
        try:
            number = float(text)
        except ValueError:
            return None
        if value.strip().endswith("%"):
            number /= 100
    elif isinstance(value, int | float):
        number = float(value)
    else:
        return None
    if 1 < number <= 100:  # a percentage
        number /= 100
    return number if 0.0 <= number <= 1.0 else None
