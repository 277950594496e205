"""Hostile text is data: it is stored and read back exactly, and changes nothing else in the graph."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable

import pytest

from synapse_graph import InvalidInputError, Memory, Triple
from tests.integration.helpers import populated_scope, snapshot

PAYLOADS = {
    "single-quote": "O'Brien",
    "double-quote": 'say "hi"',
    "backtick": "back`tick`",
    "brace": "x}) RETURN 1 {",
    "comment": "// not a comment",
    "detach-delete": "MATCH (n) DETACH DELETE n",
    "quote-then-cypher": "a'}) MATCH (n) DETACH DELETE n //",
    "param": "$param $scope",
    "backslash": "C:\\new\\table\\'",
    "emoji": "parrot 🦜‍🔥 👩🏽‍💻",
    "rtl-mark": "\u200fשלום\u200f world",
    "newlines": "line one\nline two\r\n\tline three",
    "decomposed": "Cafe\u0301 cre\u0300me",  # NFC makes it "Café crème"
    "first-person": "  ME ",
}


def as_name(text: str) -> str:
    """The documented normalisation of entity names: NFC, whitespace collapsed, `me` -> `User`."""
    name = re.sub(r"\s+", " ", unicodedata.normalize("NFC", text)).strip()
    return "User" if name.casefold() in {"me", "i", "user", "myself"} else name


def as_text(text: str) -> str:
    """The documented normalisation of free text (sources): NFC, trimmed."""
    return unicodedata.normalize("NFC", text).strip()


@pytest.fixture
def bystander(make_memory: Callable[..., Memory], backend_name: str) -> Memory:
    """Another scope on the same database, whose data must survive whatever is written next door."""
    return populated_scope(make_memory, backend_name)


@pytest.mark.parametrize("payload", PAYLOADS.values(), ids=PAYLOADS.keys())
def test_hostile_text_round_trips_and_changes_nothing_else(memory: Memory, bystander: Memory, payload: str) -> None:
    memory.upsert(("Anchor", "LIKES", "Tea"))
    others, entities = snapshot(bystander), memory.stats().entities
    subject, obj, source = f"{payload} S", f"O {payload}", f"source: {payload}"

    memory.upsert(Triple(subject=subject, predicate="MENTIONS", object=obj, subject_type=payload), source=source)

    [fact] = memory.facts(subject)
    assert (fact.subject, fact.object, fact.source) == (as_name(subject), as_name(obj), as_text(source))
    assert memory.facts(object=obj) == [fact]
    assert memory.neighbourhood(obj) == [fact]
    entity = memory.entity(subject)
    assert entity is not None and (entity.name, entity.type) == (as_name(subject), as_text(payload))

    alias = f"{payload} alias"
    memory.alias("Anchor", alias)
    anchor = memory.entity(alias)
    assert anchor is not None and (anchor.name, anchor.aliases) == ("Anchor", [as_name(alias)])
    assert [fact.object for fact in memory.facts(alias)] == ["Tea"]

    assert memory.stats().entities == entities + 2  # nothing else was created or deleted here...
    assert snapshot(bystander) == others  # ...nor in the other scope


@pytest.mark.parametrize(
    "call",
    [
        pytest.param(lambda m: m.upsert(("Da\x00na", "LIKES", "Tea")), id="subject"),
        pytest.param(lambda m: m.upsert(("Dana", "LIKES", "\x00")), id="object"),
        pytest.param(lambda m: m.upsert(("Dana", "LIKES", "Tea"), source="\x00 DETACH DELETE"), id="source"),
        pytest.param(lambda m: m.upsert(Triple(subject="Dana", predicate="LIKES", object="Tea", subject_type="a\x00")),
                     id="type"),
        pytest.param(lambda m: m.alias("Dana", "D\x00"), id="alias"),
        pytest.param(lambda m: m.facts("Da\x00na"), id="read"),
    ],
)
def test_nul_is_refused(memory: Memory, bystander: Memory, call: Callable[[Memory], object]) -> None:
    memory.upsert(("Dana", "LIKES", "Coffee"))
    before, others = snapshot(memory), snapshot(bystander)
    with pytest.raises(InvalidInputError) as raised:
        call(memory)
    assert raised.type is InvalidInputError
    assert "NUL" in str(raised.value)
    assert (snapshot(memory), snapshot(bystander)) == (before, others)
