"""Tests for the text rules: entity names, free text, scopes and predicates."""

from __future__ import annotations

import contextlib
import unicodedata

import pytest
from hypothesis import given
from hypothesis import strategies as st

from synapse_graph.engine.scope_rules import requested
from synapse_graph.errors import InvalidInputError, InvalidNameError, InvalidPredicateError, InvalidScopeError
from synapse_graph.models import ScopeRules
from synapse_graph.rules.predicates import (
    DEFAULT_SINGLE_VALUED,
    MAX_PREDICATE_LENGTH,
    SAME_AS,
    check_predicate,
)
from synapse_graph.rules.text import (
    MAX_NAME_LENGTH,
    MAX_TEXT_LENGTH,
    USER_NAME,
    check_scope,
    check_storable,
    clean_name,
    clean_text,
    name_key,
)

# -- names -----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("Dana", "Dana"),
        ("  Dana   Scully ", "Dana Scully"),
        ("Dana\t\nScully", "Dana Scully"),
        ("Dana\u00a0Scully", "Dana Scully"),  # no-break space is whitespace too
        ("Cafe\u0301", "Café"),  # NFC
        ("Zoë", "Zoë"),
        ("東京", "東京"),
    ],
)
def test_clean_name(raw: str, expected: str) -> None:
    assert clean_name(raw) == expected


@pytest.mark.parametrize("raw", ["me", "Me", "ME", "I", "i", "user", "User", "USER", "myself", " Myself "])
def test_words_for_the_user_mean_the_user_entity(raw: str) -> None:
    assert clean_name(raw) == USER_NAME == "User"


@pytest.mark.parametrize("raw", ["Mei", "my", "users", "I am", "Me Too"])
def test_only_the_whole_name_maps_to_the_user(raw: str) -> None:
    assert clean_name(raw) != USER_NAME


@pytest.mark.parametrize("raw", ["", " ", "\t\n", "\u00a0"])
def test_empty_names_refused(raw: str) -> None:
    with pytest.raises(InvalidNameError, match="empty"):
        clean_name(raw)


def test_name_length_limit_counts_the_cleaned_name() -> None:
    assert clean_name("a" * MAX_NAME_LENGTH) == "a" * MAX_NAME_LENGTH
    assert clean_name("a" + " " * 500 + "b") == "a b"
    with pytest.raises(InvalidNameError, match=f"limit is {MAX_NAME_LENGTH}"):
        clean_name("a" * (MAX_NAME_LENGTH + 1))


@pytest.mark.parametrize("raw", ["Da\x00na", "Da\ud800na", "\udfff"])
def test_names_the_store_cannot_hold_are_refused(raw: str) -> None:
    with pytest.raises(InvalidInputError):
        clean_name(raw)


@pytest.mark.parametrize("raw", [None, 42, b"Dana", ["Dana"]])
def test_non_string_names_refused(raw: object) -> None:
    with pytest.raises(InvalidInputError, match="must be a string"):
        clean_name(raw)  # type: ignore[arg-type]


def test_errors_name_the_field() -> None:
    with pytest.raises(InvalidNameError, match=r"^subject is empty"):
        clean_name("  ", field="subject")


@pytest.mark.parametrize(
    ("a", "b"),
    [("Paris", "PARIS"), ("paris", "Paris"), ("Straße", "STRASSE"), ("Café", "Cafe\u0301"), ("ǅ", "ǆ")],
)
def test_name_key_ignores_case_and_normal_form(a: str, b: str) -> None:
    assert name_key(clean_name(a)) == name_key(clean_name(b))


def test_name_key_keeps_different_names_apart() -> None:
    assert name_key("Paris") != name_key("Pàris")
    assert name_key("Dana Scully") != name_key("DanaScully")


storable_text = st.text(st.characters(exclude_categories=["Cs"], exclude_characters="\x00"), max_size=150)


@given(storable_text)
def test_clean_name_is_idempotent_and_keys_are_stable(raw: str) -> None:
    try:
        name = clean_name(raw)
    except InvalidNameError:
        return
    assert clean_name(name) == name
    assert name == unicodedata.normalize("NFC", name)
    assert name == name.strip() and "  " not in name and 0 < len(name) <= MAX_NAME_LENGTH
    assert name_key(name) == name_key(clean_name(name))
    assert name_key(name_key(name)) == name_key(name)


@given(st.text(max_size=150))
def test_clean_name_never_fails_unexpectedly(raw: str) -> None:
    with contextlib.suppress(InvalidInputError):
        clean_name(raw)


# -- free text -------------------------------------------------------------------------------------


def test_clean_text() -> None:
    assert clean_text(None, field="source") is None
    assert clean_text("   ", field="source") is None
    assert clean_text("  notes.md ", field="source") == "notes.md"
    assert clean_text("Cafe\u0301", field="source") == "Café"
    assert clean_text("x" * MAX_TEXT_LENGTH, field="source") == "x" * MAX_TEXT_LENGTH
    with pytest.raises(InvalidInputError, match=f"limit is {MAX_TEXT_LENGTH}"):
        clean_text("x" * (MAX_TEXT_LENGTH + 1), field="source")
    with pytest.raises(InvalidInputError, match="limit is 10"):
        clean_text("x" * 11, field="model", max_length=10)
    with pytest.raises(InvalidInputError, match="NUL"):
        clean_text("a\x00b", field="source")


