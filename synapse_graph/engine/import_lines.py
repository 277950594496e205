"""Checking an import, line by line: an export's lines become an :class:`ImportFile`, or an
:class:`~synapse_graph.errors.InvalidImportError` naming the first line that could make the store lie
(a record that ends before it starts, an entity key that does not belong to its name, a secret in clear,
text the store would not have kept as it is). Nothing here reads or writes the database; what the
lines refer to is checked against the scope when the import writes (:mod:`~synapse_graph.engine.transfer`).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from synapse_graph.engine import observations, rows
from synapse_graph.engine.context import Context
from synapse_graph.engine.inputs import MAX_TYPE_LENGTH, alias_row, entity_row, name, text, trust_state
from synapse_graph.engine.sessions import check_id
from synapse_graph.errors import InvalidImportError, InvalidInputError
from synapse_graph.instants import Instant
from synapse_graph.models import AuditEntry, ScopeRules
from synapse_graph.rules.numbers import confidence as checked_confidence
from synapse_graph.rules.numbers import count
from synapse_graph.rules.predicates import check_predicate
from synapse_graph.rules.redaction import redact
from synapse_graph.rules.text import check_storable, name_key
from synapse_graph.rules.timeline import Record
from synapse_graph.rules.timeparse import now_micros, to_micros
from synapse_graph.rules.trust import stored_facts
from synapse_graph.shapes import ENTITY, FACT, OBSERVATION, Field, names

EXPORT_FORMAT = "synapse-graph/3"
READABLE_FORMATS = ("synapse-graph/1", "synapse-graph/2", EXPORT_FORMAT)
"""Format 2 added the scope's rules, format 3 its session registry; an older export imports unchanged."""
MAX_LINE = 1_000_000
MAX_CONFIRMATIONS = 10**9
CLOCK_SKEW_US = 300 * 1_000_000
"""An imported belief time may be this far ahead of the importing machine's clock (clocks differ)."""


# -- import: reading and checking the lines ------------------------------------------------------------


@dataclass
class ImportFile:
    """Everything an import writes, checked line by line."""

    rules: ScopeRules | None = None
    entities: dict[str, dict[str, Any]] = field(default_factory=dict)
    entity_lines: dict[str, int] = field(default_factory=dict)
    """The line of each entity, by key."""
    aliases: list[tuple[int, dict[str, Any]]] = field(default_factory=list)
    records: list[tuple[int, Record]] = field(default_factory=list)
    observations: list[tuple[int, dict[str, Any]]] = field(default_factory=list)
    tombstones: list[tuple[int, dict[str, Any]]] = field(default_factory=list)
    audit: list[tuple[int, dict[str, Any]]] = field(default_factory=list)
    audit_secrets: list[tuple[int, set[str]]] = field(default_factory=list)
    """Strings of each audit entry that look like secrets: allowed only as the keys of the file's entities."""
    sessions: list[tuple[int, dict[str, Any]]] = field(default_factory=list)
    """The scope's session registry (rows as a registration writes them)."""


def read_lines(ctx: Context, lines: Iterable[str]) -> ImportFile:
    """Check every line of an export; raises :class:`InvalidImportError` naming the first bad line."""
    found = ImportFile()
    seen_header = False
    now = now_micros()
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            item = _line(line)
            kind = item.pop("kind", None)
            if not seen_header:
                _header(kind, item)
                seen_header = True
                continue
            if kind == "rules":
                found.rules = _rules(item)
            elif kind == "entity":
                row = _entity(ctx, item)
                if row["key"] in found.entities:
                    raise InvalidInputError(f"entity {row['key'][:70]!r} appears twice")
                found.entities[row["key"]] = row
                found.entity_lines[row["key"]] = number
            elif kind == "alias":
                found.aliases.append((number, _alias(ctx, item)))
            elif kind == "fact":
                found.records.append((number, _record(ctx, item, now)))
            elif kind == "observation":
                found.observations.append((number, _observation(ctx, item, now)))
            elif kind == "rejection":
                found.tombstones.append((number, _rejection(ctx, item, now)))
            elif kind == "audit":
                entry, looks_secret = _audit(ctx, item, now)
                found.audit.append((number, entry))
                found.audit_secrets.append((number, looks_secret))
            elif kind == "session":
                found.sessions.append((number, _session(item, now, {row["id"] for _, row in found.sessions})))
            else:
                raise InvalidInputError(f"unknown kind {kind!r}; an export has header, rules, entity, alias, fact, "
                                        "observation, rejection, audit and session lines")
        except InvalidImportError:
            raise
        except (InvalidInputError, KeyError, TypeError, ValueError) as exc:
            raise InvalidImportError(f"not a valid export line: {_reason(exc)}", number) from exc
    if not seen_header:
        raise InvalidImportError("the input holds no export: it is empty, or has no header line; nothing was "
                                 "written")
    _check_audit_keys(found)
    _check_entity_aliases(found)
    return found


