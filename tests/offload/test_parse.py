"""The reply parser on every kind of reply a model sends: only checked triples come out."""

from __future__ import annotations

import time

import pytest

from synapse_graph.offload.parse import MAX_TRIPLES, normalise_predicate, parse_reply


def spo(reply: str) -> list[tuple[str, str, str]]:
    return [(t.subject, t.predicate, t.object) for t in parse_reply(reply).triples]


def test_clean_json_object() -> None:
    parsed = parse_reply('{"triples": [{"subject": "Dana", "predicate": "LIVES_IN", "object": "Paris", '
                         '"valid_at": "2019-03-01", "confidence": 0.9}]}')
    assert [(t.subject, t.predicate, t.object, t.valid_at, t.confidence) for t in parsed.triples] == [
        ("Dana", "LIVES_IN", "Paris", "2019-03-01", 0.9)]
    assert parsed.dropped == 0 and parsed.problems == []


def test_json_in_a_code_fence_between_prose() -> None:
    reply = ("Sure! Here is what I found:\n```json\n"
             '{"triples": [{"subject": "Dana", "predicate": "WORKS_AT", "object": "Acme"}]}\n'
             "```\nThe example {like this} above is all. [1]")
    assert spo(reply) == [("Dana", "WORKS_AT", "Acme")]


def test_unterminated_fence() -> None:
    assert spo('```json\n[{"subject": "Ed", "predicate": "USES", "object": "vim"}]') == [("Ed", "USES", "vim")]


def test_trailing_prose_and_leading_braces() -> None:
    reply = ('Note {this is not json}. {"facts": [{"subject": "Dana", "relation": "owns", "object": "Rex"}]} '
             "Hope that helps! {also not json")
    assert spo(reply) == [("Dana", "OWNS", "Rex")]


def test_truncated_json_keeps_complete_triples() -> None:
    reply = ('{"triples": [{"subject": "Dana", "predicate": "WORKS_AT", "object": "Acme", "confidence": 0.8}, '
             '{"subject": "Ed", "predicate": "LIVES_IN", "object": "Ro')
    parsed = parse_reply(reply)
    assert spo(reply) == [("Dana", "WORKS_AT", "Acme")]
    assert parsed.truncated and parsed.triples[0].confidence == 0.8


def test_partial_list_of_lists() -> None:
    reply = '[["Dana", "livesIn", "Paris", 0.7], ["Ed", "works-at", "Globex", "2021-05", 1], ["Fay", "KNOWS"'
    parsed = parse_reply(reply)
    assert [(t.subject, t.predicate, t.object, t.valid_at, t.confidence) for t in parsed.triples] == [
        ("Dana", "LIVES_IN", "Paris", None, 0.7), ("Ed", "WORKS_AT", "Globex", "2021-05-01", 1.0)]


def test_wrong_types_are_dropped_or_left_out_with_a_reason() -> None:
    reply = ('{"triples": ['
             '{"subject": 42, "predicate": "HAS_NUMBER", "object": "answer"},'   # a number is a usable name
             '{"subject": "A", "predicate": ["USES"], "object": "vim"},'          # predicate not text: dropped
             '{"subject": "B", "predicate": "USES", "object": {"name": "x"}},'    # object not a name: dropped
             '{"subject": null, "predicate": "USES", "object": "x"},'             # missing subject: dropped
             '{"subject": "C", "predicate": "USES", "object": "emacs", "confidence": "high", "valid_at": true},'
             '"just a string", 17]}')
    parsed = parse_reply(reply)
    assert [(t.subject, t.predicate, t.object) for t in parsed.triples] == [
        ("42", "HAS_NUMBER", "answer"), ("C", "USES", "emacs")]
    kept = parsed.triples[1]
    assert kept.confidence is None and kept.valid_at is None  # unreadable values left out, triple kept
    assert parsed.dropped == 5 and parsed.found == 7
    assert any("predicate is a list" in p for p in parsed.problems)
    assert any("confidence is not a number" in p for p in parsed.problems)


def test_invented_fields_and_synonyms() -> None:
    reply = ('{"result": {"relationships": [{"id": 7, "head": "Dana", "type": "manages", "tail": "Ed", '
             '"reasoning": "she said so", "since": "2023-02-01", "until": "2024-01-01", "score": "85%", '
             '"source_turn": 3}]}}')
    [triple] = parse_reply(reply).triples
    assert (triple.subject, triple.predicate, triple.object) == ("Dana", "MANAGES", "Ed")
    assert (triple.valid_at, triple.invalid_at, triple.confidence) == ("2023-02-01", "2024-01-01", 0.85)


