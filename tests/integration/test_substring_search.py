"""Memory.entities(matching=...) through the substring index (rules/grams.py): exactly the entities a
brute-force substring filter over the scope's reads finds, after renames by merge, unmerges, forgets,
purges and imports, and after an old store is upgraded."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from synapse_graph import Memory, Triple
from synapse_graph.catalogue import Q
from synapse_graph.engine.migrations import GRAMS_FORMAT
from synapse_graph.engine.scope import STORE_FORMAT
from synapse_graph.instants import Instant
from synapse_graph.rules.timeparse import now_micros

pytestmark = pytest.mark.integration
MakeMemory = Callable[..., Memory]


def listed(memory: Memory, **options: object) -> list[str]:
    found, after = [], None
    while True:
        page = memory.entities(after=after, limit=3, **options)  # type: ignore[arg-type]
        found += [e.name for e in page.entities]
        if page.next is None:
            return found
        after = page.next


def brute_force(memory: Memory, query: str, **options: object) -> list[str]:
    """The entities whose name, an alias, the type or an observation held contains the query, ignoring case,
    found by reading every entity of the scope and filtering in Python."""
    found, after, q = [], None, query.lower()
    while True:
        page = memory.entities(after=after, limit=50, **options)  # type: ignore[arg-type]
        for e in page.entities:
            texts = [e.name, e.type or "", *e.aliases, *(o.text for o in page.observations[e.key])]
            if any(q in t.lower() for t in texts):
                found.append(e.name)
        if page.next is None:
            return found
        after = page.next


def story(memory: Memory) -> None:
    memory.observe("Dana Reyes", ["Speaks fluent Spanish", "Plays chess on Sundays"], entity_type="Person")
    memory.observe("Kim Okafor", ["Allergic to peanuts", "Was in Madrid", "chessboard collector"],
                   entity_type="colleague")
    memory.upsert([Triple(subject="Acme Corp", predicate="LOCATED_IN", object="Berlin"),
                   Triple(subject="Robert", predicate="WORKS_AT", object="Acme Corp"),
                   Triple(subject="Bob the Builder", predicate="LIVES_IN", object="Paris")])
    memory.observe("Bob the Builder", ["Builds sheds", "Owns a hammer"])
    memory.alias("Acme Corp", "ACME Industries")
    memory.alias("Robert", "Bobby Tables")
    memory.alias("Robert", "Bob the Builder")  # an entity: merged into Robert, its observations with it
    memory.unobserve("Kim Okafor", ["Was in Madrid"])
    memory.observe("Zed", ["Temporary note about Madrid"])
    memory.purge("Zed")
    memory.observe("Élodie", ["Café owner in Montréal"], entity_type="Person")


QUERIES = ["spanish", "CHESS", "s ches", "hess", "bob", "builder", "sheds", "hammer", "industries", "acme",
           "person", "coll", "madrid", "madr", "temporary", "paris", "éd", "café", "montré", "tables", "robert",
           "in", "es", "a", "x", "nothing holds this", "s on sun", "ts fl", "erl"]


def assert_same(memory: Memory, **options: object) -> None:
    for query in QUERIES:
        assert listed(memory, matching=query, **options) == brute_force(memory, query, **options), query


def test_matching_equals_a_brute_force_filter_after_merges_forgets_and_purges(make_memory: MakeMemory) -> None:
    memory = make_memory()
    story(memory)
    other = make_memory()
    other.observe("Spanish Chess Club", ["Meets on Sundays"])  # another scope: never found
    assert listed(memory, matching="chess") == ["Dana Reyes", "Kim Okafor"]
    assert listed(memory, matching="BUILDER") == ["Robert"]  # an alias, by merge; its observations moved too
    assert listed(memory, matching="sheds") == ["Robert"]
    assert_same(memory)
    held = memory.observations("Kim Okafor", include_history=True)[-1].recorded_at
    assert listed(memory, matching="madrid", known_at=held) == ["Kim Okafor"]  # held then, forgotten since
    assert_same(memory, known_at=held)

    memory.unmerge("Bob the Builder")  # its name and observations go back to it
    assert listed(memory, matching="builder") == ["Bob the Builder"]
    assert listed(memory, matching="sheds") == ["Bob the Builder"]
    assert_same(memory)


def test_an_imported_store_is_found_alike(make_memory: MakeMemory) -> None:
    source = make_memory()
    story(source)
    copy = make_memory()
    copy.import_(list(source.export()))
    for query in QUERIES:
        assert listed(copy, matching=query) == brute_force(copy, query) == brute_force(source, query), query


def test_a_store_of_the_format_before_grams_is_upgraded_on_open_and_found_alike(make_memory: MakeMemory) -> None:
    old = make_memory()
    story(old)
    # The store as a version before the substring index left it: no grams, and its format.
    for found, taken in ((Q.GRAMLESS_ENTITIES, Q.SET_ENTITY_GRAMS), (Q.GRAMLESS_ALIASES, Q.SET_ALIAS_GRAMS),
                         (Q.GRAMLESS_OBSERVATIONS, Q.SET_OBSERVATION_GRAMS)):
        rows = old.backend.read(found, {"scope": old.scope, "after": "", "limit": 1_000})
        old.backend.write(taken, {"scope": old.scope, "rows": [{"key": r["key"], "grams": None} for r in rows]})
    old.backend.write(Q.RECOUNT_SCOPE, {"scope": old.scope, "format": GRAMS_FORMAT - 1, "candidate": "candidate",
                                        "now": Instant(now_micros())})
    assert listed(old, matching="chess") == []  # the index holds nothing of it

    upgraded = make_memory(scope=old.scope)
    assert upgraded.backend.read(Q.SCOPE_STATE, {"scope": old.scope})[0]["state"]["format"] == STORE_FORMAT
    assert listed(upgraded, matching="chess") == ["Dana Reyes", "Kim Okafor"]
    assert_same(upgraded)
