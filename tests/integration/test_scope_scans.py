"""No statement of the public API reads every scope's nodes of a label (issue 28): beside a crowding scope (entities,
observations, facts, aliases, audit entries, sessions, tombstones of its own), each statement a call sends finds
its scope's through an index or from the scope's own nodes, so its cost does not grow with other tenants' data on a
shared server. Plans are Neo4j's (EXPLAIN); the outcomes are asserted on both backends and both APIs."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from synapse_graph import Memory, Triple
from tests.integration.plans import plan, statements_of

pytestmark = pytest.mark.integration

SCANS = ("NodeByLabelScan", "AllNodesScan", "RelationshipTypeScan", "AllRelationshipsScan", "UnionNodeByLabelsScan",
         "IntersectionNodeByLabelsScan")
"""Plan operators that read every scope's nodes of a label (or relationships of a type)."""


def crowd(memory: Memory, size: int) -> None:
    """A scope holding what the exercised scope holds, many times over, under the same names."""
    memory.register_session("crowd-session")
    for start in range(0, size, 500):
        memory.upsert([Triple(subject=f"Dana {i}" if i % 3 else "Dana", predicate=f"KNOWS_{i % 7}",
                              object=f"Person {i}", valid_at="2020-01-01") for i in range(start, start + 500)])
        memory.observe("Dana", [f"Dana noted thing {i}." for i in range(start, start + 500)],
                       valid_at="2021-01-01")
    for i in range(size // 100):
        memory.upsert(Triple(subject=f"Ghost {i}", predicate="HAUNTS", object="Manor"), session="crowd-session")
        memory.register_session(f"crowd-{i}")
        memory.alias(f"Person {i}", f"P{i}")
    memory.upsert([Triple(subject="Dana", predicate="DOUBTS", object=f"Rumour {i}", confidence=0.2)
                   for i in range(size // 50)], model="extractor")
    for fact in memory.pending():
        memory.reject(fact, "crowd")
    memory.retract("Dana", "KNOWS_2")


def exercise(memory: Memory, step: Callable[[str, Callable[[], Any]], Any]) -> dict[str, Any]:
    """The operations, each through ``step(name, call)``, their outcomes by name."""
    out: dict[str, Any] = {}
    out["register_session"] = step("register_session", lambda: memory.register_session("own-session").id)
    out["upsert"] = step("upsert", lambda: memory.upsert(
        [Triple(subject="Dana", predicate="LIVES_IN", object="Paris", valid_at="2020-01-01"),
         Triple(subject="Dana", predicate="KNOWS_1", object="Person 1", valid_at="2020-01-01"),
         Triple(subject="Dana", predicate="WORKS_AT", object="Acme", valid_at="2021-01-01"),
         Triple(subject="Bob", predicate="KNOWS_1", object="Dana", valid_at="2021-01-01")]).model_dump())
    out["observe"] = step("observe", lambda: memory.observe("Dana", ["Dana keeps a cat named Oliver."],
                                                            valid_at="2023-05-08")[0].text)
    out["session_write"] = step("session_write", lambda: memory.upsert(
        Triple(subject="Dana", predicate="LIKES", object="Tea"), session="own-session").model_dump())
    out["sessions"] = step("sessions", lambda: sorted(s.id for s in memory.sessions()))
    out["candidate"] = step("candidate", lambda: memory.upsert(
        Triple(subject="Dana", predicate="DOUBTS", object="Rumour 1", confidence=0.2), model="extractor").model_dump())
    out["pending"] = step("pending", lambda: [f.object for f in memory.pending()])
    [doubt] = memory.pending()
    out["reject"] = step("reject", lambda: memory.reject(doubt, "wrong"))
    out["rejected_again"] = step("rejected_again", lambda: memory.upsert(
        Triple(subject="Dana", predicate="DOUBTS", object="Rumour 1", confidence=0.9)).model_dump())
    out["retract"] = step("retract", lambda: memory.retract("Dana", "WORKS_AT"))
    out["alias"] = step("alias", lambda: memory.alias("Dana", "D.").model_dump())
    memory.upsert(Triple(subject="Robert", predicate="LIKES", object="Chess"))
    out["merge"] = step("merge", lambda: memory.alias("Bob", "Robert").model_dump())
    out["unmerge"] = step("unmerge", lambda: memory.unmerge("Robert").restored)
    out["unmerged"] = [f.object for f in memory.facts("Robert")]
    [paris] = memory.facts("Dana", "LIVES_IN")
    out["pin"] = step("pin", lambda: memory.pin(paris).pinned)
    out["feedback"] = step("feedback", lambda: memory.feedback(paris, "helpful").object)
    out["diff"] = step("diff", lambda: sorted(f.object for f in memory.diff("2019-01-01", "2022-01-01").began))
    out["subgraph"] = step("subgraph", lambda: sorted(f.object for f in memory.subgraph(["Dana"])))
    out["facts"] = step("facts", lambda: sorted(f.object for f in memory.facts("Dana")))
    out["facts_in_scope"] = step("facts_in_scope", lambda: len(memory.facts(limit=100)))
    out["facts_by_predicate"] = step("facts_by_predicate", lambda: sorted(
        f.subject for f in memory.facts(predicate="KNOWS_1", include_history=True)))
    out["history"] = step("history", lambda: len(memory.history("Dana")))
    out["neighbourhood"] = step("neighbourhood", lambda: len(memory.neighbourhood("Dana", hops=2)))
    out["entity"] = step("entity", lambda: memory.entity("D.").name)  # type: ignore[union-attr]
    out["entities"] = step("entities", lambda: sorted(e.name for e in memory.entities().entities))
    out["entities_matching"] = step("entities_matching", lambda: sorted(
        e.name for e in memory.entities(matching="da").entities))
    out["entities_matching_grams"] = step("entities_matching_grams", lambda: sorted(
        e.name for e in memory.entities(matching="oliver").entities))
    out["observations"] = step("observations", lambda: [o.text for o in memory.observations("Dana")])
    out["all_observations"] = step("all_observations", lambda: len(memory.observations()))
    out["stats"] = step("stats", lambda: memory.stats().model_dump(exclude={"scope"}))
    out["digest"] = step("digest", lambda: len(memory.digest().facts))
    out["audit"] = step("audit", lambda: len(memory.audit(limit=100)))
    out["audit_of_entity"] = step("audit_of_entity", lambda: len(memory.audit("Dana", limit=100)))
    out["growth"] = step("growth", lambda: memory.growth(steps=4).model_dump() is not None)
    out["changes"] = step("changes", lambda: len(memory.changes(datetime.now(UTC) - timedelta(days=1)).changes))
    out["recall"] = step("recall", lambda: [o.text for o in memory.recall("What pets does Dana have?").observations])
    out["search_entities"] = step("search_entities", lambda: [e.name for e in memory.search_entities("dana")])
    out["duplicates"] = step("duplicates", lambda: len(memory.duplicates()))
    out["export"] = step("export", lambda: len(list(memory.export())))
    out["unobserve"] = step("unobserve", lambda: memory.unobserve("Dana", ["Dana keeps a cat named Oliver."]))
    out["revoke_session"] = step("revoke_session", lambda: memory.revoke_session("own-session").model_dump())
    out["purge_entity"] = step("purge_entity", lambda: memory.purge("Bob").model_dump())
    exported = list(memory.export())
    out["purge_scope"] = step("purge_scope", lambda: memory.purge(scope=memory.scope).model_dump())
    out["import"] = step("import", lambda: memory.import_(exported).model_dump())
    out["imported"] = sorted(f.object for f in memory.facts("Dana"))
    return out


@pytest.mark.parametrize("backend_name", ["neo4j"])
@pytest.mark.parametrize("api", ["sync"])
def test_no_statement_scans_every_scope_s_nodes_of_a_label(purged: Callable[..., Memory]) -> None:
    crowd(purged(max_facts=100_000, max_entities=100_000, candidate_below=0.5), 2000)
    own = purged(candidate_below=0.5)
    scans: dict[str, set[str]] = {}

    def step(operation: str, call: Callable[[], Any]) -> Any:
        result: list[Any] = []
        for name, params in statements_of(own, lambda: result.append(call()), writes=True):
            found = [line for line in plan(own, name, params) if any(scan in line.split(" ")[0] for scan in SCANS)]
            if found:
                scans.setdefault(f"{name} ({operation})", set()).update(found)
        return result[0]

    exercise(own, step)
    assert not scans, "\n".join(f"{name}: {sorted(lines)}" for name, lines in sorted(scans.items()))


OUTCOMES = {
    "register_session": "own-session",
    "upsert": {"created": 4, "confirmed": 0, "closed": 0, "entities_created": 5, "aliases_merged": 0,
               "possible_duplicates": []},
    "observe": "Dana keeps a cat named Oliver.",
    "session_write": {"created": 1, "confirmed": 0, "closed": 0, "entities_created": 1, "aliases_merged": 0,
                      "possible_duplicates": []},
    "sessions": ["own-session"],
    "candidate": {"created": 1, "confirmed": 0, "closed": 0, "entities_created": 1, "aliases_merged": 0,
                  "possible_duplicates": []},
    "pending": ["Rumour 1"], "reject": None,
    "rejected_again": {"created": 1, "confirmed": 0, "closed": 0, "entities_created": 0, "aliases_merged": 0,
                       "possible_duplicates": []},
    "retract": 1,
    "alias": {"canonical": "Dana", "alias": "D.", "changed": True, "merged": False, "facts_moved": 0},
    "merge": {"canonical": "Bob", "alias": "Robert", "changed": True, "merged": True, "facts_moved": 1},
    "unmerge": "Robert", "unmerged": ["Chess"], "pin": True, "feedback": "Paris",
    "diff": ["Acme", "Dana", "Paris", "Person 1"], "subgraph": ["Dana", "Paris", "Person 1", "Tea"],
    "facts": ["Paris", "Person 1", "Tea"], "facts_in_scope": 5, "facts_by_predicate": ["Bob", "Dana"], "history": 4,
    "neighbourhood": 4, "entity": "Dana", "entities": [
        "Acme", "Bob", "Chess", "Dana", "Paris", "Person 1", "Robert", "Rumour 1", "Tea"],
    "entities_matching": ["Dana"], "entities_matching_grams": ["Dana"],
    "observations": ["Dana keeps a cat named Oliver."], "all_observations": 1,
    "stats": {"entities": 9, "aliases": 1, "facts": 6, "valid_now": 5, "expired_records": 2, "candidates": 1,
              "disputed": 0, "observations": 1},
    "digest": 5, "audit": 15, "audit_of_entity": 10, "growth": True, "changes": 13,
    "recall": ["Dana keeps a cat named Oliver."], "search_entities": ["Dana"], "duplicates": 0, "export": 39,
    "unobserve": 1, "revoke_session": {"entities": 0, "facts": 0, "records": 0, "aliases": 0},
    "purge_entity": {"entities": 1, "facts": 1, "records": 1, "aliases": 0},
    "purge_scope": {"entities": 8, "facts": 6, "records": 9, "aliases": 1},
    "import": {"created": 8, "confirmed": 0, "closed": 0, "entities_created": 8, "aliases_merged": 0,
               "possible_duplicates": []},
    "imported": ["Paris", "Person 1", "Tea"],
}
"""What each operation of :func:`exercise` answers, beside a crowd that holds the same names many times over."""


def test_each_operation_beside_a_crowding_scope_answers_for_its_own_scope_alone(
        purged: Callable[..., Memory]) -> None:
    others = purged(max_facts=100_000, max_entities=100_000, candidate_below=0.5)
    crowd(others, 300)
    held = (others.stats(), len(others.audit(limit=1000)), len(list(others.export())), others.sessions())
    own = purged(candidate_below=0.5)
    assert exercise(own, lambda _, call: call()) == OUTCOMES
    assert (others.stats(), len(others.audit(limit=1000)), len(list(others.export())), others.sessions()) == held
