"""Bad input is refused with the documented error, and the store is left exactly as it was."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from synapse_graph import (
    InvalidImportError,
    InvalidInputError,
    InvalidNameError,
    InvalidPredicateError,
    InvalidTimeError,
    Memory,
    SecretRejectedError,
    Triple,
)
from tests.integration.helpers import populated_scope, snapshot

Call = Callable[[Memory], Any]


def good(n: int) -> Triple:
    return Triple(subject="Eve", predicate="LIKES", object=f"Thing {n}", valid_at="2024-01-01")


def case(call: Call, error: type[Exception], name: str) -> Any:
    return pytest.param(call, error, id=name)


ERRORS = [
    # Predicates
    case(lambda m: m.upsert(("Dana", "lives_in", "Paris")), InvalidPredicateError, "predicate-lowercase"),
    case(lambda m: m.upsert(("Dana", "LIVES IN", "Paris")), InvalidPredicateError, "predicate-space"),
    case(lambda m: m.upsert(("Dana", "A" * 65, "Paris")), InvalidPredicateError, "predicate-65-chars"),
    case(lambda m: m.upsert(("Dana", "", "Paris")), InvalidPredicateError, "predicate-empty"),
    case(lambda m: m.facts("Dana", "SAME_AS"), InvalidPredicateError, "same-as-via-facts"),
    case(lambda m: m.retract("Dana", "SAME_AS"), InvalidPredicateError, "same-as-via-retract"),
    case(lambda m: m.upsert({"subject": "Dana", "predicate": 42, "object": "Paris"}), InvalidPredicateError,
         "predicate-not-a-string-upsert"),
    case(lambda m: m.upsert(("Dana", 42, "Paris")), InvalidPredicateError, "predicate-not-a-string-tuple"),
    case(lambda m: m.facts("Dana", 42), InvalidPredicateError, "predicate-not-a-string-facts"),
    case(lambda m: m.retract("Dana", None), InvalidPredicateError, "predicate-not-a-string-retract"),
    # Times
    case(lambda m: m.upsert(("Dana", "LIVES_IN", "Rome"), valid_at="not a date"), InvalidTimeError, "time-unparseable"),
    case(lambda m: m.upsert(("Dana", "LIVES_IN", "Rome"), valid_at="01/02/2024"), InvalidTimeError, "time-ambiguous"),
    case(lambda m: m.upsert(("Dana", "LIVES_IN", "Rome"), valid_at=10**12), InvalidTimeError, "time-out-of-range"),
    case(lambda m: m.upsert(("Dana", "LIVES_IN", "Rome"), valid_at=-(10**12)), InvalidTimeError, "time-before-year-1"),
    case(lambda m: m.upsert(("Dana", "LIVES_IN", "Rome"), valid_at=float("nan")), InvalidTimeError, "time-nan-epoch"),
    case(lambda m: m.upsert(("Dana", "LIVES_IN", "Rome"), valid_at=float("inf")), InvalidTimeError, "time-inf-epoch"),
    case(lambda m: m.upsert(Triple(subject="Dana", predicate="LIVES_IN", object="Rome", valid_at="2024-02-01",
                                   invalid_at="2024-01-01")), InvalidTimeError, "invalid-at-before-valid-at"),
    case(lambda m: m.upsert(Triple(subject="Dana", predicate="LIVES_IN", object="Rome", valid_at="2024-02-01",
                                   invalid_at="2024-02-01")), InvalidTimeError, "invalid-at-equals-valid-at"),
    case(lambda m: m.upsert(Triple(subject="Dana", predicate="LIVES_IN", object="Rome", invalid_at="2001-01-01")),
         InvalidTimeError, "invalid-at-before-default-now"),
    case(lambda m: m.facts("Dana", as_of="yesterday-ish"), InvalidTimeError, "as-of-unparseable"),
    case(lambda m: m.retract("Dana", "LIVES_IN", at="03/04/2024"), InvalidTimeError, "retract-at-ambiguous"),
    # Names
    case(lambda m: m.upsert(("", "LIVES_IN", "Rome")), InvalidNameError, "name-empty"),
    case(lambda m: m.upsert((" \t\n ", "LIVES_IN", "Rome")), InvalidNameError, "name-whitespace-only"),
    case(lambda m: m.upsert(("x" * 121, "LIVES_IN", "Rome")), InvalidNameError, "name-121-chars"),
    case(lambda m: m.upsert(("Dana", "LIVES_IN", " ")), InvalidNameError, "object-whitespace-only"),
    case(lambda m: m.alias("Dana", ""), InvalidNameError, "alias-empty"),
    # Other input
    case(lambda m: m.upsert(Triple(subject="Dana", predicate="LIKES", object="Rome", confidence=1.5)),
         InvalidInputError, "confidence-above-1"),
    case(lambda m: m.upsert(Triple(subject="Dana", predicate="LIKES", object="Rome", confidence=-0.1)),
         InvalidInputError, "confidence-below-0"),
    case(lambda m: m.neighbourhood("Dana", hops=3), InvalidInputError, "hops-3"),
    case(lambda m: m.upsert(("Da\x00na", "LIKES", "Rome")), InvalidInputError, "nul-in-subject"),
    case(lambda m: m.upsert(("Dana", "LIKES", "Ro\x00me")), InvalidInputError, "nul-in-object"),
    case(lambda m: m.upsert(("Dana", "LIKES", "Rome"), source="chat\x00"), InvalidInputError, "nul-in-source"),
    case(lambda m: m.alias("Dana", "D\x00"), InvalidInputError, "nul-in-alias"),
    # A read's filter the store cannot hold either (FalkorDB refused the query itself: a 500 in the web API)
    case(lambda m: m.audit(action="up\x00sert"), InvalidInputError, "nul-in-audit-action"),
    case(lambda m: m.audit(client="cli\x00"), InvalidInputError, "nul-in-audit-client"),
    case(lambda m: m.audit(session="s\x00"), InvalidInputError, "nul-in-audit-session"),
]


@pytest.fixture
def populated(make_memory: Callable[..., Memory], backend_name: str) -> Memory:
    return populated_scope(make_memory, backend_name)


@pytest.mark.parametrize(("call", "error"), ERRORS)
def test_bad_input_is_refused_and_changes_nothing(populated: Memory, call: Call, error: type[Exception]) -> None:
    before = snapshot(populated)
    with pytest.raises(InvalidInputError) as raised:
        call(populated)
    assert raised.type is error
    assert snapshot(populated) == before


def test_a_name_of_120_characters_is_accepted(memory: Memory) -> None:
    name = "x" * 119 + "y"
    memory.upsert((name, "LIKES", "Tea"))
    entity = memory.entity(name)
    assert entity is not None and entity.name == name
    assert [fact.subject for fact in memory.facts(name)] == [name]


NOT_TRIPLES = [
    pytest.param(None, id="none"),
    pytest.param("Dana LIVES_IN Paris", id="a-sentence"),
    pytest.param(b"Dana LIVES_IN Paris", id="bytes"),
]


@pytest.mark.parametrize("value", NOT_TRIPLES)
def test_upsert_of_no_triple_says_what_to_pass_and_changes_nothing(populated: Memory, value: Any) -> None:
    before = snapshot(populated)
    with pytest.raises(InvalidInputError) as raised:
        populated.upsert(value)
    assert raised.type is InvalidInputError
    message = str(raised.value)
    assert "a Triple, a (subject, predicate, object) tuple, a mapping or a list of them" in message
    assert "upsert(Triple(subject='Dana', predicate='LIVES_IN', object='Paris'))" in message  # an example to copy
    assert snapshot(populated) == before


def test_importing_a_file_that_does_not_exist_changes_nothing(populated: Memory, tmp_path: Path) -> None:
    missing = tmp_path / "no-such-folder" / "export.jsonl"
    before = snapshot(populated)
    for given in (missing, str(missing)):
        with pytest.raises(InvalidImportError, match="give the path of an export") as raised:
            populated.import_(given)
        assert str(missing) in str(raised.value) and raised.value.line is None
    assert snapshot(populated) == before
    assert not missing.parent.exists()  # nothing was created in its place


BAD_TRIPLES = [
    pytest.param(("Eve", "likes", "Tea"), id="bad-predicate"),
    pytest.param(Triple(subject="Eve", predicate="LIKES", object="Tea", valid_at="13/13/13"), id="bad-time"),
    pytest.param(Triple(subject="Eve", predicate="LIKES", object="Tea", invalid_at="2001-01-01"), id="past-end"),
    pytest.param(("", "LIKES", "Tea"), id="bad-name"),
    # A mapping: Triple(confidence=2.0) itself raises, so the bad value must reach upsert as data.
    pytest.param({"subject": "Eve", "predicate": "LIKES", "object": "Tea", "confidence": 2.0}, id="bad-confidence"),
    pytest.param(("Eve", "LIKES", "T\x00ea"), id="nul"),
]


@pytest.mark.parametrize("bad", BAD_TRIPLES)
def test_a_batch_with_one_bad_triple_writes_nothing(populated: Memory, bad: Any) -> None:
    before = snapshot(populated)
    with pytest.raises(InvalidInputError):
        populated.upsert([good(1), good(2), bad, good(3)])
    assert snapshot(populated) == before


@pytest.mark.parametrize("bad", BAD_TRIPLES)
def test_a_batch_with_an_alias_and_one_bad_triple_writes_nothing(populated: Memory, bad: Any) -> None:
    before = snapshot(populated)
    with pytest.raises(InvalidInputError):
        populated.upsert([("Eve", "SAME_AS", "Dana"), good(1), bad])
    assert snapshot(populated) == before


# -- secrets ---------------------------------------------------------------------------------------

API_KEY = "sk-" + "a" * 40  # built at runtime so that no scanner flags this file
EMAIL = "dana.smith@example.com"


def test_secrets_are_redacted_from_text_and_refused_as_names_by_default(memory: Memory) -> None:
    before = snapshot(memory)
    for triple in ((EMAIL, "HAS_KEY", "Dana"), ("Dana", "HAS_KEY", API_KEY), ("Dana", "USES", f"key {API_KEY} daily")):
        with pytest.raises(InvalidNameError, match="a secret cannot be an entity's name") as refused:
            memory.upsert(triple)
        assert EMAIL not in str(refused.value) and API_KEY not in str(refused.value)
    assert snapshot(memory) == before  # refused names write nothing
    memory.upsert(("Dana", "LIKES", "Tea"), source=f"mail from {EMAIL} with {API_KEY}")
    [fact] = memory.facts("Dana")
    assert fact.source == "mail from [REDACTED:email] with [REDACTED:api_key]"  # free text is redacted
    exported = "\n".join(memory.export())
    assert EMAIL not in exported and API_KEY not in exported and "a" * 20 not in exported


SECRET_WRITES = [
    pytest.param(lambda m: m.upsert((EMAIL, "LIKES", "Tea")), id="email-subject"),
    pytest.param(lambda m: m.upsert(("Dana", "HAS_KEY", API_KEY)), id="key-object"),
    pytest.param(lambda m: m.upsert(("Dana", "LIKES", "Tea"), source=f"token {API_KEY}"), id="key-in-source"),
    pytest.param(lambda m: m.upsert([("Eve", "LIKES", "Tea"), ("Dana", "EMAILS", EMAIL)]), id="batch"),
    pytest.param(lambda m: m.alias("Dana", EMAIL), id="alias"),
]


@pytest.mark.parametrize("call", SECRET_WRITES)
def test_secrets_are_rejected_when_configured(make_memory: Any, backend_name: str, call: Call) -> None:
    memory = populated_scope(make_memory, backend_name, secrets="reject")
    before = snapshot(memory)
    with pytest.raises(SecretRejectedError) as raised:
        call(memory)
    assert EMAIL not in str(raised.value) and API_KEY not in str(raised.value)
    assert snapshot(memory) == before
