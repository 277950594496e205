"""Cursors of listings (``Memory.entities``, ``Memory.audit``): where the next page starts, as an opaque string.

An entity cursor holds the last listed entity's place in the listing's order, its creation time (epoch
microseconds) and key, so a page is read with ``(created_at, key) > cursor``: entities written between
pages never shift the ones already listed, and an entity deleted (merged, purged) in the meantime loses
nothing. An audit cursor holds an entry's time and id the same way (the log is read newest first).
"""

from __future__ import annotations

import base64
import binascii
from datetime import UTC, datetime, timedelta

from synapse_graph.errors import InvalidInputError

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_PREFIX = "e1."
_AUDIT_PREFIX = "a1."
_MAX_LENGTH = 2_000


def entity_cursor(created_at: datetime, key: str) -> str:
    """The cursor that continues a listing right after the entity created at ``created_at`` with ``key``."""
    return _cursor(_PREFIX, created_at, key)


def audit_cursor(at: datetime, entry_id: str) -> str:
    """The cursor that continues the audit log right after the entry of ``at`` with ``entry_id``."""
    return _cursor(_AUDIT_PREFIX, at, entry_id)


def _cursor(prefix: str, at: datetime, key: str) -> str:
    micros = (at - _EPOCH) // timedelta(microseconds=1)
    return prefix + _encode(f"{micros}:{key}")


def _encode(text: str) -> str:
    return base64.urlsafe_b64encode(text.encode()).decode().rstrip("=")


def read_entity_cursor(cursor: object) -> tuple[int, str]:
    """(created_at in epoch microseconds, key) of a cursor :func:`entity_cursor` made; refused otherwise."""
    return _read(cursor, _PREFIX, "not a cursor of Memory.entities: {shown!r}; pass the `next` of the page "
                                  "before unchanged, or None for the first page")


def read_audit_cursor(cursor: object) -> tuple[int, str]:
    """(at in epoch microseconds, entry id) of a cursor :func:`audit_cursor` made; refused otherwise."""
    return _read(cursor, _AUDIT_PREFIX, "not a cursor of Memory.audit: {shown!r}; pass the `cursor` of the last "
                                        "entry read unchanged, or None for the newest entries")


def _read(cursor: object, prefix: str, problem: str) -> tuple[int, str]:
    if not isinstance(cursor, str) or not cursor.startswith(prefix) or len(cursor) > _MAX_LENGTH:
        raise _bad(cursor, problem)
    body = cursor[len(prefix):]
    try:
        micros, sep, key = base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)).decode().partition(":")
        place = int(micros)
    except (binascii.Error, UnicodeDecodeError, ValueError):
        raise _bad(cursor, problem) from None
    if not sep or not key or _encode(f"{place}:{key}") != body:  # one spelling per place: no lookalikes
        raise _bad(cursor, problem)
    return place, key


def _bad(cursor: object, problem: str) -> InvalidInputError:
    shown = cursor[:70] if isinstance(cursor, str) else type(cursor).__name__
    return InvalidInputError(problem.format(shown=shown))