def _reason(exc: Exception) -> str:
    return f"missing field {exc}" if isinstance(exc, KeyError) else str(exc)


def _line(line: str) -> dict[str, Any]:
    if len(line) > MAX_LINE:
        raise InvalidInputError(f"the line is {len(line)} characters long; an export line is at most {MAX_LINE}")
    try:
        item = json.loads(line)
    except RecursionError:
        raise InvalidInputError("the line nests JSON too deeply to be an export line") from None
    except json.JSONDecodeError as exc:
        raise InvalidInputError(f"not JSON ({exc.msg} at column {exc.colno})") from None
    if not isinstance(item, dict):
        raise InvalidInputError("an export line is a JSON object")
    return item


def _header(kind: object, item: Mapping[str, Any]) -> None:
    if kind is None and item.get("type") in ("entity", "relation"):
        raise InvalidImportError("this is a memory.jsonl of the reference MCP memory server, not a synapse-graph "
                                 "export: import it with --format reference-memory; nothing was written")
    if kind != "header":
        raise InvalidInputError("the first line of an export is its header ({\"kind\": \"header\", ...})")
    if item.get("format") not in READABLE_FORMATS:
        raise InvalidInputError(f"unknown export format {item.get('format')!r}; this version reads "
                                f"{', '.join(READABLE_FORMATS)}")


def _only(item: Mapping[str, Any], allowed: Iterable[str]) -> None:
    extra = sorted(set(item) - set(allowed))
    if extra:
        raise InvalidInputError(f"unexpected field {extra[0][:40]!r}")


def _rules(item: dict[str, Any]) -> ScopeRules:
    try:
        return ScopeRules(**{**item, "single_valued": frozenset(check_predicate(p) for p in item["single_valued"])})
    except ValueError as exc:
        raise InvalidInputError(f"invalid rules: {exc}") from None


def _exact_name(ctx: Context, raw: object, field: str) -> str:
    """A stored name as exported: it must pass the name rules unchanged (normalised, no secret in clear)."""
    checked = name(ctx, raw, field)
    if checked.display != raw:
        raise InvalidInputError(f"{field} {str(raw)[:70]!r} is not a name as the store keeps it (it holds a secret "
                                "in clear, or is not normalised)")
    return checked.display


def _exact_text(ctx: Context, raw: object, field: str, max_length: int = 512) -> str | None:
    """Stored free text as exported: it must pass the text rules unchanged (no secret in clear, normalised).

    An export holds text as the store keeps it (secrets already redacted); text the rules would
    change was not written by the store, and redacting it here would store a changed copy.
    """
    if raw is None:
        return None
    if not isinstance(raw, str):
        raise InvalidInputError(f"{field} must be a string, got {type(raw).__name__}")
    checked = text(ctx, raw, field, max_length)
    if checked != raw:
        raise InvalidInputError(f"{field} {redact(raw).text[:70]!r} is not text as the store keeps it (it holds a "
                                "secret in clear, or is not normalised)")
    return checked


def _key_of(ctx: Context, item: Mapping[str, Any], field: str = "name") -> tuple[str, str]:
    display = _exact_name(ctx, item[field], field)
    key = name_key(display)
    if item.get("key", key) != key:
        raise InvalidInputError(f"key {str(item.get('key'))[:70]!r} is not the key of name {display[:70]!r} "
                                f"(expected {key[:70]!r})")
    return display, key


