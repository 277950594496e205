"""Memory.entities: the scope's entities a page at a time, oldest first, searchable; typed creation by observe."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from synapse_graph import EntityPage, InvalidInputError, Memory, Triple

pytestmark = pytest.mark.integration
MakeMemory = Callable[..., Memory]


def all_pages(memory: Memory, **options: object) -> list[EntityPage]:
    pages = [memory.entities(**options)]  # type: ignore[arg-type]
    while pages[-1].next is not None:
        pages.append(memory.entities(**{**options, "after": pages[-1].next}))  # type: ignore[arg-type]
    return pages


def names(pages: list[EntityPage]) -> list[str]:
    return [e.name for page in pages for e in page.entities]


def test_pages_list_every_entity_once_oldest_first_and_writes_between_pages_come_after(memory: Memory) -> None:
    # One write creates several entities at the same instant: the key orders them, also across a page break.
    memory.upsert([Triple(subject="Mia", predicate="KNOWS", object="Cleo"),
                   Triple(subject="Ben", predicate="KNOWS", object="Ava")])
    memory.observe("Zoe", ["Plays chess"])
    memory.upsert(("Dan", "WORKS_AT", "Acme"))
    first = memory.entities(limit=3)
    assert [e.name for e in first.entities] == ["Ava", "Ben", "Cleo"] and first.next is not None
    memory.observe("Aaron", ["Joined late"])  # written between pages: listed after every older entity
    memory.purge("Mia")  # deleted between pages: the cursor does not depend on it
    rest = all_pages(memory, after=first.next, limit=3)
    assert names([first, *rest]) == ["Ava", "Ben", "Cleo", "Zoe", "Acme", "Dan", "Aaron"]
    assert [len(p.entities) for p in rest] == [3, 1] and rest[-1].next is None
    listed = [e for page in [first, *rest] for e in page.entities]
    assert [(e.created_at, e.key) for e in listed] == sorted((e.created_at, e.key) for e in listed)
    assert listed[3] == memory.entity("Zoe")  # the public Entity, as memory.entity gives it
    assert [o.text for o in rest[0].observations[listed[3].key]] == ["Plays chess"]
    assert rest[0].observations[listed[4].key] == []  # Acme has none
    exact = all_pages(memory, limit=7)
    assert len(exact) == 1 and len(exact[0].entities) == 7 and exact[0].next is None  # a full last page is the last


def test_known_at_lists_the_entities_that_existed_then_with_the_observations_held_then(memory: Memory) -> None:
    memory.observe("Dana", ["Speaks Spanish", "Lives in Paris"])
    then = memory.observations("Dana")[-1].recorded_at
    memory.observe("Kim", ["Allergic to peanuts"])
    memory.unobserve("Dana", ["Lives in Paris"])
    memory.observe("Dana", ["Lives in Lyon"])
    past = memory.entities(known_at=then)
    assert [e.name for e in past.entities] == ["Dana"]
    dana = past.entities[0].key
    assert [o.text for o in past.observations[dana]] == ["Speaks Spanish", "Lives in Paris"]
    now = memory.entities()
    assert [e.name for e in now.entities] == ["Dana", "Kim"]
    assert [o.text for o in now.observations[dana]] == ["Speaks Spanish", "Lives in Lyon"]


def test_aliases_are_listed_and_a_merged_entity_is_gone(memory: Memory) -> None:
    memory.upsert([("Robert", "WORKS_AT", "Acme"), ("Bob", "LIVES_IN", "Paris")])
    memory.alias("Robert", "Bobby")
    memory.alias("Robert", "Bob")  # Bob was an entity: merged into Robert
    listed = {e.name: e for e in memory.entities().entities}
    assert sorted(listed) == ["Acme", "Paris", "Robert"]
    assert sorted(listed["Robert"].aliases) == ["Bob", "Bobby"]


def test_matching_finds_names_aliases_types_and_held_observations_ignoring_case(make_memory: MakeMemory) -> None:
    memory = make_memory()
    other = make_memory()
    memory.observe("Dana", ["Speaks fluent Spanish"], entity_type="Person")
    memory.observe("Kim", ["Allergic to peanuts", "Was in Madrid"], entity_type="colleague")
    memory.upsert(("Acme Corp", "LOCATED_IN", "Berlin"))
    memory.alias("Acme Corp", "ACME Industries")
    memory.unobserve("Kim", ["Was in Madrid"])
    other.observe("Spain Expert", ["Speaks Spanish"], entity_type="person")  # another scope: never found

    def found(text: str, **options: object) -> list[str]:
        return names(all_pages(memory, matching=text, **options))

    assert found("SPANISH") == ["Dana"]  # an observation
    assert found("dan") == ["Dana"]  # a name
    assert found("industries") == ["Acme Corp"]  # an alias
    assert found("PERSON") == ["Dana"]  # a type
    assert found("COLL") == ["Kim"]
    assert found("madrid") == []  # forgotten: not held now
    assert found("IN") == ["Acme Corp", "Berlin"]  # Industries, Berlin
    assert found("in", limit=1) == ["Acme Corp", "Berlin"]  # paged one by one, same order
    assert [len(p.entities) for p in all_pages(memory, matching="in", limit=1)] == [1, 1]
    assert found("no such text") == []
    kim = memory.entity("Kim")
    assert kim is not None
    held = memory.observations("Kim", include_history=True)[-1].recorded_at
    assert found("madrid", known_at=held) == ["Kim"]  # held then
    page = memory.entities(matching="spanish")
    assert [o.text for o in page.observations[page.entities[0].key]] == ["Speaks fluent Spanish"]


def test_with_facts_a_page_holds_each_entitys_own_facts_and_those_of_subjects_the_listing_leaves_out(
        memory: Memory) -> None:
    memory.upsert([Triple(subject="Dana", predicate="WORKS_AT", object="Globex"),
                   Triple(subject="Sam", predicate="MANAGES", object="Dana"),
                   Triple(subject="Ana", predicate="KNOWS", object="Dana"),
                   Triple(subject="Dana", predicate="LIVED_IN", object="Oslo", valid_at="2020-01-01",
                          invalid_at="2021-01-01")])
    memory.observe("Ana", ["plays chess"])
    memory.observe("Dana", ["Plays CHESS on Sundays"])

    def held(page: EntityPage) -> dict[str, set[tuple[str, str, str]]]:
        assert page.facts is not None
        by_key = {e.key: e.name for e in page.entities}
        return {by_key[k]: {(f.subject, f.predicate, f.object) for f in facts} for k, facts in page.facts.items()}

    assert memory.entities().facts is None  # not asked for: not read
    # Every entity listed: each shows the facts it is the subject of, valid now (Oslo has ended).
    assert held(memory.entities(with_facts=True)) == {
        "Dana": {("Dana", "WORKS_AT", "Globex")}, "Globex": set(), "Sam": {("Sam", "MANAGES", "Dana")},
        "Ana": {("Ana", "KNOWS", "Dana")}, "Oslo": set()}
    # Ana and Dana match: Sam's fact about Dana comes with Dana (Sam is not listed), Ana's with Ana.
    assert held(memory.entities(matching="chess", with_facts=True)) == {
        "Dana": {("Dana", "WORKS_AT", "Globex"), ("Sam", "MANAGES", "Dana")}, "Ana": {("Ana", "KNOWS", "Dana")}}
    assert held(memory.entities(matching="nothing holds this", with_facts=True)) == {}


def test_observe_creates_a_typed_entity_and_an_existing_one_keeps_its_type(memory: Memory) -> None:
    assert memory.observe("Dana", [], entity_type="person") == []
    dana = memory.entity("dana")
    assert dana is not None and dana.type == "person" and dana.name == "Dana"
    assert [o.text for o in memory.observe("Dana", ["Plays chess"], entity_type="robot")] == ["Plays chess"]
    assert memory.entity("Dana").type == "person"  # type: ignore[union-attr]
    memory.observe("Kim", ["Likes tea"])
    assert memory.entity("Kim").type is None  # type: ignore[union-attr]
    assert [e.type for e in memory.entities().entities] == ["person", None]


@pytest.mark.parametrize("options", [
    {"after": "garbage"}, {"after": "e1.!!!"}, {"after": 5}, {"limit": 0}, {"limit": True}, {"limit": 1001},
    {"limit": "3"}, {"matching": 5}, {"matching": "x" * 10_001}, {"known_at": "not a time"},
])
def test_bad_cursors_and_limits_are_refused(memory: Memory, options: dict[str, object]) -> None:
    memory.observe("Dana", ["Speaks Spanish"])
    with pytest.raises(InvalidInputError):
        memory.entities(**options)  # type: ignore[arg-type]
    assert [e.name for e in memory.entities().entities] == ["Dana"]
