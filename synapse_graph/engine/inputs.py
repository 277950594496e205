"""Checking what a caller gives, before any query runs: names, texts, times, limits, triples.

Each check returns the cleaned value (names normalised and redacted, times as microseconds)
or raises an :class:`~synapse_graph.errors.InvalidInputError` that names the argument and
says what to do. Nothing here does I/O.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from dataclasses import replace as dataclass_replace
from functools import lru_cache
from typing import Any

from pydantic import ValidationError

from synapse_graph.engine.context import Context
from synapse_graph.errors import InvalidInputError, InvalidNameError, InvalidTimeError
from synapse_graph.instants import Instant
from synapse_graph.models import TimeInput, Triple, TrustState
from synapse_graph.rules import periods
from synapse_graph.rules.built import built
from synapse_graph.rules.grams import grams
from synapse_graph.rules.numbers import confidence as checked_confidence
from synapse_graph.rules.numbers import count
from synapse_graph.rules.predicates import SAME_AS, check_predicate
from synapse_graph.rules.recall import search_text
from synapse_graph.rules.redaction import SecretMode, guard
from synapse_graph.rules.text import check_storable, clean_text, entity_name, name_key
from synapse_graph.rules.timeline import Provenance
from synapse_graph.rules.timeparse import now_micros, to_micros
from synapse_graph.rules.trust import TRUST_STATES

TripleInput = Triple | tuple[str, str, str] | Mapping[str, Any]
MAX_QUERY_LENGTH = 4_000
MAX_TYPE_LENGTH = 64
"""The longest entity type, wherever one comes in (triples, observe, import)."""


@dataclass(frozen=True)
class Name:
    """An entity name as given (cleaned, redacted) and its identity key."""

    display: str
    key: str


@dataclass(frozen=True)
class CheckedTriple:
    """One fact to write, checked: names cleaned, times in microseconds (None: the write's now)."""

    subject: Name
    predicate: str
    object: Name
    valid_at: int | None
    invalid_at: int | None
    confidence: float
    single_valued: bool
    """Written with ``replace=True``: closes the subject's other values whatever the scope's rules."""
    subject_type: str | None
    object_type: str | None
    status: TrustState = "believed"
    """The least trust it is written with: a promoted candidate stays a candidate (the scope's rules may trust it
    less still)."""
    provenance: Provenance | None = None
    """Its own provenance, if not the batch's (a promoted fact keeps the model that extracted it)."""
    index: int = 0
    """Its position in the caller's list of triples (named when the batch is refused)."""


@dataclass(frozen=True)
class Batch:
    """An upsert's checked input: its facts, its aliases (``SAME_AS`` triples) and provenance."""

    triples: tuple[CheckedTriple, ...]
    aliases: tuple[tuple[Name, Name], ...]
    provenance: Provenance
    secrets: frozenset[str]
    """Kinds of secrets redacted from the input (for the audit log; never their values)."""


def text(ctx: Context, value: str | None, field: str, max_length: int = 512, found: set[str] | None = None
         ) -> str | None:
    """Optional free text: checked, bounded and redacted (or refused) per the secret policy."""
    if value is None:
        return None
    cleaned = clean_text(value, field=field, max_length=max_length)
    if cleaned is None:
        return None
    redacted = guard(cleaned, ctx.secrets, field=field)
    if found is not None:
        found.update(redacted.kinds)
    return redacted.text


def name(ctx: Context, raw: object, field: str) -> Name:
    """An entity name: cleaned, with its key; refused if empty, too long, unstorable or a secret."""
    if not isinstance(raw, str):
        raise InvalidInputError(f"{field} must be a string, got {type(raw).__name__}")
    if "\x01" in raw:
        # FalkorDB's exact-match indexes split values at U+0001, and its unique
        # constraints crash the server on such a key: refused on every backend alike.
        raise InvalidNameError(f"{field} contains the control character U+0001, which the store cannot index; "
                               "remove it")
    known = _checked_name(raw, ctx.secrets)
    if known is None:  # invalid: run the checks again to raise the error that names the field
        entity_name(raw, ctx.secrets, field=field)
        raise AssertionError("unreachable: the name passed its checks")  # pragma: no cover
    return known


def _name_once(ctx: Context, named: dict[str, Name], raw: object, index: int, many: bool, side: str) -> Name:
    """``raw`` checked as an entity name, once per batch (``named``: a dict, not the rules' cache); the field's
    label (``triple 3 subject``) is made only to name it in an error."""
    found = named.get(raw) if type(raw) is str else None
    if found is None:
        found = _known_name(ctx, raw) or name(ctx, raw, f"{_label(index, many)} {side}")
        if type(raw) is str:
            named[raw] = found
    return found


def _label(index: int, many: bool) -> str:
    """How an error names a batch's triple."""
    return f"triple {index}" if many else "triple"


def _instant(value: TimeInput, index: int, many: bool, side: str) -> Instant:
    """:func:`time` of a triple's time, its field's label made only for an error (the checks are pure: run again
    with the label, they raise the same error naming the triple)."""
    try:
        return Instant(to_micros(value, field=side))
    except InvalidTimeError:
        return Instant(to_micros(value, field=f"{_label(index, many)} {side}"))


def _known_name(ctx: Context, raw: object) -> Name | None:
    """:func:`name` for a valid name (cached), else None: the caller asks :func:`name` for the error."""
    if type(raw) is not str or "\x01" in raw:
        return None
    return _checked_name(raw, ctx.secrets)


@lru_cache(maxsize=65_536)
def _checked_name(raw: str, mode: SecretMode) -> Name | None:
    """A name cleaned, with the secret policy applied (a secret is never a name); None if it is invalid.

    Cached: a batch names the same entities many times, and the rules are pure.
    """
    try:
        display = entity_name(raw, mode)
    except InvalidInputError:
        return None
    return Name(display, name_key(display))


def time(value: TimeInput | None, field: str) -> Instant | None:
    """A time as microseconds (None stays None: the caller's default applies)."""
    return None if value is None else Instant(to_micros(value, field=field))


def period(value: object, field: str) -> tuple[int, int | None]:
    """A (start, end) period as microseconds (end None: open), start before end."""
    start, end = periods.period_parts(value, field)
    return periods.check_period(to_micros(start, field=f"{field} start"),
                                None if end is None else to_micros(end, field=f"{field} end"), field)


def window(during: object, throughout: object, *, as_of: object, history: bool) -> periods.Window | None:
    """The period a read asks about (``during`` or ``throughout``; None: an instant), alone with its times."""
    if during is None and throughout is None:
        return None
    if during is not None and throughout is not None:
        raise InvalidInputError("give during or throughout, not both: facts valid at some moment of a period, or at "
                                "every moment of it")
    field = "during" if during is not None else "throughout"
    if as_of is not None or history:
        raise InvalidInputError(f"{field} asks about a period: leave out as_of and include_history (an instant, and "
                                "every interval)")
    start, end = period(during if during is not None else throughout, field)
    return periods.during(start, end) if during is not None else periods.throughout(start, end)


def provenance(ctx: Context, source: str | None, model: str | None, session: str | None,
               found: set[str] | None = None) -> Provenance:
    return Provenance(
        source=text(ctx, source, "source", found=found),
        client=ctx.client,
        model=text(ctx, model, "model", 200, found=found),
        session=text(ctx, session, "session", 200, found=found) if session is not None else ctx.session,
    )


def hops(value: object) -> int:
    return count(value, field="hops", minimum=1, maximum=2)


MAX_LIMIT = 1_000_000_000
"""The largest limit a read takes: larger ones overflow the databases' integers (FalkorDB answers nothing
to LIMIT 2**63 - 1, the Neo4j driver cannot send 2**63), so they are bad input, not a crash or a silent miss."""


def limit(value: object, default: int, field: str = "limit") -> int:
    return default if value is None else count(value, field=field, minimum=1, maximum=MAX_LIMIT)


def filter_text(value: object, field: str, max_length: int = 512) -> str | None:
    """Text to match a stored value exactly (a filter of the audit log), as given."""
    if value is None:
        return None
    if not isinstance(value, str) or not value or len(value) > max_length:
        raise InvalidInputError(f"{field} must be text of 1 to {max_length} characters to match, got "
                                f"{type(value).__name__} {value!r:.40}")
    return check_storable(value, field=field)  # what the store cannot hold, it holds nowhere: no match to seek


def query_text(query: object) -> str:
    """A recall question: a string of at most 4000 characters that can be echoed back."""
    if not isinstance(query, str):
        raise InvalidInputError(f"a recall query must be a string, got {type(query).__name__}")
    if len(query) > MAX_QUERY_LENGTH:
        raise InvalidInputError(f"a recall query is limited to {MAX_QUERY_LENGTH} characters, got {len(query)}")
    try:  # echoed in the result: text that cannot be encoded would break every reader of it (JSON, the CLI)
        query.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise InvalidInputError(f"a recall query is not valid Unicode text (unpaired surrogate): {exc.reason}"
                                ) from None
    return query


def fact_id(fact: object) -> str:
    """The id of a ``Fact`` (or an id given as text)."""
    from synapse_graph.models import Fact

    value = fact.id if isinstance(fact, Fact) else fact
    if not isinstance(value, str) or not value.isalnum() or len(value) > 64:
        raise InvalidInputError(f"not a fact id: {str(value)[:70]!r}; pass a Fact or its id")
    return value


def trust_state(value: object) -> TrustState:
    if value is None:
        return "believed"
    for state in TRUST_STATES:
        if value == state:
            return state
    raise InvalidInputError(f"unknown trust state {value!r}; expected one of {TRUST_STATES}")


def confidence(value: object, label: str) -> float:
    return 1.0 if value is None else checked_confidence(value, field=f"{label} confidence")


_TRIPLE_FIELDS = ("subject", "predicate", "object")


def as_triples(triples: object) -> list[Triple]:
    """What ``upsert`` accepts: a Triple, a (subject, predicate, object) tuple, a mapping, or a list of them."""
    if triples is None or isinstance(triples, str | bytes):
        raise InvalidInputError(
            f"triples must be a Triple, a (subject, predicate, object) tuple, a mapping or a list of them, "
            f"got {type(triples).__name__}: e.g. upsert(Triple(subject='Dana', predicate='LIVES_IN', object='Paris'))")
    if isinstance(triples, Triple | Mapping) or (
        isinstance(triples, tuple) and len(triples) == 3
        and not any(isinstance(x, Triple | Mapping | tuple | list) for x in triples)
    ):
        items: list[Any] = [triples]
    elif isinstance(triples, Iterable):
        items = list(triples)
    else:
        raise InvalidInputError(f"triples must be a Triple or a list of them, got {type(triples).__name__}")
    return [_triple(item, index, len(items)) for index, item in enumerate(items)]


def _triple(item: object, index: int, count: int) -> Triple:
    label = f"triple {index}" if count > 1 else "triple"
    if isinstance(item, Triple):
        return item
    if isinstance(item, Mapping):
        fields = dict(item)
    elif isinstance(item, tuple | list) and len(item) == 3 and not isinstance(item, str):
        fields = dict(zip(_TRIPLE_FIELDS, item, strict=True))
    else:
        raise InvalidInputError(f"{label} is not a triple: {str(item)[:100]!r}; give a Triple, a "
                                "(subject, predicate, object) tuple or a mapping with those keys")
    if "predicate" in fields and not isinstance(fields["predicate"], str):
        check_predicate(fields["predicate"])  # raises InvalidPredicateError, not "not a triple"
    try:
        return Triple(**fields)
    except InvalidInputError:
        raise
    except (ValidationError, TypeError, ValueError) as exc:
        raise InvalidInputError(f"{label} is not a valid triple: {_first_problem(exc)}") from exc


def _first_problem(exc: Exception) -> str:
    if isinstance(exc, ValidationError) and exc.errors():
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first.get("loc", ()))
        return f"{where}: {first.get('msg')}" if where else str(first.get("msg"))
    return str(exc)


