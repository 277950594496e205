"""Recall: the gate, identifier-aware lexical search, hostile text, time, hops, scopes, aliases, vectors, order."""

from __future__ import annotations

import contextlib
import itertools
import math
import random
import uuid
import zlib
from collections.abc import Callable, Iterator, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any, ClassVar

import pytest

from synapse_graph import InvalidInputError, Memory, Triple
from synapse_graph.embedding import Embedder
from synapse_graph.models import Recall
from synapse_graph.rules.recall import words
from tests.integration.helpers import snapshot

# -- test doubles -------------------------------------------------------------------------------


class TrigramEmbedder:
    """A deterministic stand-in for MiniLM: hashed character trigrams of the words, unit length.

    A tiny synonym table stands for what a real model knows ("automobile" is a "car"), so a
    paraphrase without shared words can be found by the vector leg. 384 dimensions, as
    MiniLM, so both can share one database's vector index.
    """

    name = "test-trigram-v1"
    dimensions = 384
    SYNONYMS: ClassVar[dict[str, str]] = {"automobile": "car", "automobiles": "car", "cars": "car"}

    def __init__(self) -> None:
        self.calls: list[list[str]] = []

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        self.calls.append(list(texts))
        return [self._one(text) for text in texts]

    def _one(self, text: str) -> list[float]:
        vector = [0.0] * self.dimensions
        for word in words(text):
            word = self.SYNONYMS.get(word, word)
            padded = f"#{word}#"
            for i in range(len(padded) - 2):
                vector[zlib.crc32(padded[i : i + 3].encode()) % self.dimensions] += 1.0
        norm = math.sqrt(sum(x * x for x in vector)) or 1.0
        return [x / norm for x in vector]


class RecordingEmbedder:
    """Wraps an embedder and records every call (to prove the gate never embeds)."""

    def __init__(self, inner: Embedder) -> None:
        self.inner = inner
        self.name = inner.name
        self.dimensions = inner.dimensions
        self.calls: list[list[str]] = []

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        self.calls.append(list(texts))
        return self.inner.embed(texts)


class Tripwire:
    """Stands in for the backend: any use is recorded and fails."""

    def __init__(self) -> None:
        self.calls: list[str] = []

    def __getattr__(self, name: str) -> Any:
        self.calls.append(name)
        raise AssertionError(f"the recall gate touched the database ({name})")


@pytest.fixture(scope="module")
def embedder() -> Embedder:
    """MiniLM when the ``vector`` extra is installed, else the trigram test double."""
    try:
        from synapse_graph.embedders.minilm import MiniLMEmbedder

        real = MiniLMEmbedder()
        real.embed(["probe"])
        return real
    except Exception:  # any failure: use the deterministic double
        return TrigramEmbedder()


def triples(result: Recall) -> list[tuple[str, str, str]]:
    return [(f.subject, f.predicate, f.object) for f in result.facts]


def entity_names(result: Recall) -> list[str]:
    return [e.name for e in result.entities]


# -- the gate -----------------------------------------------------------------------------------

GATED = ["", "thanks", "ok", "hello!", "?", "   ", "Thanks!!", "ok, thanks", "hi there?"]


@pytest.mark.parametrize("question", GATED)
def test_gate_answers_small_talk_without_touching_the_database(
    make_memory: Callable[..., Memory], monkeypatch: pytest.MonkeyPatch, question: str
) -> None:
    recording = RecordingEmbedder(TrigramEmbedder())
    memory = make_memory(embedder=recording)
    memory.upsert(Triple(subject="Thanks Giving", predicate="IS_A", object="Holiday"))  # a name the gate must not reach
    recording.calls.clear()
    tripwire = Tripwire()
    try:
        with monkeypatch.context() as patch:
            patch.setattr(memory, "_backend", tripwire)
            result = memory.recall(question)
            searched = memory.search_entities(question)
    finally:
        memory.purge(scope=memory.scope)  # the vector index spans every scope of the database
    assert tripwire.calls == []
    assert recording.calls == []
    assert result.skipped
    assert (result.facts, result.entities, searched) == ([], [], [])
    assert result.query == question


def test_a_content_word_passes_the_gate(memory: Memory) -> None:
    memory.upsert(Triple(subject="Dana", predicate="LIVES_IN", object="Paris"))
    result = memory.recall("thanks! where does Dana live?")
    assert result.skipped is None
    assert ("Dana", "LIVES_IN", "Paris") in triples(result)