def _time(item: Mapping[str, Any], field: str, now: int, *, required: bool = True, future: bool = False
          ) -> Instant | None:
    value = item.get(field)
    if value is None:
        if required:
            raise InvalidInputError(f"{field} is missing")
        return None
    if not isinstance(value, str):
        raise InvalidInputError(f"{field} must be an ISO-8601 string")
    micros = to_micros(value, field=field)
    if not future and micros > now + CLOCK_SKEW_US:
        raise InvalidInputError(f"{field} {value} is in the future: a belief cannot be recorded after the import")
    return Instant(micros)


def _entity(ctx: Context, item: Mapping[str, Any]) -> dict[str, Any]:
    _only(item, names(ENTITY))
    display, key = _key_of(ctx, item)
    now = now_micros()
    created_at = _time(item, "created_at", now)
    assert created_at is not None  # required
    row = entity_row(key, display, _exact_text(ctx, item.get("type"), "entity type", MAX_TYPE_LENGTH), created_at)
    updated_at = _time(item, "updated_at", now)
    row["updated_at"] = None if updated_at == created_at else updated_at  # read as created_at
    aliases = item.get("aliases") or []
    if not isinstance(aliases, list):
        raise InvalidInputError("aliases must be a list of names")
    row["aliases"] = [_exact_name(ctx, a, "alias") for a in aliases] or None
    return row


def entity_of(ctx: Context, item: Mapping[str, Any]) -> dict[str, Any]:
    """An entity line (as an export writes it) checked, as ``apply_plan`` creates it (engine/unmerge.py too)."""
    return _entity(ctx, item)


def record_of(ctx: Context, item: Mapping[str, Any], now: int) -> Record:
    """A fact line (as an export writes it) checked, as a record (engine/unmerge.py too)."""
    return _record(ctx, item, now)


def _alias(ctx: Context, item: Mapping[str, Any]) -> dict[str, Any]:
    _only(item, ("key", "name", "target"))
    display, key = _key_of(ctx, item)
    target = item["target"]
    if not isinstance(target, str) or not target:
        raise InvalidInputError("an alias needs the key of its entity as target")
    if target == key:
        raise InvalidInputError(f"alias {key[:70]!r} points to itself")
    return alias_row(key, display, target)


def _record(ctx: Context, item: Mapping[str, Any], now: int) -> Record:
    _only(item, names(FACT))
    values = {f.name: _fact_value(ctx, f, item, now) for f in FACT}
    if values["invalid_at"] is not None and values["invalid_at"] <= values["valid_at"]:
        raise InvalidInputError("invalid_at must be after valid_at (validity is [valid_at, invalid_at))")
    if values["expired_at"] is not None and values["expired_at"] < values["recorded_at"]:
        raise InvalidInputError("expired_at is before recorded_at: a belief cannot end before it began")
    return rows.record_of(values)


def _fact_value(ctx: Context, f: Field, item: Mapping[str, Any], now: int) -> Any:
    """A field of a fact line, checked as its kind says (:data:`~synapse_graph.shapes.FACT`)."""
    if f.kind == "instant":
        return _time(item, f.name, now, required=f.required, future=f.future)
    value = item[f.name] if f.required else item.get(f.name, f.absent)
    if f.kind == "id":
        return _id(value, f"fact {f.name}")
    if f.kind == "end":
        if not isinstance(value, str) or not value:
            raise InvalidInputError(f"{f.name} must be an entity key")
        return value
    if f.kind == "predicate":
        return check_predicate(value)
    if f.kind == "confidence":
        return checked_confidence(value)
    if f.kind == "count":
        return count(value, field=f.name, minimum=1, maximum=MAX_CONFIRMATIONS)
    if f.kind == "state":
        return trust_state(value)
    if f.kind == "bool":
        if not isinstance(value, bool):
            raise InvalidInputError(f"{f.name} must be true or false, got {str(value)[:20]}")
        return value
    return _exact_text(ctx, value, f.name, f.limit)