def batch(ctx: Context, triples: object, *, replace: bool, valid_at: TimeInput | None, source: str | None,
          model: str | None, session: str | None) -> Batch:
    """Check an upsert's input completely before any query runs."""
    items = as_triples(triples)
    batch_valid_at = time(valid_at, "valid_at")
    found: set[str] = set()
    written_by = provenance(ctx, source, model, session, found)
    checked: list[CheckedTriple] = []
    aliases: list[tuple[Name, Name]] = []
    predicates: set[str] = set()
    named: dict[str, Name] = {}
    many = len(items) > 1
    for index, triple in enumerate(items):
        # A field's label (``triple 3 subject``) is only needed to name it in an error: made when a check fails
        # (or for a triple's own texts and confidence), not per triple.
        predicate = triple.predicate
        if type(predicate) is not str or predicate not in predicates:
            predicates.add(check_predicate(predicate, allow_same_as=True))
        # A batch names each entity a few times: each name is checked once (a dict, not the rules' cache).
        raw = triple.subject
        subject = (named.get(raw) if type(raw) is str else None) or _name_once(ctx, named, raw, index, many, "subject")
        raw = triple.object
        obj = (named.get(raw) if type(raw) is str else None) or _name_once(ctx, named, raw, index, many, "object")
        kinds = (None, None) if triple.subject_type is None and triple.object_type is None else [
            None if kind is None else text(ctx, kind, f"{_label(index, many)} {side} type", MAX_TYPE_LENGTH)
            for kind, side in ((triple.subject_type, "subject"), (triple.object_type, "object"))]
        if predicate == SAME_AS:
            aliases.append((subject, obj))
            continue
        start = None if triple.valid_at is None else _instant(triple.valid_at, index, many, "valid_at")
        end = None if triple.invalid_at is None else _instant(triple.invalid_at, index, many, "invalid_at")
        start = batch_valid_at if start is None else start
        if start is not None and end is not None and end <= start:
            raise InvalidTimeError(f"{_label(index, many)}: invalid_at must be after valid_at (validity is "
                                   "[valid_at, invalid_at))")
        if start is None and end is not None and end <= now_micros():
            raise InvalidTimeError(f"{_label(index, many)}: invalid_at must be after valid_at, which defaults to now")
        own = None if triple.source is None else dataclass_replace(
            written_by, source=text(ctx, triple.source, f"{_label(index, many)} source", found=found))
        checked.append(built(CheckedTriple, {
            "subject": subject, "predicate": predicate, "object": obj, "valid_at": start, "invalid_at": end,
            "confidence": 1.0 if triple.confidence is None else confidence(triple.confidence, _label(index, many)),
            "single_valued": replace,
            "subject_type": kinds[0], "object_type": kinds[1], "status": CheckedTriple.status,  # its default
            "provenance": own, "index": index,
        }))
    return Batch(tuple(checked), tuple(aliases), written_by, frozenset(found))


def entity_row(key: str, display: str, kind: str | None, now: int) -> dict[str, Any]:
    """A new entity as ``apply_plan`` creates it: no aliases yet (none stored, read as an empty list), and
    not updated since (no ``updated_at`` stored, read as ``created_at``)."""
    return {"key": key, "name": display, "type": kind, "aliases": None, "created_at": Instant(now),
            "updated_at": None, "search_text": search_text(display, kind), "grams": grams(display, kind)}


def alias_row(key: str, display: str, target: str) -> dict[str, Any]:
    """An alias name as ``apply_plan`` records it."""
    return {"key": key, "name": display, "target": target, "search_text": search_text(display),
            "grams": grams(display)}
