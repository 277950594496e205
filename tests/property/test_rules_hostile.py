"""Hostile input through the pure input rules: times, entity names, redaction.

* ``to_micros`` returns an instant in years 1-9999 or raises ``InvalidTimeError`` for any
  value (text built from date tokens, any Unicode, bytes, numbers of every kind, zoned
  datetimes, containers), and never lets a warning escape (warnings are errors here).
* ``entity_name`` returns a name in which no secret is left, or raises an
  ``InvalidInputError``; cleaning its result again changes nothing.
* ``redact`` is idempotent on text mixing secrets, placeholders and their fragments.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from datetime import timedelta, timezone

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from synapse_graph.errors import InvalidInputError, InvalidNameError, InvalidTimeError, SecretRejectedError
from synapse_graph.rules.redaction import Redacted, redact
from synapse_graph.rules.text import entity_name
from synapse_graph.rules.timeparse import MAX_MICROS, MIN_MICROS, to_micros


@pytest.fixture(autouse=True)
def warnings_are_errors() -> Iterator[None]:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        yield


DATE_TOKENS = (
    "2024", "0044", "44", "03", "15", "1", "31", "99", "100", "0", "00", "9999", "10000", "12345678",
    "٢٠٢٤", "２０２４",
    "March", "Mar", "mar", "Feb", "Sept", "Monday", "Fri", "of", "at", "on", "the", "th", "st", "am", "pm", "noon",
    "T", "Z", "z", "UTC", "GMT", "UT", "PST", "CET", "EST", "CEST", "BST", "IST", "BRST", "A", "XYZZY",
    "BC", "BCE", "B.C.", "AD", "CE",
    " ", " ", "-", "+", "−", "–", "/", ".", ":", ",", "(", ")", "'", "\t", "\n", "\x00", "\ud800",
    "09:30", "23:59:60", "24:00", "+01:00", "-0500", "+2400", "+99:99", "-44-03-15", "2024-03-01", "2024-W09-5",
)
date_text = st.lists(st.sampled_from(DATE_TOKENS), max_size=10).map("".join)
texts = st.one_of(date_text, st.text(max_size=70), st.text(alphabet="0123456789-+/.:, TZ", max_size=30))
any_value = st.one_of(
    texts,
    st.binary(max_size=20),
    st.binary(max_size=20).map(bytearray),
    st.none(),
    st.booleans(),
    st.integers(),
    st.integers(min_value=-(10**5000), max_value=10**5000),
    st.floats(),
    st.decimals(),
    st.fractions(),
    st.complex_numbers(),
    st.dates(),
    st.datetimes(timezones=st.none() | st.timezones()),
    st.builds(timezone, st.timedeltas(min_value=timedelta(hours=-23), max_value=timedelta(hours=23))).flatmap(
        lambda zone: st.datetimes(timezones=st.just(zone))
    ),
    st.times(),
    st.timedeltas(),
    st.lists(st.integers(), max_size=3),
    st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
)


@settings(max_examples=2_000, deadline=None)
@given(any_value)
@example("2024-03-01 09:30 PST")
@example("-44-03-15")
@example("March 5 0024")
@example("Jan of 01")
@example("2024-03-01 09:30 +2400")
def test_times_parse_or_are_refused_cleanly(value: object) -> None:
    try:
        micros = to_micros(value, field="valid_at")
    except InvalidTimeError as exc:
        assert str(exc).startswith("valid_at: ")
        return
    assert type(micros) is int
    assert MIN_MICROS <= micros <= MAX_MICROS


@settings(max_examples=1_000, deadline=None)
@given(date_text)
def test_a_time_string_reads_the_same_every_time(text: str) -> None:
    # The parse is cached: the cached and the uncached path must agree (value or error).
    outcomes = []
    for _ in range(2):
        try:
            outcomes.append(to_micros(text))
        except InvalidTimeError as exc:
            outcomes.append(str(exc))
    assert outcomes[0] == outcomes[1]


KEY = "sk-" + "Ab3dE" * 8  # assembled at runtime: no secret-shaped literal in the repository
NAME_PIECES = st.sampled_from(
    ["Dana", " ", "'s", "key", KEY, "dana@example.com", "a@b.io", "[REDACTED:email]", "[REDACTED:", "]", "me",
     "password=hunter2", "Bearer abc123def456ghi789", "-----BEGIN ", "\u00a0", "é", "e\u0301", "\x00", "\ud800"]
)
names = st.one_of(st.lists(NAME_PIECES | st.text(max_size=4), max_size=12).map("".join), st.text(max_size=130))


@settings(max_examples=1_000, deadline=None)
@given(names, st.sampled_from(["redact", "reject"]))
def test_entity_names_hold_no_secret(raw: str, mode: str) -> None:
    try:
        name = entity_name(raw, mode, field="subject")  # type: ignore[arg-type]
    except (InvalidNameError, SecretRejectedError) as exc:
        assert "subject" in str(exc)
        hidden = redact(raw).text
        for secret in (KEY, "dana@example.com", "hunter2"):
            if secret in raw and secret not in hidden:  # redaction removes it everywhere: so must the message
                assert secret not in str(exc)
        return
    except InvalidInputError:
        return  # text the store cannot hold (NUL, lone surrogates)
    assert redact(name).kinds == ()
    assert entity_name(name, mode) == name  # type: ignore[arg-type]


SECRET_PIECES = st.sampled_from(
    [KEY, "dana@example.com", "[REDACTED:email]", "[REDACTED:api_key]", "[REDACTED:", "]", "password=", "token: ",
     "Bearer ", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiI0MiJ9.sig", "://u:", "@host", " ", "\n", "-", "_", "sk-", "x"]
)


@settings(max_examples=1_000, deadline=None)
@given(st.lists(SECRET_PIECES | st.text(max_size=6), max_size=30).map("".join))
def test_redaction_is_idempotent(text: str) -> None:
    once = redact(text)
    assert redact(once.text) == Redacted(once.text, ())
