"""Find secrets in free text and replace them with typed placeholders.

Pure functions, no I/O. Each secret becomes ``[REDACTED:<kind>]``; the kinds are
``private_key``, ``bearer_token``, ``jwt``, ``api_key``, ``password`` and ``email``.

Rules run one after another, most specific first (a PEM block may contain things that
look like e-mails; ``Bearer`` may wrap a JWT), and each runs on the output of the
previous one. Every pattern starts only at the beginning of a token (a lookbehind) and
scans forward without nested ambiguity, so the cost stays linear on hostile input.
Placeholders are never matched again, which makes :func:`redact` idempotent.

Deliberately *not* secrets: git SHAs, UUIDs and other bare hex or base64 strings
(too many false positives in agent memories; an AWS secret key or bare token is only
caught next to a telling key such as ``aws_secret_access_key=``), and addresses
without a dotted domain such as ``root@localhost``. Known trade-offs: prose such as
``secret: the plan`` loses its first word after the colon (erring on the safe side),
and of two e-mails glued together by ``.``/``-``/``+`` only the first is caught.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from synapse_graph.errors import InvalidInputError, SecretRejectedError

SecretMode = Literal["redact", "reject"]

_PLACEHOLDER = "[REDACTED:"
_KINDS = ("private_key", "bearer_token", "jwt", "api_key", "password", "email")
# A value that already is a placeholder is left alone (idempotence).
_NOT_PLACEHOLDER = r"(?!\[REDACTED:)"


def _token_start(chars: str) -> str:
    """Regex: a token starts here, i.e. not after one of ``chars`` nor after a placeholder.

    Starting only at token boundaries keeps matching linear. The placeholder check keeps
    redact idempotent: the secret a placeholder replaced may be what stopped a token from
    starting there, so a second pass must not see a fresh boundary.
    """
    return rf"(?<![{chars}])" + "".join(rf"(?<!\[REDACTED:{kind}\])" for kind in _KINDS)


@dataclass(frozen=True)
class Redacted:
    """Text with its secrets replaced, and the kinds found (first appearance first)."""

    text: str
    kinds: tuple[str, ...]


@dataclass(frozen=True)
class _Rule:
    kind: str
    regex: re.Pattern[str]
    group: str | int = 0  # the part of the match that is replaced
    hints: re.Pattern[str] = re.compile("")
    """Finds a text every match contains (:func:`_hints`): a text without one cannot match, and is not
    scanned (most names and texts hold no secret). The default finds one in every text."""


def _hints(*texts: str, folded: bool = False) -> re.Pattern[str]:
    """A regex finding any of ``texts`` (ASCII case ignored if ``folded``, as the rule's own regex does)."""
    return re.compile("|".join(re.escape(t) for t in texts), re.ASCII | (re.IGNORECASE if folded else 0))


_PEM_LABEL = r"[A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----"

_RULES: tuple[_Rule, ...] = (
    # Whole PEM block; an unterminated block runs to the end of the text, because
    # a truncated key is still a key.
    _Rule(
        "private_key",
        re.compile(rf"-----BEGIN {_PEM_LABEL}.*?(?:-----END {_PEM_LABEL}|\Z)", re.DOTALL),
        hints=_hints("-----BEGIN "),
    ),
    # Before jwt: "Bearer eyJ..." is one credential. The token needs 12+ characters
    # and a digit so that prose ("bearer instruments") is left alone.
    _Rule(
        "bearer_token",
        re.compile(
            _token_start(r"\w-") + r"(?i:bearer)[ \t]+(?=[A-Za-z._~+/=-]*[0-9])"
            r"[A-Za-z0-9._~+/-]{12,}+=*",
            re.ASCII,
        ),
        hints=_hints("bearer", folded=True),
    ),
    # header.payload.signature, header being base64url JSON ('{"' -> 'eyJ');
    # the signature may be empty (alg "none").
    _Rule(
        "jwt",
        re.compile(_token_start(r"\w-") + r"eyJ[\w-]{5,}+\.[\w-]{5,}+\.[\w-]*+", re.ASCII),
        hints=_hints("eyJ"),
    ),
    _Rule(
        "api_key",
        re.compile(
            _token_start(r"\w-") + r"(?:"
            # OpenAI / Anthropic (sk-proj-, sk-ant-...): somewhere a run of 20 key
            # characters without a hyphen, so "sk-learn-contrib-..." is not a key.
            r"sk-[\w-]*?\w{20}[\w-]*+"
            r"|gh[pousr]_[A-Za-z0-9]{30,}+"  # GitHub classic tokens
            r"|github_pat_\w{30,}+"  # GitHub fine-grained tokens
            r"|xox[abprs]-[A-Za-z0-9-]{10,}+"  # Slack tokens
            r"|https://hooks\.slack\.com/services/[\w/-]{10,}+"  # Slack webhooks
            r"|(?:AKIA|ASIA)[A-Z0-9]{16}(?![A-Za-z0-9])"  # AWS access key ids
            r"|AIza[\w-]{35,}+"  # Google API keys
            r"|[rs]k_(?:live|test)_[A-Za-z0-9]{16,}+"  # Stripe secret/restricted
            r")",
            re.ASCII,
        ),
        hints=_hints("sk-", "gh", "github_pat_", "xox", "https://hooks.slack.com/services/", "AKIA", "ASIA", "AIza",
               "k_live_", "k_test_"),
    ),
    # scheme://user:pass@host: only the password goes; user may be empty (redis://:pw@).
    # The password runs to the last "@" of the authority, since people do paste
    # unencoded ones (admin:p@ss@db).
    _Rule(
        "password",
        re.compile(
            _token_start(r"\w+.-") + rf"[A-Za-z][\w+.-]*://[^\s:/@\[\]]*:{_NOT_PLACEHOLDER}"
            r"(?P<value>[^\s/@]++(?:@[^\s/@]++)*?)(?=@[^\s/@]*+(?!@))",
            re.ASCII,
        ),
        "value",
        hints=_hints("://"),
    ),
    # key = value / key: "value" where the key ends in a telling word (db_password,
    # clientSecret, x-api-key, aws_secret_access_key...). Only the value goes. The
    # key must be followed directly by the separator, so "password reset link" or
    # "token_count: 5" stay.
    _Rule(
        "password",
        re.compile(
            _token_start(r"\w.-") + r"[\w.-]*?"
            r"(?:passw(?:or)?d|passphrase|pwd|secret|token|credentials?"
            r"|(?:api|access|secret|private)[_-]?key)"
            rf"[\"']?[ \t]*[:=][ \t]*(?P<quote>[\"'])?{_NOT_PLACEHOLDER}"
            r"(?P<value>(?(quote)[^\"'\r\n]+|[^\s\"',;&]+))",
            re.ASCII | re.IGNORECASE,
        ),
        "value",
        hints=_hints(":", "="),
    ),
    # Last, so that e-mail-like text inside the secrets above is already gone.
    _Rule(
        "email",
        re.compile(
            _token_start(r"\w.%+-") + r"[\w.%+-]++@(?:[A-Za-z0-9-]+\.)+[A-Za-z]{2,}",
            re.ASCII,
        ),
        hints=_hints("@"),
    ),
)

_ANY_HINT = re.compile("|".join(f"(?{'i' if rule.hints.flags & re.IGNORECASE else ''}:{rule.hints.pattern})"
                                for rule in _RULES), re.ASCII)
"""Any rule's hint: a text without one holds no secret (and is returned as it is, without a scan per rule)."""

# A span of the current text that is a placeholder we inserted: (start, end, kind).
_Span = tuple[int, int, str]


def _apply(rule: _Rule, text: str, spans: list[_Span]) -> tuple[str, list[_Span]]:
    """Replace the rule's matches, shifting (or dropping, if swallowed) older spans."""
    pieces: list[str] = []
    new_spans: list[_Span] = []
    last = delta = i = 0
    placeholder = f"{_PLACEHOLDER}{rule.kind}]"
    for match in rule.regex.finditer(text):
        start, end = match.span(rule.group)
        while i < len(spans) and spans[i][1] <= start:
            a, b, kind = spans[i]
            new_spans.append((a + delta, b + delta, kind))
            i += 1
        while i < len(spans) and spans[i][0] < end:  # swallowed by this match
            i += 1
        pieces += (text[last:start], placeholder)
        new_spans.append((start + delta, start + delta + len(placeholder), rule.kind))
        delta += len(placeholder) - (end - start)
        last = end
    if not pieces:
        return text, spans
    pieces.append(text[last:])
    new_spans += [(a + delta, b + delta, kind) for a, b, kind in spans[i:]]
    return "".join(pieces), new_spans


def redact(text: str) -> Redacted:
    """Replace every secret in ``text`` with ``[REDACTED:<kind>]``."""
    spans: list[_Span] = []
    if _ANY_HINT.search(text) is None:
        return Redacted(text, ())
    for rule in _RULES:
        if rule.hints.search(text) is not None:
            text, spans = _apply(rule, text, spans)
    return Redacted(text, tuple(dict.fromkeys(kind for _, _, kind in spans)))


_PLACED = re.compile(r"\[REDACTED:(" + "|".join(_KINDS) + r")\]")


def placeholders(text: str) -> list[tuple[int, int, str]]:
    """The ``[REDACTED:<kind>]`` placeholders already in ``text``: (start, end, kind) each."""
    return [(m.start(), m.end(), m.group(1)) for m in _PLACED.finditer(text)] if _PLACEHOLDER in text else []


def redact_and_cut(text: str, head: int, tail: int = 0, *, marker: str = " ...") -> Redacted:
    """:func:`redact` the whole text, then keep its first ``head`` and last ``tail`` characters.

    Cutting after redaction means no part of a secret survives a cut (a key's lines after it,
    a token's tail): the cut falls among placeholders, never inside one. ``marker`` stands for
    the part left out; ``{n}`` in it becomes how many characters that was. The kinds returned
    include those of placeholders the text held already.
    """
    clean = redact(text)
    kinds = dict.fromkeys([*clean.kinds, *(kind for _, _, kind in placeholders(text))])
    body = clean.text
    if len(body) <= head + tail:
        return Redacted(body, tuple(kinds))
    end, start = head, len(body) - tail
    for a, b, _ in placeholders(body):
        if a < end < b:
            end = a
        if a < start < b:
            start = b
    kept = body[:end] + marker.format(n=start - end) + (body[start:] if tail else "")
    return Redacted(kept, tuple(kinds))


def guard(text: str, mode: SecretMode, *, field: str) -> Redacted:
    """Apply the secret policy to one field value.

    ``"redact"`` returns :func:`redact` of the text. ``"reject"`` raises
    :class:`SecretRejectedError` naming the field and the kinds (never the value) if
    any secret is found, and otherwise returns the text unchanged.
    """
    if mode == "redact":
        return redact(text)
    if mode != "reject":
        raise InvalidInputError(f"secret mode must be 'redact' or 'reject', not {mode!r}")
    kinds = redact(text).kinds
    if kinds:
        raise SecretRejectedError(
            f"{field} contains a secret ({', '.join(kinds)}) and secrets are rejected",
            kinds,
        )
    return Redacted(text, ())