# -- identifiers, prefixes ----------------------------------------------------------------------

FORMS = ["billingService", "billing_service", "billing-service", "billing.service", "billing service"]


@pytest.mark.parametrize("stored", FORMS)
def test_every_casing_of_an_identifier_finds_every_other(memory: Memory, stored: str) -> None:
    memory.upsert(
        [
            Triple(subject=stored, predicate="OWNED_BY", object="Payments Team", subject_type="service"),
            Triple(subject="billing-report job", predicate="OWNED_BY", object="Data Team"),
            Triple(subject="user_auth_service", predicate="OWNED_BY", object="Platform Team"),
        ]
    )
    for query in FORMS:
        found = memory.search_entities(query)
        assert found and found[0].name == stored, (query, [e.name for e in found])
        result = memory.recall(f"who owns {query}?")
        assert triples(result)[0] == (stored, "OWNED_BY", "Payments Team"), query


def test_prefix_matching_starts_at_three_letters(memory: Memory) -> None:
    memory.upsert(
        [
            Triple(subject="billingService", predicate="OWNED_BY", object="Payments Team"),
            Triple(subject="BI Dashboard", predicate="OWNED_BY", object="Data Team"),
        ]
    )
    assert "billingService" in entity_names(memory.recall("bil"))
    assert "billingService" in entity_names(memory.recall("who owns bill?"))
    # Two letters match whole words only: "bi" is the BI Dashboard, not a prefix of "billing".
    assert entity_names(memory.recall("bi")) == ["BI Dashboard"]
    assert memory.search_entities("pa") == []
    assert entity_names(memory.recall("pay")) == ["Payments Team"]


# -- hostile text -------------------------------------------------------------------------------

SYNTAX_ONLY = [
    "*", "?", ":", '"', "(", ")", "[", "]", "{", "}", "~", "^", "|", "@", "-", "+", "!", "\\", "/",
    "AND", "OR", "NOT", "AND OR NOT", "&&", "||", "*:*", '"*"', "(*)", "[* TO *]", "{* TO *}", "~~2", "^10",
    "@:*", "-*", "+(!)", "\\*", "//", '""', "%", "$", "<>", ";", "'", "`", "NOT *", "* OR ?", "=~",
    "*" * 500, "\\" * 300, "(" * 200, '"' * 101, "｜＊", "\u200b*\u200b", "_", "___", "-_-",
]

HOSTILE = [
    "dana OR *", "dana*", "*dana*", "dana | *", "dana || *", "dana~", "dana~2", "dana^10", '"dana"', "(dana)",
    "[dana]", "{dana}", "dana AND *", "@name:dana", "name:dana", "dana:*", "+dana -bob", "dana AND NOT bob",
    "dana\\", "\\dana", "dana/.*/", "/da.*/", "dana'}) MATCH (n) DETACH DELETE n //",
    'dana") RETURN 1 //', "dana' OR 1=1 --", "$scope dana", "`dana`", "dana %", "{scope: 'x'} dana",
    "ｄａｎａ ＯＲ ＊", "dana\u200b", "CALL db.labels() dana", "dana; DROP INDEX entity_search",
    "@search_text:{dana} | @scope:*", "dana " + "x" * 3990, " ".join(["dana"] + ["zz*"] * 40),
]


def _people(memory: Memory) -> None:
    memory.upsert(
        [
            Triple(subject="Dana", predicate="LIVES_IN", object="Paris"),
            Triple(subject="Danae", predicate="LIVES_IN", object="Athens"),
            Triple(subject="Bob", predicate="LIVES_IN", object="Berlin"),
            Triple(subject="Name Registry", predicate="RUNS_ON", object="Postgres"),
        ]
    )


@pytest.mark.parametrize("question", SYNTAX_ONLY)
def test_a_question_of_only_query_syntax_finds_nothing(memory: Memory, question: str) -> None:
    _people(memory)
    result = memory.recall(question)
    assert result.skipped is not None or (result.entities, result.facts) == ([], [])
    assert memory.search_entities(question) == []


