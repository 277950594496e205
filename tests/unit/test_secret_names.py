"""A secret is never an entity's name (``rules.text.entity_name``).

Redacting a name would make different entities one: every e-mail address would become
the entity ``[REDACTED:email]``, every "Dana's key sk-..." the entity "Dana's key
[REDACTED:api_key]", and their facts would merge. So a name that is or contains a
secret is refused, with the redact policy as with the reject one.
"""

from __future__ import annotations

import pytest

from synapse_graph.errors import InvalidInputError, InvalidNameError, SecretRejectedError
from synapse_graph.rules.redaction import guard
from synapse_graph.rules.text import USER_NAME, clean_name, entity_name

KEY = "sk-" + "Ab3dE" * 8  # assembled at runtime: no secret-shaped literal in the repository
SECRET_NAMES = [
    pytest.param("dana.smith@example.com", "email", id="email"),
    pytest.param(f"  {KEY} ", "api_key", id="api-key"),
    pytest.param(f"Dana's key {KEY}", "api_key", id="key-among-words"),
    pytest.param("mail dana.smith@example.com today", "email", id="email-among-words"),
    pytest.param("db password=hunter2", "password", id="password"),
]


@pytest.mark.parametrize(("raw", "kind"), SECRET_NAMES)
def test_a_secret_name_is_refused_when_secrets_are_redacted(raw: str, kind: str) -> None:
    with pytest.raises(InvalidNameError, match=r"^subject .*contains a secret") as raised:
        entity_name(raw, "redact", field="subject")
    message = str(raised.value)
    assert kind in message and "cannot be an entity's name" in message
    assert KEY not in message and "dana.smith@example.com" not in message and "hunter2" not in message


@pytest.mark.parametrize(("raw", "kind"), SECRET_NAMES)
def test_a_secret_name_is_refused_when_secrets_are_rejected(raw: str, kind: str) -> None:
    with pytest.raises(SecretRejectedError) as raised:
        entity_name(raw, "reject", field="object")
    assert raised.value.kinds == (kind,)


def test_two_redacted_addresses_no_longer_become_one_entity() -> None:
    # What the facade did before: guard(clean_name(raw)) then clean_name: the same name for both.
    before = {clean_name(guard(clean_name(raw), "redact", field="name").text) for raw in ("a@x.io", "b@y.io")}
    assert before == {"[REDACTED:email]"}
    for raw in ("a@x.io", "b@y.io"):
        with pytest.raises(InvalidNameError):
            entity_name(raw, "redact")


@pytest.mark.parametrize(
    ("raw", "expected"),
    [("  Dana   Reyes ", "Dana Reyes"), ("me", USER_NAME), ("e\u0301cole", "\u00e9cole"),
     ("[REDACTED:email]", "[REDACTED:email]"),  # typed as is: hides no secret, so an existing entity stays reachable
     ("root@localhost", "root@localhost"), ("sk-learn-contrib-metric-learn", "sk-learn-contrib-metric-learn")],
)
def test_names_without_secrets_are_cleaned_as_before(raw: str, expected: str) -> None:
    assert entity_name(raw, "redact") == expected
    assert entity_name(raw, "reject") == expected
    assert entity_name(raw, "redact") == clean_name(raw)


@pytest.mark.parametrize("raw", ["", "   ", "x" * 121, "a\x00b"])
def test_other_bad_names_are_refused_as_before(raw: str) -> None:
    with pytest.raises(InvalidInputError):
        entity_name(raw, "redact")


def test_a_too_long_name_does_not_echo_its_secret() -> None:
    with pytest.raises(InvalidNameError, match="120") as raised:
        clean_name(KEY + " " + "x" * 120, field="subject")
    assert KEY not in str(raised.value) and "[REDACTED:api_key]" in str(raised.value)


def test_an_unknown_mode_is_refused() -> None:
    with pytest.raises(InvalidInputError, match="secret mode"):
        entity_name("Dana", "drop")  # type: ignore[arg-type]
