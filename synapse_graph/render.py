"""One way to show the memory's values to a person: times, intervals, counts, HTML tables.

Used by the models' ``__str__``/``_repr_html_`` and by the CLI's tables, so a time looks
the same everywhere. Pure functions of plain values: this module imports nothing of ours.
Every time shown is UTC (the library stores nothing else); the full precision is in the
values themselves, ``repr`` (ISO-8601) and ``--json``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from functools import lru_cache
from html import escape
from typing import Protocol

OPEN_END = "now"
"""What an interval with no end (still holds) shows where its end would be."""


@lru_cache(maxsize=4_096)
def time_text(value: datetime | None) -> str:
    """A compact UTC time: the date alone at midnight, else minutes, seconds only when there are any.

    >>> time_text(datetime(2022, 9, 15, 9, 30, tzinfo=UTC))
    '2022-09-15 09:30'
    """
    if value is None:
        return ""
    if value.tzinfo is not None:
        value = value.astimezone(UTC)
    if (value.hour, value.minute, value.second, value.microsecond) == (0, 0, 0, 0):
        return value.date().isoformat()
    if value.second or value.microsecond:
        return value.strftime("%Y-%m-%d %H:%M:%S")
    return value.strftime("%Y-%m-%d %H:%M")


def iso_text(value: datetime) -> str:
    """A time in full ISO-8601, UTC written ``Z``: ``2022-09-15T09:30:00Z``, microseconds when there are any."""
    if value.tzinfo is not None:
        value = value.astimezone(UTC)
        return value.replace(tzinfo=None).isoformat() + "Z"
    return value.isoformat()


def interval_text(start: datetime | None, end: datetime | None) -> str:
    """A half-open validity interval: ``[2019-03-01 → 2022-09-15 09:30)``, or ``[2022-09-15 → now]`` if open."""
    if end is None:
        return f"[{time_text(start)} → {OPEN_END}]"
    return f"[{time_text(start)} → {time_text(end)})"


def plural(count: int, singular: str, plural_form: str | None = None) -> str:
    """``1 alias``, ``2 aliases``, ``0 facts``."""
    word = singular if count == 1 else (plural_form or _plural(singular))
    return f"{count:,} {word}"


def _plural(word: str) -> str:
    if word.endswith(("s", "x", "ch", "sh")):
        return word + "es"
    if word.endswith("y") and word[-2:-1] not in ("a", "e", "i", "o", "u"):
        return word[:-1] + "ies"
    return word + "s"


def counts_text(counts: Iterable[tuple[int, str]]) -> str:
    """``1 entity, 3 facts, 0 aliases`` from ``(count, singular)`` pairs."""
    return ", ".join(plural(count, word) for count, word in counts)


def html_table(headers: Sequence[str], rows: Iterable[Sequence[object]], caption: str | None = None) -> str:
    """A small HTML table (every value escaped) for notebooks."""
    parts = ["<table>"]
    if caption:
        parts.append(f"<caption style=\"text-align:left\">{escape(caption)}</caption>")
    parts.append("<thead><tr>" + "".join(f"<th>{escape(h)}</th>" for h in headers) + "</tr></thead><tbody>")
    for row in rows:
        parts.append("<tr>" + "".join(f"<td>{escape(str(cell))}</td>" for cell in row) + "</tr>")
    parts.append("</tbody></table>")
    return "".join(parts)


def html_line(text: str) -> str:
    """One line of monospaced text for a notebook (escaped)."""
    return f"<code>{escape(text)}</code>"


# -- facts ----------------------------------------------------------------------------------------


class FactLike(Protocol):
    """What a fact shows (``Fact`` and ``RecalledFact`` have it)."""

    @property
    def subject(self) -> str: ...
    @property
    def predicate(self) -> str: ...
    @property
    def object(self) -> str: ...
    @property
    def valid_at(self) -> datetime: ...
    @property
    def invalid_at(self) -> datetime | None: ...
    @property
    def expired_at(self) -> datetime | None: ...
    @property
    def confidence(self) -> float: ...
    @property
    def confirmations(self) -> int: ...
    @property
    def status(self) -> str: ...
    @property
    def flag(self) -> str | None: ...


def fact_text(fact: FactLike) -> str:
    """``Dana LIVES_IN London  [2022-09-15 09:30 → now]  conf 1.00``, then what is unusual about it."""
    parts = [f"{fact.subject} {fact.predicate} {fact.object}", interval_text(fact.valid_at, fact.invalid_at),
             f"conf {fact.confidence:.2f}"]
    if fact.confirmations > 1:
        parts.append(f"seen {fact.confirmations}×")
    if fact.status != "believed":
        parts.append(fact.status + (f" ({fact.flag})" if fact.flag else ""))
    if fact.expired_at is not None:
        parts.append(f"superseded {time_text(fact.expired_at)}")
    return "  ".join(parts)


FACT_COLUMNS = ("subject", "predicate", "object", "valid from (UTC)", "valid until", "conf.", "seen")
"""Column headers of a table of facts (times in UTC; an empty ``valid until``: still holds)."""


def fact_cells(fact: FactLike) -> tuple[str, ...]:
    """One row of a table of facts, matching :data:`FACT_COLUMNS`."""
    return (fact.subject, fact.predicate, fact.object, time_text(fact.valid_at), time_text(fact.invalid_at),
            f"{fact.confidence:.2f}", str(fact.confirmations))