def _observation(ctx: Context, item: Mapping[str, Any], now: int) -> dict[str, Any]:
    _only(item, names(OBSERVATION))
    observation_id = item["id"]
    if not isinstance(observation_id, str) or not observation_id.isalnum() or len(observation_id) > 64:
        raise InvalidInputError(f"observation id {str(observation_id)[:70]!r} is not an export id")
    if not isinstance(item["entity"], str) or not item["entity"]:
        raise InvalidInputError("entity must be an entity key")
    content = text(ctx, item["text"], "observation", observations.MAX_OBSERVATION_LENGTH)
    if not content:
        raise InvalidInputError("an observation needs text")
    recorded_at = _time(item, "recorded_at", now)
    expired_at = _time(item, "expired_at", now, required=False)
    assert recorded_at is not None  # required
    if expired_at is not None and expired_at < recorded_at:
        raise InvalidInputError("expired_at is before recorded_at: a belief cannot end before it began")
    return observations.row(ctx.scope, {
        "id": observation_id, "entity": item["entity"], "text": content,
        "valid_at": _time(item, "valid_at", now, required=False, future=True), "recorded_at": recorded_at,
        "expired_at": expired_at, **{k: text(ctx, item.get(k), k, 200) for k in ("source", "client", "session")}})


def _rejection(ctx: Context, item: Mapping[str, Any], now: int) -> dict[str, Any]:
    _only(item, ("subject", "predicate", "object", "reason", "rejected_at", "by"))
    for end in ("subject", "object"):
        if not isinstance(item[end], str) or not item[end]:
            raise InvalidInputError(f"{end} must be an entity key")
    return {"scope": ctx.scope, "subject": item["subject"],  # a rejected SAME_AS: two entities recorded distinct
            "predicate": check_predicate(item["predicate"], allow_same_as=True),
            "object": item["object"], "reason": _exact_text(ctx, item["reason"], "reason", 500),
            "rejected_at": _time(item, "rejected_at", now), "by": _exact_text(ctx, item.get("by"), "by", 200)}


def _session(item: Mapping[str, Any], now: int, seen: set[str]) -> dict[str, Any]:
    """A registered session as :func:`~synapse_graph.engine.sessions.register` writes it (revoked or not)."""
    _only(item, ("id", "registered_at", "expires_at", "revoked_at"))
    session = check_id(item["id"])
    if session in seen:
        raise InvalidInputError(f"session {session!r} appears twice")
    registered_at = _time(item, "registered_at", now)
    expires_at = _time(item, "expires_at", now, future=True)
    revoked_at = _time(item, "revoked_at", now, required=False)
    assert registered_at is not None and expires_at is not None  # required
    if expires_at <= registered_at or (revoked_at is not None and revoked_at < registered_at):
        raise InvalidInputError(f"session {session!r} expires or is revoked before it was registered")
    return {"id": session, "registered_at": registered_at, "expires_at": expires_at, "revoked_at": revoked_at}


