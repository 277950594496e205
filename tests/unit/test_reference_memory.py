"""The reference memory server's store in our terms (pure): relation types, its file, the writes it makes."""

from __future__ import annotations

import json

import pytest

from synapse_graph.errors import InvalidImportError
from synapse_graph.mcp.reference_memory import read_reference, relation_source, relation_type_of, translate
from synapse_graph.models import Triple
from synapse_graph.rules.predicates import check_predicate, predicate_of


@pytest.mark.parametrize(("relation_type", "predicate"), [
    ("works_at", "WORKS_AT"), ("works at", "WORKS_AT"), ("worksAt", "WORKS_AT"), ("Works-At!", "WORKS_AT"),
    ("connaît", "CONNAIT"), ("2nd cousin of", "REL_2ND_COUSIN_OF"), ("same as", "IS_SAME_AS"),
    ("is friend of", "IS_FRIEND_OF"), ("x" * 100, "X" * 64),
])
def test_a_relation_type_becomes_a_valid_predicate(relation_type: str, predicate: str) -> None:
    assert predicate_of(relation_type) == predicate == check_predicate(predicate)


def test_types_without_latin_letters_stay_apart_and_every_type_reads_back() -> None:
    first, second = predicate_of("知道"), predicate_of("喜欢")
    assert first != second and first.startswith("RELATION_") and check_predicate(first) == first
    for text in ("works at", "知道", "reportsTo"):
        assert relation_type_of(predicate_of(text), relation_source(text)) == text
    assert relation_type_of("LIVES_IN", "chat 2024-03-01") == "lives_in"  # a fact written natively


def test_a_reference_file_translates_to_writes_that_keep_everything() -> None:
    lines = [{"type": "entity", "name": "Alice", "entityType": "person", "observations": ["likes tea", "has a dog"]},
             {"type": "relation", "from": "Alice", "to": "Globex", "relationType": "works at"}]
    graph = read_reference(json.dumps(line) for line in lines)
    out = translate(graph, secrets="reject")
    assert out.entities == [("Alice", ["likes tea", "has a dog"], "person")]  # observations in their order
    assert out.relations == [Triple(subject="Alice", predicate="WORKS_AT", object="Globex",
                                    source="relationType: works at")]
    assert out.implied == ["Globex"] and out.observations == 2
    held = translate(graph, secrets="reject", held_observations={"alice": {"likes tea"}},
                     held_facts={("alice", "WORKS_AT", "globex")})
    assert held.entities == [("Alice", ["has a dog"], "person")] and held.relations == []
    assert (held.observations, held.skipped_observations, held.skipped_relations) == (1, 1, 1)


@pytest.mark.parametrize(("lines", "line", "why"), [
    (['{"type": "entity", "name": "A", "entityType": "x", "observations": "not a list"}'], 1, "list of strings"),
    (['{"type": "relation", "from": "A", "to": 3, "relationType": "r"}'], 1, "to must be a string"),
    (["", "not json"], 2, "not JSON"),
    (['{"type": "entity", "name": ' + "[" * 100_000 + "]" * 100_000 + "}"], 1, "nests JSON too deeply"),
    (['{"type": "entity", "name": "A", "entityType": "x", "observations": []}',
      '{"type": "entity", "n": ' + "9" * 5_001 + "}"], 2, "more digits"),
])
def test_a_file_that_is_not_a_reference_store_is_refused_by_line(lines: list[str], line: int, why: str) -> None:
    with pytest.raises(InvalidImportError, match=why) as refused:
        read_reference(lines)
    assert refused.value.line == line


def test_what_could_not_be_kept_exactly_is_refused_with_its_line() -> None:
    def refused(*items: dict[str, object], secrets: str = "reject") -> InvalidImportError:
        with pytest.raises(InvalidImportError) as caught:
            translate(read_reference(json.dumps(i) for i in items), secrets=secrets)  # type: ignore[arg-type]
        return caught.value

    alice = {"type": "entity", "name": "Alice", "entityType": "person", "observations": []}
    assert refused(alice, {**alice, "name": "ALICE"}).line == 2
    same = refused(alice, {"type": "relation", "from": "Alice", "to": "Alice", "relationType": "knows"},
                   {"type": "relation", "from": "Alice", "to": "Alice", "relationType": "KNOWS"})
    assert same.line == 3 and "one relation" in str(same)
    assert "secret" in str(refused({**alice, "observations": ["token sk-abcdefghijklmnopqrstuvwxyz123456"]}))
    assert refused({**alice, "name": ""}).line == 1
    # The same name twice with the same type is one entity of the reference too: merged, nothing refused.
    twice = translate(read_reference(json.dumps(i) for i in (alice, {**alice, "observations": ["x"]})),
                      secrets="reject")
    assert (twice.entities, twice.observations) == ([("Alice", ["x"], "person")], 1)