def test_times_years_and_bad_intervals() -> None:
    parsed = parse_reply('[{"subject": "A", "predicate": "P", "object": "x", "valid_at": 2019},'
                         ' {"subject": "B", "predicate": "P", "object": "y", "valid_at": "last week"},'
                         ' {"subject": "C", "predicate": "P", "object": "z", "valid_at": "2024-01-01",'
                         '  "invalid_at": "2023-01-01"},'
                         ' {"subject": "D", "predicate": "P", "object": "w", "valid_at": "01/02/2024"}]')
    assert [(t.subject, t.valid_at) for t in parsed.triples] == [("A", "2019-01-01"), ("B", None), ("D", None)]
    assert any("invalid_at is not after valid_at" in p for p in parsed.problems)


def test_hostile_values_are_checked_not_trusted() -> None:
    reply = ('{"triples": ['
             '{"subject": "Dana\'}) DETACH DELETE n //", "predicate": "LIVES_IN", "object": "Paris"},'
             '{"subject": "x", "predicate": "lives in; MATCH (n) DELETE n", "object": "y"},'
             '{"subject": "Dana", "predicate": "SAME_AS", "object": "Ed"},'
             '{"subject": "' + "N" * 500 + '", "predicate": "IS", "object": "long"},'
             '{"subject": "nul\\u0000byte", "predicate": "IS", "object": "bad"},'
             '{"subject": "Dana", "predicate": "123", "object": "y"},'
             '{"subject": "   ", "predicate": "IS", "object": "blank"}]}')
    parsed = parse_reply(reply)
    # The injection attempt is just a name (it reaches Cypher only as a parameter); the predicate
    # is normalised to a harmless identifier; aliases, over-long and unstorable names are refused.
    assert [(t.subject, t.predicate) for t in parsed.triples] == [
        ("Dana'}) DETACH DELETE n //", "LIVES_IN"), ("x", "LIVES_IN_MATCH_N_DELETE_N")]
    assert parsed.dropped == 5
    assert any("SAME_AS is reserved" in p for p in parsed.problems)
    assert all("N" * 50 not in p for p in parsed.problems)  # reasons never carry the values


def test_duplicates_and_the_triple_cap() -> None:
    many = ", ".join(f'["S{i}", "P", "O"]' for i in range(MAX_TRIPLES + 50))
    parsed = parse_reply(f"[{many}]")
    assert len(parsed.triples) == MAX_TRIPLES and parsed.dropped == 50
    twice = parse_reply('[["Dana", "likes", "tea"], ["dana", "LIKES", "TEA"]]')
    assert len(twice.triples) == 1 and twice.dropped == 1


@pytest.mark.parametrize("reply", ["", "I found no durable facts.", "null", "[1, 2, 3]", '{"answer": 42}',
                                   '{"subject": "Dana", "predicate": "moved", "object": {"subject": "Sp'])
def test_replies_without_triples(reply: str) -> None:
    parsed = parse_reply(reply)
    assert parsed.triples == [] and parsed.problems


def test_empty_list_is_a_valid_answer() -> None:
    parsed = parse_reply('{"triples": []}')
    assert parsed.triples == [] and parsed.problems == []


def test_not_text() -> None:
    assert parse_reply(None).problems == ["reply is NoneType, not text"]


@pytest.mark.parametrize("hostile", ["[" * 60_000, "[{" * 30_000, '{"a": "' + "x" * 70_000, "{" * 60_000])
def test_hostile_shapes_cost_little(hostile: str) -> None:
    started = time.perf_counter()
    parsed = parse_reply(hostile)
    elapsed = time.perf_counter() - started
    assert parsed.triples == []
    # Not a timing assertion of the library's speed: a quadratic parse of this input takes minutes.
    assert elapsed < 30


@pytest.mark.parametrize(("raw", "expected"), [("works at", "WORKS_AT"), ("worksAt", "WORKS_AT"),
                                               ("works-at", "WORKS_AT"), (" Lives_In ", "LIVES_IN"),
                                               ("HTTPServer uses", "HTTPSERVER_USES")])
def test_normalise_predicate(raw: str, expected: str) -> None:
    assert normalise_predicate(raw) == expected