def test_query_syntax_never_raises_widens_or_changes_anything(memory: Memory) -> None:
    _people(memory)
    before = snapshot(memory)
    for question in HOSTILE:
        result = memory.recall(question, hops=2)
        plain = memory.recall(" ".join(words(question)), hops=2)
        # The syntax is ignored: the answer is the one of the question's plain words.
        assert entity_names(result) == entity_names(plain), question
        assert triples(result) == triples(plain), question
    with contextlib.suppress(InvalidInputError):  # NUL may be refused as bad input, never as a database error
        assert entity_names(memory.recall("dana\x00")) == entity_names(memory.recall("dana"))
    assert entity_names(memory.recall("dana OR *")) == entity_names(memory.recall("dana"))
    assert set(entity_names(memory.recall("dana OR *"))) == {"Dana", "Danae"}  # the "dan" prefix, nothing more
    assert snapshot(memory) == before


def test_random_punctuation_around_a_word_never_raises(memory: Memory) -> None:
    _people(memory)
    rng = random.Random(7)
    alphabet = "*?:\"()[]{}~^|@-+!\\/'`$%&=<>;,.#_ \t\n"
    expected = entity_names(memory.recall("dana"))
    for _ in range(150):
        noise = "".join(rng.choice(alphabet) for _ in range(rng.randint(1, 12)))
        tail = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 6)))
        question = f"{noise}dana{tail}"
        assert entity_names(memory.recall(question)) == expected, repr(question)


# -- time ---------------------------------------------------------------------------------------


def test_facts_are_valid_at_as_of(memory: Memory) -> None:
    memory.upsert(
        [
            Triple(subject="Dana", predicate="LIVES_IN", object="Paris", valid_at="2019-01-01"),
            Triple(subject="Dana", predicate="WORKS_AT", object="Acme", valid_at="2020-01-01",
                   invalid_at="2023-01-01"),
            Triple(subject="Dana", predicate="KNOWS", object="Bob", valid_at="2021-06-01"),
        ]
    )
    memory.upsert(Triple(subject="Dana", predicate="LIVES_IN", object="Berlin", valid_at="2024-01-01"))
    for as_of in ("2018-06-01", "2019-06-01", "2021-01-01", "2022-06-01", "2023-06-01", "2024-06-01", None):
        result = memory.recall("where does Dana live and work?", as_of=as_of, hops=2)
        for fact in result.facts:
            assert fact.holds_at(result.as_of), (as_of, fact)
    past = memory.recall("where did Dana live?", as_of="2023-06-01")
    assert ("Dana", "LIVES_IN", "Paris") in triples(past)
    assert ("Dana", "LIVES_IN", "Berlin") not in triples(past)
    now = memory.recall("where does Dana live?")
    assert ("Dana", "LIVES_IN", "Berlin") in triples(now)
    assert ("Dana", "LIVES_IN", "Paris") not in triples(now)
    assert memory.recall("Dana", as_of="2018-06-01").facts == []


def test_as_of_last_year_does_not_return_the_current_value(memory: Memory) -> None:
    now = datetime.now(UTC)
    memory.upsert(Triple(subject="Dana", predicate="LIVES_IN", object="Lisbon", valid_at=now - timedelta(days=900)))
    memory.upsert(Triple(subject="Dana", predicate="LIVES_IN", object="Oslo", valid_at=now - timedelta(days=120)))
    last_year = now - timedelta(days=365)
    result = memory.recall("where did Dana live last year?", as_of=last_year)
    assert triples(result) == [("Dana", "LIVES_IN", "Lisbon")]
    assert triples(memory.recall("where does Dana live?")) == [("Dana", "LIVES_IN", "Oslo")]


# -- hops, scopes, aliases, types ---------------------------------------------------------------


def test_two_hops_reach_a_neighbours_facts(memory: Memory) -> None:
    memory.upsert(
        [
            Triple(subject="Dana", predicate="WORKS_AT", object="Acme"),
            Triple(subject="Acme", predicate="LOCATED_IN", object="Springfield"),
            Triple(subject="Springfield", predicate="LOCATED_IN", object="Oregon"),
        ]
    )
    one = memory.recall("Dana", hops=1)
    two = memory.recall("Dana", hops=2)
    assert triples(one) == [("Dana", "WORKS_AT", "Acme")]
    assert ("Acme", "LOCATED_IN", "Springfield") in triples(two)
    assert ("Springfield", "LOCATED_IN", "Oregon") not in triples(two)  # three hops away
    [reached] = [f for f in two.facts if f.object == "Springfield"]
    assert (reached.hop, reached.entry) == (2, "Dana")
    assert triples(two)[0] == ("Dana", "WORKS_AT", "Acme")  # the nearer fact first


