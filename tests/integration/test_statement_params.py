"""Every request the engine builds names exactly the parameters its statement reads, and the statements read by
a declared shape (engine/projections.py) return exactly its columns (issue 32, item 5).

The parameters a statement reads are its ``$names`` in the catalogue's text for the backend's dialect
(:func:`synapse_graph.catalogue.query`); the parameters a request gives are those the engine's request
builders assembled, recorded at the backend while the public API runs a varied scope through writes,
merges, reviews, sessions, reads, recall, changes, export, import and erasure. A key the statement does not
read is a value computed for nothing (or a typo beside a parameter that silently stays null); a parameter
no key gives would fail at run time. The scenario must reach every statement the engine runs, but for the
few named in ``NOT_REACHED`` (with why), so a new statement is checked as soon as it exists.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import timedelta
from typing import Any

import pytest

from synapse_graph import Memory, Triple
from synapse_graph.backends.base import Params, Requests, Row
from synapse_graph.backends.falkordb import FalkorDBBackend
from synapse_graph.backends.neo4j import Neo4jBackend
from synapse_graph.catalogue import DIALECT_ONLY, DIALECTS, Q, query
from synapse_graph.engine import projections, recalling
from tests.integration.test_recall import TrigramEmbedder
from tests.integration.test_recall_vector_index import SmallTrigrams, crowd

_PARAMETER = re.compile(r"\$([A-Za-z_][A-Za-z0-9_]*)")

NOT_REACHED: dict[Q, str] = {
    Q.LOCK_SCOPE: "run by the Neo4j backend itself when it takes a scope's lock, not built by the engine",
    Q.CREATE_SCOPE: "run by the Neo4j backend itself when it takes a scope's lock, not built by the engine",
    Q.SCHEMA: "run by the backends' ensure_schema, not built by the engine",
    Q.VECTOR_INDEX: "run by the backends' ensure_schema, not built by the engine",
    Q.VECTOR_INDEX_DIMENSIONS: "run by the backends' ensure_schema, not built by the engine",
    Q.MEMORY_LEXICAL_EACH: "recall's form for a scope of 1,000 memories or more (recalling.SMALL_SCOPE)",
    Q.MEMORY_LEXICAL_ALONE: "recall's form for a scope of 1,000 memories or more without an embedder",
    Q.MEMORY_LEXICAL_FEW: "recall's form for a scope of 1,000 memories or more without an embedder, few stems",
    Q.RECORDS_BY_ID: "a page of changes reads the records its stored verdicts name with its entries "
                     "(changes/change_entries); by id only a record gone since (tests/integration/test_changes.py)",
    Q.MOST_CONNECTED: "the digest's last resort, when more than digest.CANDIDATES busy entities hold mostly history",
    **{name: "runs only when a store of an older format is opened (engine/migrations.py)" for name in (
        Q.SLOTLESS_FACTS, Q.SET_SLOTS, Q.FACTS_WITHOUT_SIDE_SLOTS, Q.SET_SIDE_SLOTS, Q.RECOUNT_SCOPE,
        Q.SET_SCOPE_TOKENS, Q.SET_HISTORY_TOKENS, Q.SET_MEMORY_TOKENS, Q.UNSTEMMED_OBSERVATIONS,
        Q.SET_OBSERVATION_SEARCH_TEXTS,
        Q.UNSTEMMED_FACTS,
        Q.SET_FACT_SEARCH_TEXTS, Q.SET_AHEAD, Q.SET_RECORD_COUNTS, Q.MOVE_RECORD_COUNTS, Q.SET_RECORD_KEYS,
        Q.DROP_GROWTH, Q.GROWTH_INSTANTS, Q.COUNT_GROWTH,
        Q.GRAMLESS_ENTITIES, Q.GRAMLESS_ALIASES, Q.GRAMLESS_OBSERVATIONS, Q.SET_ENTITY_GRAMS, Q.SET_ALIAS_GRAMS,
        Q.SET_OBSERVATION_GRAMS)},
    Q.STATS_MEASURED: "stats of a store of an older format not opened for writing since (its counters not kept yet)",
    Q.GROWTH: "growth of a store of an older format not opened for writing since (its growth counters not kept yet)",
}


class _Recording:
    """A backend that records each statement the engine sends it, with its parameters' names and the names
    of the columns of each row it returned."""

    def __init__(self, backend: Any, seen: list[tuple[str, frozenset[str]]],
                 columns: dict[str, set[frozenset[str]]]) -> None:
        self._backend, self._seen, self._columns = backend, seen, columns

    def __getattr__(self, name: str) -> Any:
        return getattr(self._backend, name)

    def _note(self, name: str, params: Params, rows: list[Row]) -> list[Row]:
        self._seen.append((str(name), frozenset(params)))
        self._columns.setdefault(str(name), set()).update(frozenset(row) for row in rows)
        return rows

    def read(self, name: str, params: Params) -> list[Row]:
        return self._note(name, params, self._backend.read(name, params))

    def write(self, name: str, params: Params) -> list[Row]:
        return self._note(name, params, self._backend.write(name, params))

    def write_last(self, name: str, params: Params) -> list[Row]:
        return self._note(name, params, self._backend.write_last(name, params))

    def read_many(self, requests: Requests) -> list[list[Row]]:
        answers: list[list[Row]] = self._backend.read_many(requests)
        for (name, params), rows in zip(requests, answers, strict=True):
            self._note(name, params, rows)
        return answers

    @contextmanager
    def locked(self, scope: str, init: Params, timeout: float) -> Iterator[_Recording]:
        with self._backend.locked(scope, init, timeout) as runner:
            yield _Recording(runner, self._seen, self._columns)


def _scenario(make: Callable[..., Memory]) -> None:
    memory = make(embedder=TrigramEmbedder())
    memory.upsert([Triple(subject="Dana", predicate="LIVES_IN", object="Paris", valid_at="2019-01-01"),
                   Triple(subject="Dana", predicate="WORKS_AT", object="Acme", valid_at="2020-01-01"),
                   Triple(subject="Dana", predicate="KNOWS", object="Bob", valid_at="2021-06-01"),
                   Triple(subject="Bob", predicate="LIKES", object="Jazz", object_type="genre")], source="chat 1")
    memory.upsert(Triple(subject="Dana", predicate="LIVES_IN", object="Berlin", valid_at="2024-01-01"))
    memory.upsert(Triple(subject="Robert", predicate="LIKES", object="Tea", subject_type="person"))
    memory.observe("Dana", ["Speaks fluent Spanish", "Runs every morning"])
    memory.observe_many([("Bob", ["Plays the saxophone"])])
    memory.unobserve("Dana", ["Runs every morning"])
    memory.set_rules(max_candidates=100)
    memory.alias("Robert", "Bob")
    memory.alias("Dana", "Dee")
    memory.retract("Dana", "WORKS_AT", at="2023-01-01")
    memory.upsert(Triple(subject="Dana Smith", predicate="LIVES_IN", object="Berlin"))
    memory.upsert(Triple(subject="Dana Smyth", predicate="LIVES_IN", object="Berlin"))
    memory.reject_duplicate("Dana", "Robert", reason="two people")
    memory.duplicates(threshold=0.1)
    memory.approve_duplicate("Dana Smith", "Dana Smyth")
    memory.unmerge("Dana Smyth")
    memory.upsert([Triple(subject="Eve", predicate="LIKES", object="Chess", confidence=0.2),  # candidates
                   Triple(subject="Eve", predicate="LIKES", object="Go", confidence=0.2)], model="extractor")
    chess, go = sorted(memory.pending(include_disputed=True), key=lambda f: f.object)
    memory.approve(chess)
    memory.reject(go, "wrong")
    memory.upsert(Triple(subject="Eve", predicate="LIKES", object="Go", confidence=0.2), model="extractor")
    [lives] = memory.facts("Dana", "LIVES_IN")
    memory.feedback(lives, "helpful")
    memory.pin(lives)
    memory.unpin(lives)
    memory.facts()
    memory.facts(predicate="LIKES")
    memory.facts(object="Berlin")
    memory.facts(object="Berlin", predicate="LIVES_IN")
    memory.facts("Dana", include_history=True)
    memory.facts("Dana", during=("2018-01-01", "2025-01-01"))
    memory.history("Dana", "LIVES_IN")
    memory.neighbourhood("Dana", hops=2)
    memory.entity("Dee")
    memory.entities(limit=2)
    memory.entities(matching="Da")
    memory.entities(matching="Da", with_facts=True)
    memory.entities(matching="Dan")  # a gram or more: through the substring index
    memory.stats()
    memory.growth(steps=3)
    memory.digest()
    memory.audit(entity="Dana", limit=5)
    memory.audit(limit=5, action="upsert")
    memory.changes("2000-01-01")
    memory.changes("2000-01-01", entity="Dana")
    memory.diff("2019-06-01", "2024-06-01")
    memory.diff("2019-06-01", "2024-06-01", entity="Dana")
    memory.reindex_embeddings()
    memory.recall("Where does Dana live?")
    memory.recall("Where did Dana live, work and travel before Bob knew Acme?")  # more than six terms
    memory.search_entities("Dana", limit=3)
    memory.subgraph(["Dana"], hops=2)
    memory.observations("Dana", include_history=True)
    memory.observations()
    memory.register_session("agent-1", ttl=timedelta(hours=1))
    inside = make(scope=memory.scope, session="agent-1")
    inside.upsert(Triple(subject="Dana", predicate="LIKES", object="Tango"), memory_scope="session")
    memory.promote([f.id for f in inside.facts(memory_scope="session")], session="agent-1")
    memory.sessions()
    memory.revoke_session("agent-1")
    lines = list(memory.export())
    copy = make(embedder=TrigramEmbedder())
    copy.import_([line.replace(memory.scope, copy.scope) for line in lines])
    copy.import_([line.replace(memory.scope, copy.scope) for line in lines])  # again: every line known
    memory.purge("Eve")
    copy.purge(scope=copy.scope)
    small = make(embedder=SmallTrigrams())  # another dimension than the vector indexes': recall scans the scope
    small.observe("Dana", ["Speaks fluent Spanish"])
    small.recall("Who speaks Spanish?")
    small.purge(scope=small.scope)
    crowding = make(embedder=TrigramEmbedder())  # a scope asking the vector indexes, crowded out by another's
    crowd(crowding, facts=False)
    crowded = make(embedder=TrigramEmbedder())
    crowded.observe("Dana", ["Dana plays chess on Sundays."])  # farther from the question than every crowding one
    scanning_below, oversample = recalling.INDEXED_FROM, recalling.OVERSAMPLE
    recalling.INDEXED_FROM, recalling.OVERSAMPLE = 0, 1  # the indexes asked for 50: all of them the crowd's 230
    try:
        crowded.recall("an automobile")  # none of its own in the indexes' answer: recall scans the scope
    finally:
        recalling.INDEXED_FROM, recalling.OVERSAMPLE = scanning_below, oversample
    for made in (crowding, crowded):
        made.purge(scope=made.scope)


@pytest.mark.parametrize("api", ["sync"])
def test_each_request_gives_exactly_its_statements_parameters(make_memory: Callable[..., Memory],
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[tuple[str, frozenset[str]]] = []
    columns: dict[str, set[frozenset[str]]] = {}
    import synapse_graph.memory as facade

    opened = facade.open_backend
    monkeypatch.setattr(facade, "open_backend", lambda *a, **k: _Recording(opened(*a, **k), seen, columns))
    for backend in (FalkorDBBackend, Neo4jBackend):  # recall's cosines in process (off on FalkorDB by default)
        monkeypatch.setattr(backend, "cosines_in_process", True)
    made: list[Memory] = []

    def make(**options: Any) -> Memory:
        made.append(make_memory(**options))
        return made[-1]

    _scenario(make)
    wrong = {}
    for name, given in set(seen):
        read = _parameters(Q(name))
        if given != read:
            wrong[name] = {"given, not read": sorted(given - read), "read, not given": sorted(read - given)}
    assert wrong == {}, "\n".join(f"{k}: {v}" for k, v in sorted(wrong.items()))
    reached = {Q(name) for name, _ in seen}
    assert sorted(set(Q) - set(NOT_REACHED) - reached) == [], "statements the scenario never reached"
    assert sorted(reached & set(NOT_REACHED)) == [], "statements reached after all (take them out of NOT_REACHED)"
    # The statements read by a declared shape return rows of exactly its keys (some row of each was read).
    shapes = {p.statement.value: {frozenset(p.row.__annotations__)} for p in projections.SHAPED}
    assert {name: columns.get(name) for name in shapes} == shapes


def _parameters(name: Q) -> frozenset[str]:
    """The parameters a statement reads in any dialect: the engine, one for both, gives each of them."""
    dialects = [DIALECT_ONLY[name]] if name in DIALECT_ONLY else DIALECTS
    return frozenset(p for dialect in dialects for p in _PARAMETER.findall(query(name, dialect)))
