"""A fact to write (Triple) and a stored fact record (Fact), with what a time may be given as."""

from __future__ import annotations

import numbers
from datetime import UTC, date, datetime, timedelta
from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, PlainValidator, ValidationError

from synapse_graph import render
from synapse_graph.errors import InvalidInputError, InvalidTimeError
from synapse_graph.models.readable import Readable, ShortRepr
from synapse_graph.rules.numbers import confidence

TrustState = Literal["believed", "candidate", "disputed"]
"""``believed`` (the default), ``candidate`` (recorded, not believed: waiting for review) or
``disputed`` (feedback said stale or wrong: hidden from default reads)."""

TimeInput = datetime | date | str | int | float
"""What the API accepts as a time: an aware or naive (= UTC) ``datetime``, a ``date``
(midnight UTC), an ISO-8601 or other unambiguous string, or epoch seconds."""

Period = tuple[TimeInput, TimeInput | None]
"""A period ``(start, end)``, half-open like a validity; ``end`` None: with no end."""

_TIME_KINDS = frozenset({str, datetime, date, int, float})
_TIME_EXPECTED = "expected a datetime, date, ISO-8601 string or epoch seconds (int or float)"


def _time_field(value: object, field: str) -> object:
    """A time is kept as given (the time rules read it when it is written); only its kind is checked."""
    if type(value) in _TIME_KINDS or value is None:
        return value
    if isinstance(value, bool):
        raise InvalidTimeError(f"{field}: a boolean is not a time; {_TIME_EXPECTED}")
    if isinstance(value, datetime | date | str | int | float | numbers.Real):
        return value  # subclasses and numpy scalars: the time rules convert them exactly or refuse them
    raise InvalidTimeError(f"{field}: {_TIME_EXPECTED}, got {type(value).__name__}")


def _confidence(value: object) -> float | None:
    return None if value is None else confidence(value)


def _valid_at(value: object) -> object:
    return value if type(value) in _TIME_KINDS else _time_field(value, "valid_at")


def _invalid_at(value: object) -> object:
    return value if type(value) in _TIME_KINDS else _time_field(value, "invalid_at")


_FIELD_ERRORS = {"missing": "is missing", "string_type": "must be a string"}


def _triple_error(exc: ValidationError) -> InvalidInputError:
    """One SynapseError naming every bad field of a Triple, what was wrong, and what to do."""
    errors = exc.errors(include_url=False)
    first = (errors[0].get("ctx") or {}).get("error") if len(errors) == 1 else None
    if isinstance(first, InvalidInputError) and str(first).startswith("Triple "):
        return first  # raised by __init__ itself, which model_validate calls
    problems: list[str] = []
    all_times = True
    for error in errors:
        field = ".".join(str(part) for part in error["loc"])[:40]
        cause = (error.get("ctx") or {}).get("error")
        all_times = all_times and isinstance(cause, InvalidTimeError)
        if isinstance(cause, InvalidInputError):
            problems.append(str(cause))
        elif isinstance(cause, ValueError):
            problems.append(f"{field} {cause}")
        elif error["type"] == "extra_forbidden":
            problems.append(f"has no field {field!r}; its fields are {', '.join(Triple.model_fields)}")
        elif error["type"] in _FIELD_ERRORS:
            got = "" if error["type"] == "missing" else f", got {type(error['input']).__name__}"
            problems.append(f"{field} {_FIELD_ERRORS[error['type']]}{got}")
        else:
            problems.append(f"{field}: {error['msg']}")
    return (InvalidTimeError if all_times else InvalidInputError)("Triple " + "; ".join(problems))


