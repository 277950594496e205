"""The cursor of an entity listing (``Memory.entities``): where the next page starts, as an opaque string.

It holds the last listed entity's place in the listing's order, its creation time (epoch microseconds)
and key, so a page is read with ``(created_at, key) > cursor``: entities written between pages never
shift the ones already listed, and an entity deleted (merged, purged) in the meantime loses nothing.
"""

from __future__ import annotations

import base64
import binascii
from datetime import UTC, datetime, timedelta

from synapse_graph.errors import InvalidInputError

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_PREFIX = "e1."
_MAX_LENGTH = 2_000


def entity_cursor(created_at: datetime, key: str) -> str:
    """The cursor that continues a listing right after the entity created at ``created_at`` with ``key``."""
    micros = (created_at - _EPOCH) // timedelta(microseconds=1)
    return _PREFIX + _encode(f"{micros}:{key}")


def _encode(text: str) -> str:
    return base64.urlsafe_b64encode(text.encode()).decode().rstrip("=")


def read_entity_cursor(cursor: object) -> tuple[int, str]:
    """(created_at in epoch microseconds, key) of a cursor :func:`entity_cursor` made; refused otherwise."""
    if not isinstance(cursor, str) or not cursor.startswith(_PREFIX) or len(cursor) > _MAX_LENGTH:
        raise _bad(cursor)
    body = cursor[len(_PREFIX):]
    try:
        micros, sep, key = base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)).decode().partition(":")
        place = int(micros)
    except (binascii.Error, UnicodeDecodeError, ValueError):
        raise _bad(cursor) from None
    if not sep or not key or _encode(f"{place}:{key}") != body:  # one spelling per place: no lookalikes
        raise _bad(cursor)
    return place, key


def _bad(cursor: object) -> InvalidInputError:
    shown = cursor[:70] if isinstance(cursor, str) else type(cursor).__name__
    return InvalidInputError(f"not a cursor of Memory.entities: {shown!r}; pass the `next` of the page before "
                             f"unchanged, or None for the first page")
