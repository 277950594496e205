"""Rules for free text that reaches the store: names, scopes, sources."""

from __future__ import annotations

import re
import unicodedata

from synapse_graph.errors import InvalidInputError, InvalidNameError, InvalidScopeError
from synapse_graph.rules.redaction import SecretMode, guard, redact

MAX_NAME_LENGTH = 120
MAX_TEXT_LENGTH = 512
_WHITESPACE = re.compile(r"\s+")
_SCOPE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.:/@-]{0,127}")
# Words an agent uses for the person it talks to: they all mean the entity `User`.
_USER_WORDS = frozenset({"me", "i", "user", "myself"})
USER_NAME = "User"


def check_storable(value: str, *, field: str) -> str:
    """Refuse text a database cannot hold exactly (NUL, unpaired surrogates)."""
    if not isinstance(value, str):
        raise InvalidInputError(f"{field} must be a string, got {type(value).__name__}")
    if "\x00" in value:
        raise InvalidInputError(f"{field} contains a NUL character, which the store cannot hold; remove it")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise InvalidInputError(f"{field} is not valid Unicode text (unpaired surrogate): {exc.reason}") from None
    return value


def clean_name(raw: str, *, field: str = "name") -> str:
    """Display form of an entity name: NFC, whitespace collapsed, `me`/`I`/... -> `User`."""
    check_storable(raw, field=field)
    name = _WHITESPACE.sub(" ", unicodedata.normalize("NFC", raw)).strip()
    if not name:
        raise InvalidNameError(f"{field} is empty; give the entity a name")
    if len(name) > MAX_NAME_LENGTH:
        raise InvalidNameError(
            f"{field} is {len(name)} characters long; the limit is {MAX_NAME_LENGTH}: "
            f"{redact(name).text[:40]!r}... (shorten it; names are never truncated silently)"
        )
    if name.casefold() in _USER_WORDS:
        return USER_NAME
    return name


def name_key(name: str) -> str:
    """Identity key of a cleaned name: case-folded, so `Paris` and `PARIS` are one entity."""
    return unicodedata.normalize("NFC", name.casefold())


def clean_text(raw: str | None, *, field: str, max_length: int = MAX_TEXT_LENGTH) -> str | None:
    """Optional free text (source, model, session ids): checked, NFC, bounded."""
    if raw is None:
        return None
    check_storable(raw, field=field)
    text = unicodedata.normalize("NFC", raw).strip()
    if len(text) > max_length:
        raise InvalidInputError(f"{field} is {len(text)} characters long; the limit is {max_length}")
    return text or None


def check_scope(scope: str) -> str:
    """A scope such as `acme/web/session-1`: letters, digits and `_.:/@-`, at most 128 chars."""
    if not isinstance(scope, str) or not _SCOPE.fullmatch(scope):
        raise InvalidScopeError(
            f"invalid scope {scope!r}: use 1-128 characters from letters, digits and _.:/@- "
            "starting with a letter or digit, e.g. 'acme/web/session-1'"
        )
    return scope


def entity_name(raw: str, mode: SecretMode, *, field: str = "name") -> str:
    """The display name of an entity, with the secret policy applied: a secret is never a name.

    A name that is a secret, or contains one among other words, is refused in both modes:
    with ``"reject"`` by :func:`guard` (:class:`SecretRejectedError`), with ``"redact"``
    by :class:`InvalidNameError`. Redacting it instead would make every such name the same
    (``[REDACTED:email]``, or ``Dana's key [REDACTED:api_key]`` for any key), silently merging
    the facts of different entities; a placeholder that tells secrets apart yet cannot be
    reversed would need a key kept outside the store. Text that merely looks like a
    placeholder (``[REDACTED:email]`` typed as is) hides no secret and is a name like any other.
    """
    name = clean_name(raw, field=field)
    found = guard(name, mode, field=field)
    if found.kinds:
        raise InvalidNameError(
            f"{field} {found.text[:70]!r} contains a secret ({', '.join(found.kinds)}); a secret cannot be "
            "an entity's name, since redacted names would merge different entities. Name the entity for who "
            "or what it is (e.g. 'Dana') and keep the secret out of the memory"
        )
    return name