class Triple(ShortRepr, BaseModel):
    """A fact to write: ``subject -[predicate]-> object``, optionally with its interval, and its ``source`` if
    not the write's. Values are checked, never coerced: a bad one raises :class:`InvalidInputError`
    (:class:`InvalidTimeError` for a time) naming the field.

    Example:
        >>> Triple(subject="Dana", predicate="LIVES_IN", object="Paris", valid_at="2024-03-01")
    """

    model_config = ConfigDict(frozen=True, extra="forbid", strict=True)

    subject: str
    predicate: str
    object: str
    valid_at: Annotated[TimeInput | None, PlainValidator(_valid_at, json_schema_input_type=TimeInput | None)] = None
    invalid_at: Annotated[TimeInput | None, PlainValidator(_invalid_at, json_schema_input_type=TimeInput | None)] = None
    confidence: Annotated[float | None, PlainValidator(_confidence, json_schema_input_type=float | None)] = None
    subject_type: str | None = None
    object_type: str | None = None
    source: str | None = None

    if not TYPE_CHECKING:  # type checkers keep the keyword signature pydantic derives from the fields

        def __init__(self, /, **data: Any) -> None:
            try:  # what BaseModel.__init__ does, without its extra call: this is on the hot path of writes
                self.__pydantic_validator__.validate_python(data, self_instance=self)
            except ValidationError as exc:
                raise _triple_error(exc) from exc

        @classmethod
        def model_validate(cls, obj: Any, **options: Any) -> Triple:
            try:
                return super().model_validate(obj, **options)
            except ValidationError as exc:
                raise _triple_error(exc) from exc


class FactLink(ShortRepr, BaseModel):
    """A fact of the same subject and predicate that replaced another or that it replaced (its id, value, validity)."""

    model_config = ConfigDict(frozen=True)

    id: str
    object: str
    valid_at: datetime
    invalid_at: datetime | None = None


class Fact(Readable, BaseModel):
    """One stored FACT record: a fact with its validity and belief intervals.

    ``subject`` and ``object`` are canonical entity names. Validity is half-open:
    the fact holds from ``valid_at`` up to, not including, ``invalid_at`` (``None``:
    still holds). ``recorded_at``/``expired_at`` bound when the store believed it.
    """

    model_config = ConfigDict(frozen=True)

    id: str
    subject: str
    predicate: str
    object: str
    valid_at: datetime
    invalid_at: datetime | None = None
    recorded_at: datetime
    expired_at: datetime | None = None
    confidence: float
    confirmations: int
    source: str | None = None
    client: str | None = None
    model: str | None = None
    session: str | None = None
    status: TrustState = "believed"
    """Trust state: ``believed``, ``candidate`` (recorded, not believed) or ``disputed``."""
    flag: str | None = None
    """Why a candidate needs review, e.g. an earlier rejection of the same fact."""
    confirmed_at: datetime | None = None
    """When the fact was last written again (confirmed); None if never since it was recorded."""
    pinned: bool = False
    """Pinned facts come first in :meth:`Memory.digest` (``Memory.pin``/``unpin``)."""
    replaces: list[FactLink] | None = None
    """The values of the subject and predicate that ended where this one began (:meth:`Memory.facts` fills it
    in, and ``replaced_by``: the values that began where it ended; None where a read does not look)."""
    replaced_by: list[FactLink] | None = None

    def holds_at(self, when: datetime) -> bool:
        """True if the fact is valid at ``when`` (half-open interval)."""
        return self.valid_at <= when and (self.invalid_at is None or when < self.invalid_at)

    def qualifiers(self, now: datetime | None = None, *, stale_after: timedelta | None = None) -> list[str]:
        """Warnings to keep beside this fact at ``now`` (default: now): disputed, unreviewed candidate, no
        longer valid, stored or last confirmed long ago (``stale_after``, default 180 days), low confidence."""
        from synapse_graph.rules import qualifiers

        return qualifiers.qualifiers(self, now or datetime.now(UTC), stale_after or qualifiers.STALE_AFTER)

    def __str__(self) -> str:
        """``Dana LIVES_IN London  [2022-09-15 09:30 → now]  conf 1.00`` (times in UTC)."""
        return render.fact_text(self)