def test_a_scope_recalls_nothing_of_another(make_memory: Callable[..., Memory]) -> None:
    a, b = make_memory(), make_memory()
    a.upsert([Triple(subject="Dana", predicate="LIVES_IN", object="Paris"),
              Triple(subject="billingService", predicate="OWNED_BY", object="Payments Team")])
    a.alias("Dana", "Dee")
    for question in ("Dana", "where does Dee live?", "billing service", "Paris", "payments"):
        result = b.recall(question, hops=2)
        assert (result.entities, result.facts) == ([], []), question
        assert b.search_entities(question) == []
    b.upsert(Triple(subject="Dana", predicate="LIVES_IN", object="Rome"))
    assert triples(b.recall("where does Dana live?", hops=2)) == [("Dana", "LIVES_IN", "Rome")]
    assert triples(a.recall("where does Dana live?", hops=2)) == [("Dana", "LIVES_IN", "Paris")]


def test_aliases_are_searchable(memory: Memory) -> None:
    memory.upsert(
        [
            Triple(subject="Robert", predicate="LIVES_IN", object="Leeds"),
            Triple(subject="Bob", predicate="LIKES", object="Jazz"),
            Triple(subject="user_auth_service", predicate="OWNED_BY", object="Platform Team"),
        ]
    )
    memory.alias("Robert", "Bobby")  # a plain alias name
    memory.alias("Robert", "Bob")  # an entity merged into Robert
    memory.alias("user_auth_service", "UAS")
    assert [e.name for e in memory.search_entities("Bobby")] == ["Robert"]
    assert [e.name for e in memory.search_entities("bob")] == ["Robert"]
    assert triples(memory.recall("where does Bobby live?"))[0] == ("Robert", "LIVES_IN", "Leeds")
    assert ("Robert", "LIKES", "Jazz") in triples(memory.recall("what does Bob like?"))
    assert triples(memory.recall("who owns UAS?")) == [("user_auth_service", "OWNED_BY", "Platform Team")]


def test_entity_type_is_searchable(memory: Memory) -> None:
    memory.upsert(Triple(subject="Zephyr", predicate="RUNS_ON", object="Kubernetes", subject_type="microservice",
                         object_type="platform"))
    memory.upsert(Triple(subject="Dana", predicate="MAINTAINS", object="Zephyr", subject_type="person"))
    assert [e.name for e in memory.search_entities("microservice")] == ["Zephyr"]
    assert ("Zephyr", "RUNS_ON", "Kubernetes") in triples(memory.recall("which microservice runs where?"))
    assert "Kubernetes" in entity_names(memory.recall("platform"))


def test_a_type_survives_an_untyped_mention_in_the_same_batch(memory: Memory) -> None:
    memory.upsert(
        [
            Triple(subject="Zephyr", predicate="RUNS_ON", object="Kubernetes", subject_type="microservice"),
            Triple(subject="Dana", predicate="MAINTAINS", object="Zephyr"),
        ]
    )
    assert [e.name for e in memory.search_entities("microservice")] == ["Zephyr"]


# -- ordering -----------------------------------------------------------------------------------


def test_a_fact_whose_predicate_the_question_names_comes_first(memory: Memory) -> None:
    memory.upsert(
        [
            Triple(subject="Dana", predicate="LIVES_IN", object="Paris", confidence=1.0),
            Triple(subject="Dana", predicate="KNOWS", object="Bob", confidence=1.0),
            Triple(subject="Dana", predicate="LIKES", object="Jazz", confidence=1.0),
            Triple(subject="Dana", predicate="WORKS_AT", object="Acme", confidence=0.3),
            Triple(subject="Bob", predicate="WORKS_AT", object="Initech", confidence=1.0),
        ]
    )
    result = memory.recall("where does Dana work?")
    assert triples(result)[0] == ("Dana", "WORKS_AT", "Acme")  # despite the lowest confidence
    assert triples(memory.recall("where does Dana live?"))[0] == ("Dana", "LIVES_IN", "Paris")
    assert [f.relevance for f in result.facts] == sorted((f.relevance for f in result.facts), reverse=True)


