"""Tests for :mod:`synapse_graph.rules.redaction`.

Every fake secret is assembled at runtime (``"sk-" + "a" * 40``) so that no literal
secret-shaped string sits in the repository and trips secret scanners.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
import time
import uuid

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from synapse_graph.errors import InvalidInputError, SecretRejectedError
from synapse_graph.rules.redaction import Redacted, guard, redact

KEY40 = "Ab3dE" * 8  # 40 mixed key characters


def _pem(label: str, body: str = "MIIEvQIBADANBgkqhkiG9w0BAQEFAASC\nabc+/=\n") -> str:
    kind = label + "PRIV" + "ATE KEY-----"
    return "-----BEGIN " + kind + "\n" + body + "-----END " + kind


def _jwt() -> str:
    def seg(obj: object) -> str:
        raw = json.dumps(obj, separators=(",", ":")).encode()
        return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()

    return seg({"alg": "HS256", "typ": "JWT"}) + "." + seg({"sub": "42"}) + ".s1g_n-4tUre"


API_KEYS = {
    "openai": "sk-" + "a" * 40,
    "openai-project": "sk-" + "proj-" + KEY40,
    "anthropic": "sk-" + "ant-api03-" + KEY40 + "-x_yAA",
    "github-ghp": "gh" + "p_" + KEY40[:36],
    "github-gho": "gh" + "o_" + KEY40[:36],
    "github-ghu": "gh" + "u_" + KEY40[:36],
    "github-ghs": "gh" + "s_" + KEY40[:36],
    "github-ghr": "gh" + "r_" + KEY40[:36],
    "github-pat": "github" + "_pat_" + "11ABCDEFG0" * 3 + "_" + KEY40,
    "slack-xoxb": "xo" + "xb-" + "123456789012-" + KEY40[:24],
    "slack-xoxp": "xo" + "xp-" + "123456789012-" + KEY40[:24],
    "slack-xoxa": "xo" + "xa-" + "2-" + KEY40[:24],
    "slack-xoxr": "xo" + "xr-" + KEY40[:24],
    "slack-xoxs": "xo" + "xs-" + KEY40[:24],
    "slack-webhook": "https://hooks." + "slack.com/services/" + "T0000/B0000/" + "X" * 24,
    "aws-akia": "AK" + "IA" + "ABCDEFGH12345678",
    "aws-asia": "AS" + "IA" + "ABCDEFGH12345678",
    "google": "AI" + "za" + "Sy" + "A1b2C3d4_-" * 3 + "xyz",
    "stripe-live": "sk" + "_live_" + KEY40[:24],
    "stripe-restricted": "rk" + "_live_" + KEY40[:24],
    "stripe-test": "sk" + "_test_" + KEY40[:24],
}


@pytest.mark.parametrize("secret", API_KEYS.values(), ids=API_KEYS.keys())
def test_api_keys(secret: str) -> None:
    assert redact(f"use {secret} now") == Redacted("use [REDACTED:api_key] now", ("api_key",))


def test_email() -> None:
    text = "mail first.last+tag@mail.example.co.uk, thanks"
    assert redact(text).text == "mail [REDACTED:email], thanks"


def test_private_key_block_is_removed_whole() -> None:
    text = "key:\n" + _pem("RSA ", body="x\nops@example.com\n") + "\ndone"
    assert redact(text) == Redacted("key:\n[REDACTED:private_key]\ndone", ("private_key",))


@pytest.mark.parametrize("label", ["", "RSA ", "EC ", "OPENSSH ", "ENCRYPTED "])
def test_private_key_labels(label: str) -> None:
    assert redact(_pem(label)).text == "[REDACTED:private_key]"


def test_pgp_private_key_block() -> None:
    kind = "PGP PRIV" + "ATE KEY BLOCK-----"
    text = "-----BEGIN " + kind + "\n\nlQOYBF0=\n-----END " + kind + " tail"
    assert redact(text).text == "[REDACTED:private_key] tail"


def test_unterminated_private_key_runs_to_end() -> None:
    text = "a " + _pem("RSA ").split("-----END")[0] + "more text"
    assert redact(text).text == "a [REDACTED:private_key]"


def test_jwt() -> None:
    assert redact("t=" + "x " + _jwt() + " end").text == "t=x [REDACTED:jwt] end"


@pytest.mark.parametrize("word", ["Bearer", "bearer", "BEARER"])
def test_bearer_replaces_word_and_token(word: str) -> None:
    text = f"Authorization: {word} abc123DEF456ghi789"
    assert redact(text) == Redacted("Authorization: [REDACTED:bearer_token]", ("bearer_token",))


def test_bearer_wins_over_jwt() -> None:
    assert redact("Bearer " + _jwt()).kinds == ("bearer_token",)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("password=hunter2", "password=[REDACTED:password]"),
        ("passwd: hunter2", "passwd: [REDACTED:password]"),
        ("PWD=hunter2 next", "PWD=[REDACTED:password] next"),
        ("secret = s3cr3t;", "secret = [REDACTED:password];"),
        ("api_key=abc123", "api_key=[REDACTED:password]"),
        ("?token=abc&x=1", "?token=[REDACTED:password]&x=1"),
        ('client_secret: "two words"', 'client_secret: "[REDACTED:password]"'),
        ("DB_PASSWORD='hunter2'", "DB_PASSWORD='[REDACTED:password]'"),
        ('{"Password": "hunter2"}', '{"Password": "[REDACTED:password]"}'),
        ("X-Api-Key: abc123", "X-Api-Key: [REDACTED:password]"),
        ("clientSecret=abc", "clientSecret=[REDACTED:password]"),
        (
            "aws_secret_access_key = " + "wJalrXUtnFEMI/K7MDENG/" + "b" * 18,
            "aws_secret_access_key = [REDACTED:password]",
        ),
    ],
)
def test_assignments_keep_key(text: str, expected: str) -> None:
    assert redact(text) == Redacted(expected, ("password",))


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("postgres://app:" + "pa55" + "@db:5432/x", "postgres://app:[REDACTED:password]@db:5432/x"),
        ("redis://:" + "pw" + "@cache", "redis://:[REDACTED:password]@cache"),
        # An unencoded "@" in the password: it runs to the last "@" of the authority.
        ("https://u:" + "p@ss" + "@h.io/a?b=c", "https://u:[REDACTED:password]@h.io/a?b=c"),
    ],
)
def test_url_credentials(text: str, expected: str) -> None:
    assert redact(text) == Redacted(expected, ("password",))


def test_assignment_whose_value_is_a_key_reports_the_key() -> None:
    # The key prefix rule runs first; the placeholder is then not re-redacted.
    assert redact("api_key=" + API_KEYS["openai"]) == Redacted("api_key=[REDACTED:api_key]", ("api_key",))


def test_kinds_in_order_of_appearance_deduplicated() -> None:
    text = f"a@b.io {API_KEYS['openai']} c@d.io pwd=x {API_KEYS['aws-akia']}"
    assert redact(text).kinds == ("email", "api_key", "password")


NEGATIVES = [
    "Plain prose about the weather, nothing to hide.",
    "We use sk-learn and scikit-learn for the task-list.",
    "ask-me-anything, sk-learn-contrib-imbalanced-learn",
    "Send the password reset link.",
    "my email is down",
    "the secret of success",
    "tokens: 500, token_count: 12",
    "bearer of bad news; Bearer bonds",
    "version 1.2.3, v2.0.0-rc.1, python3.12",
    "root@localhost and @mention and user@",
    "https://example.com:8080/path?q=1",
    "eyJ alone",
    # Bare hex/base64 is not flagged: a git SHA or a UUID is an identifier, not a
    # secret, and flagging high-entropy strings would wreck ordinary memories.
    "commit " + hashlib.sha1(b"x").hexdigest(),
    "id " + str(uuid.UUID(int=0x1234567890ABCDEF1234567890ABCDEF)),
    "[REDACTED:email] was already redacted",
]


@pytest.mark.parametrize("text", NEGATIVES)
def test_negatives_unchanged(text: str) -> None:
    assert redact(text) == Redacted(text, ())


def test_guard_redact_mode() -> None:
    assert guard("pwd=x", "redact", field="note") == redact("pwd=x")


def test_guard_reject_mode_names_field_and_kind_not_secret() -> None:
    secret = API_KEYS["github-ghp"]
    with pytest.raises(SecretRejectedError) as info:
        guard(f"token {secret} and a@b.io", "reject", field="fact.object")
    message = str(info.value)
    assert "fact.object" in message
    assert "api_key" in message and "email" in message
    assert secret not in message and "a@b.io" not in message
    assert info.value.kinds == ("api_key", "email")


def test_guard_reject_mode_passes_clean_text_unchanged() -> None:
    text = "nothing [REDACTED:jwt] here"
    assert guard(text, "reject", field="f") == Redacted(text, ())


def test_guard_unknown_mode() -> None:
    with pytest.raises(InvalidInputError):
        guard("x", "drop", field="f")  # type: ignore[arg-type]


# Fragments that make rules almost-but-not-quite fire next to each other.
_PUNCTUATION = [" ", "\n", *"-_.:=@/'\"[]xA1"]
_PREFIXES = ["sk-", "gh" + "p_", "xo" + "xb-", "AK" + "IA", "AI" + "za", "eyJ", "Bearer ", "://", "com"]
_KEYS = ["password", "token", "api_key", "a@b.io", "-----BEGIN ", "RSA PRIV" + "ATE KEY-----", "-----END "]
_PLACEHOLDERS = ["[REDACTED:email]", "[REDACTED:", KEY40, "Z" * 16, "a" * 20, _jwt(), *API_KEYS.values()]
_FRAGMENTS = st.sampled_from(_PUNCTUATION + _PREFIXES + _KEYS + _PLACEHOLDERS)
_TEXT = st.lists(_FRAGMENTS | st.text(max_size=5), max_size=25).map("".join)


@settings(max_examples=400, deadline=None)
@given(_TEXT)
def test_redact_is_idempotent(text: str) -> None:
    once = redact(text)
    assert redact(once.text) == Redacted(once.text, ())


@given(st.text(alphabet=st.characters(blacklist_characters="-_.:=@/")))
def test_text_without_triggers_is_unchanged(text: str) -> None:
    assume(not any(p in text.lower() for p in ("bearer", "akia", "asia", "aiza")))
    assert redact(text) == Redacted(text, ())


@pytest.mark.parametrize(
    "text",
    [
        "a@" * 50_000,
        "-----BEGIN " * 10_000,
        "eyJ" * 30_000,
        "eyJ." * 25_000,
        "sk-" * 33_000,
        "a" * 100_000,
        "a-" * 50_000,
        "a." * 50_000 + "@",
        "x@" + "a." * 50_000,
        "password" * 12_000,
        "password " * 11_000,
        "Bearer " * 14_000,
        "a://b:" * 16_000,
        "x://" + "a:" * 50_000,
        "x://a:" + "b@" * 50_000,
        "-----BEGIN RSA PRIV" + "ATE KEY-----" + "a@b.c " * 16_000,
    ],
    ids=lambda t: repr(t[:12]),
)
def test_adversarial_input_is_fast(text: str) -> None:
    start = time.perf_counter()
    redact(text)
    assert time.perf_counter() - start < 1.0


def _every_rule(text: str) -> Redacted:
    """redact() without its hints: every rule scans every text."""
    from synapse_graph.rules.redaction import _RULES, _apply

    spans: list[tuple[int, int, str]] = []
    for rule in _RULES:
        text, spans = _apply(rule, text, spans)
    return Redacted(text, tuple(dict.fromkeys(kind for _, _, kind in spans)))


_PIECES = st.sampled_from([
    "Bearer ", "BEARER ", "bEaReR\t", "eyJ", "eyJhbGciOi.", "eyJzdWIiOi.", "sig", "sk-", "sk-proj-", "ghp_", "gho_",
    "github_pat_", "xoxb-", "https://hooks.slack.com/services/", "AKIA", "ASIA", "AIza", "rk_live_", "sk_test_",
    "://", "redis://", "user:", ":", "=", "@", "@example.com", ".org", "password", "api_key", "secret", "Token",
    "-----BEGIN ", "RSA PRIVATE KEY-----", "-----END ", "\u212a", "\u0130", " ", "-", "_", ".", "'", '"',
    "A1b2C3d4E5f6G7h8I9j0", "0123456789abcdefghijKLMNOPQRSTUV", "x",
])


@settings(max_examples=600, deadline=None)
@given(st.lists(_PIECES | st.text(max_size=4), max_size=14).map("".join))
def test_a_rule_skipped_by_its_hints_would_not_have_matched(text: str) -> None:
    # The hints only save time: redact() finds exactly what running every rule on every text finds.
    assert redact(text) == _every_rule(text)


@settings(max_examples=200, deadline=None)
@given(st.sampled_from([API_KEYS["openai-project"], _pem("RSA ", "MIIEvQIBADAN\nBgkqhkiG9w0B\n"), _jwt()]),
       st.text(alphabet="ab \n", max_size=60), st.text(alphabet="ab \n", max_size=60),
       st.integers(0, 90), st.integers(0, 90))
def test_redact_and_cut_never_leaves_part_of_a_secret(secret: str, before: str, after: str, head: int,
                                                      tail: int) -> None:
    from synapse_graph.rules.redaction import redact_and_cut

    cut = redact_and_cut(before + " " + secret + " " + after, head, tail, marker="<{n} cut>")
    pieces = [secret[i:i + 8] for i in range(len(secret) - 7)]
    assert not [p for p in pieces if p in cut.text]
    assert cut.kinds == redact(secret).kinds
    assert all(p.endswith("]") for p in re.findall(r"\[REDACTED:[a-z_]*\]?", cut.text))  # never cut in two