def test_check_storable() -> None:
    assert check_storable("fine ✓", field="x") == "fine ✓"
    with pytest.raises(InvalidInputError, match="NUL"):
        check_storable("\x00", field="x")
    with pytest.raises(InvalidInputError, match="surrogate"):
        check_storable("\ud83d", field="x")
    with pytest.raises(InvalidInputError, match="must be a string"):
        check_storable(3, field="x")  # type: ignore[arg-type]


# -- scopes ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "scope", ["default", "a", "7", "acme/web/session-1", "team_a.b:c@d-e/f", "A" * 128, "user@example.org"]
)
def test_valid_scopes(scope: str) -> None:
    assert check_scope(scope) == scope


@pytest.mark.parametrize(
    "scope",
    ["", "-a", "/a", "_a", ".a", "a b", "a\n", "a\tb", "ä", "a*", "a" * 129, "a#b", "a\\b", "a?b", "a%20"],
)
def test_invalid_scopes(scope: str) -> None:
    with pytest.raises(InvalidScopeError, match="invalid scope"):
        check_scope(scope)


@pytest.mark.parametrize("scope", [None, 1, b"abc", ["a"]])
def test_non_string_scopes_refused(scope: object) -> None:
    with pytest.raises(InvalidScopeError):
        check_scope(scope)  # type: ignore[arg-type]


@given(st.from_regex(r"[A-Za-z0-9][A-Za-z0-9_.:/@-]{0,127}", fullmatch=True))
def test_every_scope_of_the_documented_alphabet_is_accepted(scope: str) -> None:
    assert check_scope(scope) == scope


@given(st.text(max_size=140))
def test_scopes_outside_the_alphabet_are_refused(scope: str) -> None:
    allowed = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.:/@-")
    ok = 1 <= len(scope) <= 128 and set(scope) <= allowed and scope[0].isascii() and scope[0].isalnum()
    if ok:
        assert check_scope(scope) == scope
    else:
        with pytest.raises(InvalidScopeError):
            check_scope(scope)


# -- predicates ------------------------------------------------------------------------------------


@pytest.mark.parametrize("predicate", ["A", "WORKS_AT", "A1", "HAS_2ND_HOME", "X_Y_Z", "A" * MAX_PREDICATE_LENGTH])
def test_valid_predicates(predicate: str) -> None:
    assert check_predicate(predicate) == predicate


@pytest.mark.parametrize(
    "predicate",
    [
        "",
        "works_at",
        "Works_At",
        "_A",
        "A_",
        "A__B",
        "1A",
        "A-B",
        "A B",
        "WORKS_AT\n",
        "É",
        "A" * (MAX_PREDICATE_LENGTH + 1),
        "A" * 500,
    ],
)
def test_invalid_predicates(predicate: str) -> None:
    with pytest.raises(InvalidPredicateError, match="UPPER_SNAKE_CASE"):
        check_predicate(predicate)


def test_long_predicates_are_shown_shortened() -> None:
    with pytest.raises(InvalidPredicateError) as info:
        check_predicate("a" * 500)
    assert "a" * 71 not in str(info.value) and "..." in str(info.value)


@pytest.mark.parametrize("predicate", [None, 1, b"WORKS_AT"])
def test_non_string_predicates_refused(predicate: object) -> None:
    with pytest.raises(InvalidPredicateError, match="must be a string"):
        check_predicate(predicate)


def test_same_as_is_reserved() -> None:
    with pytest.raises(InvalidPredicateError, match="reserved"):
        check_predicate(SAME_AS)
    assert check_predicate(SAME_AS, allow_same_as=True) == SAME_AS


@given(st.from_regex(r"[A-Z][A-Z0-9]*(_[A-Z0-9]+)*", fullmatch=True).filter(lambda p: len(p) <= 64))
def test_upper_snake_case_predicates_are_accepted(predicate: str) -> None:
    if predicate == SAME_AS:
        return
    assert check_predicate(predicate) == predicate


@given(st.text(max_size=80))
def test_any_text_is_a_predicate_or_refused(text: str) -> None:
    try:
        assert check_predicate(text) == text
    except InvalidPredicateError:
        return
    assert text.isascii() and text == text.upper() and "__" not in text and len(text) <= MAX_PREDICATE_LENGTH


def test_default_single_valued_predicates_are_valid() -> None:
    assert ScopeRules().single_valued == DEFAULT_SINGLE_VALUED
    assert {"LIVES_IN", "WORKS_AT"} <= DEFAULT_SINGLE_VALUED and "KNOWS" not in DEFAULT_SINGLE_VALUED
    assert all(check_predicate(p) == p for p in DEFAULT_SINGLE_VALUED)


def test_requested_rules_are_checked() -> None:
    assert requested(single_valued=["HAS_MANAGER"], max_facts=5) == {
        "single_valued": frozenset({"HAS_MANAGER"}), "max_facts": 5}
    assert requested() == {}
    for bad in ({"single_valued": ["has_manager"]}, {"single_valued": [SAME_AS]}, {"single_valued": "LIVES_IN"},
                {"max_facts": -1}, {"max_facts": True}, {"max_entities": 2.5}, {"candidate_below": 1.5},
                {"candidate_below": True}, {"max_candidates": "10"}):
        with pytest.raises(InvalidInputError):
            requested(**bad)