def test_an_entity_matching_more_of_the_question_ranks_first(memory: Memory) -> None:
    memory.upsert(
        [
            Triple(subject="Sam Okafor", predicate="LIVES_IN", object="Toronto"),
            Triple(subject="Sam Lindqvist", predicate="LIVES_IN", object="Dublin"),
        ]
    )
    result = memory.recall("where does Sam Okafor live?")
    assert entity_names(result)[0] == "Sam Okafor"
    assert triples(result)[0] == ("Sam Okafor", "LIVES_IN", "Toronto")


# -- the vector leg -----------------------------------------------------------------------------


@pytest.fixture
def vector_memory(make_memory: Callable[..., Memory], embedder: Embedder) -> Iterator[Memory]:
    """A memory with an embedder; its scope is purged afterwards (the vector index spans all scopes)."""
    memory = make_memory(embedder=embedder)
    yield memory
    memory.purge(scope=memory.scope)


def test_the_vector_leg_finds_a_paraphrase(vector_memory: Memory, make_memory: Callable[..., Memory]) -> None:
    memory = vector_memory
    memory.upsert(
        [
            Triple(subject="Dana", predicate="OWNS", object="car"),
            Triple(subject="Bob", predicate="OWNS", object="bicycle"),
            Triple(subject="Dana", predicate="LIVES_IN", object="Paris"),
        ]
    )
    result = memory.recall("automobile")
    assert result.legs == ["lexical", "vector"]
    assert triples(result)[0] == ("Dana", "OWNS", "car")  # the fact's sentence is near the question's meaning
    assert result.facts[0].why is not None and result.facts[0].why.legs == ["vector"]
    assert [e.name for e in memory.search_entities("automobile")][:1] == ["car"]  # and the name, by its vector
    lexical_only = make_memory(scope=memory.scope)
    assert lexical_only.recall("automobile").legs == ["lexical"]
    assert lexical_only.recall("automobile").facts == []  # no shared word: only the vector leg finds it


def test_reindex_embeddings_backfills_what_was_written_without_an_embedder(
    make_memory: Callable[..., Memory], embedder: Embedder
) -> None:
    scope = f"test-{uuid.uuid4().hex[:12]}"
    make_memory(scope=scope).upsert(Triple(subject="Dana", predicate="OWNS", object="car"))
    memory = make_memory(scope=scope, embedder=embedder)
    try:
        assert memory.recall("automobile").facts == []
        assert memory.reindex_embeddings() == 3  # Dana's and the car's names, and the fact's sentence
        assert memory.reindex_embeddings() == 0
        assert triples(memory.recall("automobile")) == [("Dana", "OWNS", "car")]
    finally:
        memory.purge(scope=scope)


def test_other_scopes_cannot_crowd_a_scope_out_of_the_vector_leg(make_memory: Callable[..., Memory]) -> None:
    # Sixty names in another scope that embed exactly like the question: a search that takes the
    # index's global top k and then filters by scope would leave this scope with nothing.
    embedder = TrigramEmbedder()
    crowd = make_memory(embedder=embedder)
    mine = make_memory(embedder=embedder)
    try:
        crowd.upsert([Triple(subject=f"car{'!' * i}", predicate="IS_A", object="vehicle") for i in range(1, 61)])
        mine.upsert(Triple(subject="Dana", predicate="OWNS", object="my car"))
        result = mine.recall("automobile")
        assert ("Dana", "OWNS", "my car") in triples(result)
        assert "my car" in [e.name for e in mine.search_entities("automobile")]
    finally:
        for memory in (crowd, mine):
            memory.purge(scope=memory.scope)



def test_other_scopes_cannot_crowd_a_scope_out_of_the_lexical_leg(make_memory: Callable[..., Memory]) -> None:
    # 150 names in another scope, written first, that match the question's word exactly as well as this
    # scope's one name does: a search that cuts the index's best 100 before keeping to the scope would
    # leave this scope with nothing (Neo4j's fulltext index spans every scope of the server).
    crowd, mine = make_memory(), make_memory()
    try:
        crowd.upsert([Triple(subject=f"Project Nova {i}", predicate="PART_OF", object="Nova") for i in range(150)])
        mine.upsert([Triple(subject="Project Apollo", predicate="OWNED_BY", object="Dana"),
                     Triple(subject="Dana", predicate="LIVES_IN", object="Paris")])
        result = mine.recall("which project")
        assert entity_names(result)[:1] == ["Project Apollo"]
        assert ("Project Apollo", "OWNED_BY", "Dana") in triples(result)
    finally:
        for memory in (crowd, mine):
            memory.purge(scope=memory.scope)