def _audit(ctx: Context, item: dict[str, Any], now: int) -> tuple[dict[str, Any], set[str]]:
    """An audit entry as the store keeps it, and the strings in it that look like secrets.

    Free text (client, source, model, session, action) must be exactly as the store keeps it. Entity
    keys (in ``entities`` and in ``detail``) are case-folded names, so a key may look like a token
    although its name does not (``ghp_aaaa...`` of ``GHP_AAAA...``): the strings that look like
    secrets are returned, to be checked against the file's keys once every line is read.
    """
    entry = AuditEntry.model_validate(item)
    if entry.brief:
        raise InvalidInputError("an audit entry read in brief (its lists cut) cannot be imported: export the log")
    if to_micros(entry.at) > now + CLOCK_SKEW_US:
        raise InvalidInputError(f"audit entry at {entry.at.isoformat()} is in the future")
    checked = {f: _exact_text(ctx, getattr(entry, f), f, 512 if f == "source" else 200)
               for f in ("client", "source", "model", "session")}
    action = _exact_text(ctx, entry.action, "action", 64)
    if action is None:
        raise InvalidInputError("an audit entry needs its action")
    if len(entry.entities) > 100_000 or len(entry.facts) > 1_000_000:
        raise InvalidInputError("an audit entry names at most 100000 entities and 1000000 facts")
    for fact_id in (entry.id, *entry.facts):
        _id(fact_id, "audit entry id" if fact_id is entry.id else "fact id")
    for kind in entry.secrets:
        _exact_text(ctx, kind, "secret kind", 64)
    looks_secret = {key for key in entry.entities if _looks_secret(key, "audit entity key")}
    looks_secret |= _detail_strings(entry.detail)
    detail = json.dumps(entry.detail, sort_keys=True)
    if len(detail) > 100_000:
        raise InvalidInputError(f"the audit entry's detail is {len(detail)} characters long; the limit is 100000")
    row = {**entry.model_dump(), **checked, "action": action, "scope": ctx.scope, "at": Instant(to_micros(entry.at)),
           "facts": stored_facts(entry.facts, entry.detail), "detail": detail}
    return row, looks_secret


MAX_DETAIL_DEPTH = 16
"""An audit entry's detail nests a few levels (lists of objects); deeper is not an export."""


def _detail_strings(detail: Mapping[str, Any]) -> set[str]:
    """Check every string of an audit entry's detail (storable); return those that look like secrets."""
    found: set[str] = set()
    stack: list[tuple[object, int]] = [(detail, 1)]
    while stack:
        value, depth = stack.pop()
        if depth > MAX_DETAIL_DEPTH:
            raise InvalidInputError(f"the audit entry's detail nests deeper than {MAX_DETAIL_DEPTH} levels")
        if isinstance(value, Mapping):
            stack += [(k, depth) for k in value] + [(v, depth + 1) for v in value.values()]
        elif isinstance(value, list):
            stack += [(v, depth + 1) for v in value]
        elif isinstance(value, str) and _looks_secret(value, "audit detail"):
            found.add(value)
    return found


def _looks_secret(value: str, field: str) -> bool:
    """True if redaction would change a (storable) string."""
    return redact(check_storable(value, field=field)).text != value


def _check_audit_keys(file: ImportFile) -> None:
    """A string of the audit log that looks like a secret is refused unless it is the key of one of the
    file's entities or aliases (a key can look like a token its name is not)."""
    keys = set(file.entities) | {alias["key"] for _, alias in file.aliases}
    for number, looks_secret in file.audit_secrets:
        if looks_secret - keys:
            raise InvalidImportError("the audit entry holds a secret in clear (an export holds none: the store "
                                     "redacts secrets before it keeps anything); nothing was written", number)


def listed_aliases(file: ImportFile) -> Iterator[tuple[int, str, str, str]]:
    """(line, entity key, alias, alias key) of every alias an entity line lists, in line order."""
    for key, entity in file.entities.items():
        for alias in entity["aliases"] or []:
            yield file.entity_lines[key], key, alias, name_key(alias)


def _check_entity_aliases(file: ImportFile) -> None:
    """A name resolves one way: an alias an entity line lists is no entity of the file, and no other entity line
    lists it (that an alias line gives it to that entity is checked with the scope, by the import's first write)."""
    listed: dict[str, int] = {}
    for number, key, alias, alias_key in listed_aliases(file):
        where = f"entity {key[:70]!r} lists alias {alias[:70]!r}, "
        if alias_key in file.entities and alias_key != key:
            raise InvalidImportError(f"{where}the name of the entity of line {file.entity_lines[alias_key]}: a name "
                                     "resolves one way only; nothing was written", number)
        if listed.get(alias_key, number) != number:
            raise InvalidImportError(f"{where}which the entity of line {listed[alias_key]} lists too: a name "
                                     "resolves one way only; nothing was written", number)
        listed[alias_key] = number


def _id(value: object, field: str) -> str:
    if not isinstance(value, str) or not value.isalnum() or not value.isascii() or len(value) > 64:
        raise InvalidInputError(f"{field} {str(value)[:70]!r} is not an export id")
    return value