WORDS = tuple("".join(letters) for letters in itertools.product("bfkmpstvz", "aeiou", "lnr"))[:130]
"""130 distinct made-up words, none a prefix of another question word."""


def test_a_name_of_only_common_words_is_found_beside_a_word_no_name_holds(memory: Memory) -> None:
    # "north" and "gate" each match more names than the search keeps, and "depend" matches none: the
    # common words must still be searched (leaving them out for a word that finds nothing found nothing).
    memory.upsert([Triple(subject=f"North {WORDS[i]}", predicate="PART_OF", object=f"Gate {WORDS[i]}")
                   for i in range(len(WORDS))])
    memory.upsert(Triple(subject="North Gate", predicate="DEPENDS_ON", object="Harbour Bridge"))
    result = memory.recall("What does North Gate depend on?")
    assert entity_names(result)[:1] == ["North Gate"]
    assert ("North Gate", "DEPENDS_ON", "Harbour Bridge") in triples(result)


def test_expired_observations_cannot_crowd_live_ones_out_of_the_lexical_leg(memory: Memory) -> None:
    # 120 forgotten notes that match the question's word as well as the live one does, written first.
    memory.upsert([Triple(subject=f"Box {i}", predicate="IN", object="Shed") for i in range(120)]
                  + [Triple(subject="Dana", predicate="LIVES_IN", object="Paris")])
    for i in range(120):
        memory.observe(f"Box {i}", ["kept the zeppelin model here"])
        assert memory.unobserve(f"Box {i}", ["kept the zeppelin model here"]) == 1
    memory.observe("Dana", ["builds a zeppelin model"])
    result = memory.recall("zeppelin")
    assert [(o.entity, o.text) for o in result.observations] == [("Dana", "builds a zeppelin model")]
    assert result.observations[0].why is not None and result.observations[0].why.words == ["zeppelin"]

# -- both backends ------------------------------------------------------------------------------

EXTRA_QUESTIONS: list[tuple[str, str | None, int]] = [
    ("Dana", None, 2), ("billing service", None, 2), ("Kestrel Systems", None, 1), ("team", "2022-01-01", 2),
    ("engineer", None, 1), ("who owns what", None, 1), ("Postgres", "2020-01-01", 2),
]


def _golden_answers(falkordb_location: str, neo4j_settings: dict[str, Any]) -> Iterator[tuple[str, Any, Any]]:
    from benchmarks.recall_eval.golden import CASES
    from benchmarks.recall_eval.run import load_golden, open_memory

    scope = f"test-{uuid.uuid4().hex[:12]}"
    opened = [open_memory(falkordb_location, None, scope), open_memory(neo4j_settings["location"],
                                                                        neo4j_settings["auth"], scope)]
    try:
        for memory in opened:
            load_golden(memory)
        questions = [(c.question, c.as_of, c.hops) for c in CASES] + EXTRA_QUESTIONS
        for question, as_of, hops in questions:
            falkor, neo = (m.recall(question, as_of=as_of, hops=hops) for m in opened)
            yield question, falkor, neo
    finally:
        for memory in opened:
            memory.purge(scope=scope)
            memory.close()


def test_entities_recalled_are_identical_on_both_backends(falkordb_location: str,
                                                          neo4j_settings: dict[str, Any]) -> None:
    for question, falkor, neo in _golden_answers(falkordb_location, neo4j_settings):
        assert [(e.name, e.lexical_rank, e.score) for e in falkor.entities] == [
            (e.name, e.lexical_rank, e.score) for e in neo.entities], question


def test_facts_recalled_are_identical_on_both_backends(falkordb_location: str,
                                                       neo4j_settings: dict[str, Any]) -> None:
    for question, falkor, neo in _golden_answers(falkordb_location, neo4j_settings):
        assert [(f.subject, f.predicate, f.object, f.hop, f.entry, f.relevance) for f in falkor.facts] == [
            (f.subject, f.predicate, f.object, f.hop, f.entry, f.relevance) for f in neo.facts], question
