"""Sessions: a private scope per agent session beside the durable scope; expiry, revocation and promotion."""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest

from synapse_graph import InvalidInputError, InvalidScopeError, Memory, SessionClosedError, Triple
from synapse_graph.embedding import Embedder
from synapse_graph.errors import EmbedderUnavailableError
from tests.ci import require, unavailable
from tests.integration.helpers import objects, raw_cypher, snapshot

pytestmark = pytest.mark.integration
MakeMemory = Callable[..., Memory]


def test_session_memory_is_private_and_recall_never_falls_back(make_memory: MakeMemory) -> None:
    durable = make_memory()
    durable.upsert(("Dana", "WORKS_AT", "Acme"))
    agent = make_memory(scope=durable.scope, session="s-1")
    agent.register_session()
    agent.upsert(("Dana", "DEBUGGING", "login bug"), memory_scope="session")
    assert [f.predicate for f in agent.recall("what is Dana doing?").facts] == ["DEBUGGING"]  # session by default
    assert [f.predicate for f in agent.recall("what is Dana doing?", memory_scope="durable").facts] == ["WORKS_AT"]
    assert objects(durable.facts("Dana")) == ["Acme"]  # the durable scope never sees session facts
    assert objects(agent.facts("Dana", memory_scope="session")) == ["login bug"]
    other = make_memory(scope=durable.scope, session="s-2")
    other.register_session()
    assert other.recall("what is Dana doing?").facts == []  # another session's memory is not this one's
    agent.upsert(("Dana", "LIKES", "tea"))  # a durable write records the session it came from
    assert [f.session for f in durable.facts("Dana", "LIKES")] == ["s-1"]


def test_sessions_expire_and_registering_again_does_not_extend(make_memory: MakeMemory) -> None:
    agent = make_memory(session="short")
    first = agent.register_session(ttl=timedelta(seconds=1))
    assert agent.register_session(ttl=timedelta(days=30)).expires_at == first.expires_at
    agent.upsert(("Dana", "LIKES", "tea"), memory_scope="session")
    time.sleep(1.1)
    before = snapshot(agent)
    with pytest.raises(SessionClosedError, match="expired"):
        agent.upsert(("Dana", "LIKES", "coffee"), memory_scope="session")
    assert snapshot(agent) == before
    assert objects(agent.facts("Dana", memory_scope="session")) == ["tea"]  # still readable
    assert [s.status() for s in agent.sessions()] == ["expired"]


def test_revoking_blocks_writes_and_erases_the_session(make_memory: MakeMemory) -> None:
    agent = make_memory(session="s-9")
    agent.register_session()
    agent.upsert([("Dana", "DEBUGGING", "login bug"), ("Kim", "REVIEWS", "login bug")], memory_scope="session")
    agent.observe("Dana", ["stuck on the OAuth callback"], memory_scope="session")
    erased = agent.revoke_session("s-9")
    assert (erased.entities, erased.facts) == (3, 2)
    assert agent.facts(memory_scope="session", include_history=True) == []
    with pytest.raises(SessionClosedError, match="revoked"):
        agent.upsert(("Dana", "LIKES", "tea"), memory_scope="session")
    assert [s.status() for s in agent.sessions()] == ["revoked"]
    assert [e.action for e in agent.audit()][:2] == ["session:revoke", "session:register"]


def test_promote_copies_session_facts_into_durable_memory(make_memory: MakeMemory) -> None:
    agent = make_memory(session="s-3")
    agent.register_session()
    agent.upsert([("Dana", "PREFERS", "dark mode"), ("Dana", "DEBUGGING", "login bug")], valid_at="2024-05-01",
                 memory_scope="session")
    keep = agent.facts("Dana", "PREFERS", memory_scope="session")
    result = agent.promote(keep)
    assert result.created == 1
    [promoted] = agent.facts("Dana")
    assert (promoted.object, promoted.session, promoted.source) == ("dark mode", "s-3", "promoted from session s-3")
    assert promoted.valid_at == keep[0].valid_at


def test_unregistered_and_malformed_sessions_are_refused(make_memory: MakeMemory) -> None:
    agent = make_memory(session="never-registered")
    with pytest.raises(SessionClosedError, match="not registered"):
        agent.upsert(("Dana", "LIKES", "tea"), memory_scope="session")
    with pytest.raises(InvalidInputError):
        make_memory(session="has/slash")
    durable = make_memory()
    with pytest.raises(InvalidInputError, match="session"):
        durable.upsert(("Dana", "LIKES", "tea"), memory_scope="session")
    with pytest.raises(InvalidInputError):
        durable.recall("tea", memory_scope="everywhere")  # type: ignore[arg-type]


@pytest.fixture(scope="module")
def embedder() -> Embedder:
    """MiniLM, the ``vector`` extra's model (missing, the test skips; under CI it fails)."""
    minilm = require("synapse_graph.embedders.minilm")
    try:
        model: Embedder = minilm.MiniLMEmbedder()
    except EmbedderUnavailableError as exc:
        unavailable(f"the MiniLM model files are not installed: {exc}")
    return model


def test_revoking_erases_the_sessions_embeddings(make_memory: MakeMemory, embedder: Embedder,
                                                 backend_settings: dict[str, Any]) -> None:
    agent = make_memory(session="s-vec", embedder=embedder)
    session_scope = agent.register_session().scope
    settings = dict(backend_settings)
    with Memory(settings.pop("location"), scope=agent.scope, **settings) as plain:

        def embedded() -> int:
            [row] = raw_cypher(plain, "MATCH (e:Entity {scope: $scope}) WHERE e.embedding IS NOT NULL "
                                      "RETURN count(e) AS n", scope=session_scope)
            return int(row["n"])

        def remaining() -> int:
            """Nodes of the session's scope but its Scope node (kept by design: a scope's version never repeats)."""
            [row] = raw_cypher(plain, "MATCH (n) WHERE n.scope = $scope AND NOT n:Scope RETURN count(n) AS n",
                               scope=session_scope)
            return int(row["n"])

        try:
            agent.upsert([("Dana", "OWNS", "car"), ("Dana", "LIVES_IN", "Paris")], memory_scope="session")
            # Dana, car, Paris embedded; the write's audit entry; its growth counters (its day, hour, minute and
            # instant: store format 10)
            assert embedded() == 3 and remaining() == 8
            found = agent.recall("automobile")  # no shared word: only the vector leg can find the car
            assert found.legs == ["lexical", "vector"]
            assert ("Dana", "OWNS", "car") in [(f.subject, f.predicate, f.object) for f in found.facts]
            assert make_memory(scope=agent.scope, session="s-vec").recall("automobile").facts == []  # no embedder

            erased = agent.revoke_session("s-vec")
            assert (erased.entities, erased.facts) == (3, 2)
            assert embedded() == 0 and remaining() == 0  # nothing of the session is left, vectors included
            assert agent.recall("automobile").facts == [] and agent.recall("automobile").entities == []
            assert agent.recall("Dana Paris car").facts == []
        finally:
            agent.revoke_session("s-vec")  # erases whatever a failed assertion left (the index spans all scopes)
            agent.purge(scope=agent.scope)


def test_promoting_a_candidate_keeps_it_a_candidate_with_its_provenance(make_memory: MakeMemory) -> None:
    durable = make_memory()
    durable.upsert(("Dana", "LIVES_IN", "Paris"), valid_at="2020-01-01")
    agent = make_memory(scope=durable.scope, session="s-cand")
    agent.register_session()
    agent.upsert(Triple(subject="Dana", predicate="LIVES_IN", object="Lyon", confidence=0.3), model="small-llm",
                 source="extracted", memory_scope="session")
    [candidate] = agent.facts("Dana", include_candidates=True, memory_scope="session")
    assert candidate.status == "candidate"

    agent.promote([candidate])

    assert objects(durable.facts("Dana", "LIVES_IN")) == ["Paris"]  # the believed value still holds
    [promoted] = durable.pending()
    assert (promoted.object, promoted.status, promoted.model, promoted.session) == (
        "Lyon", "candidate", "small-llm", "s-cand")
    assert promoted.source == "promoted from session s-cand"
    durable.approve(promoted)  # reviewed: only now does it close the believed value
    assert objects(durable.facts("Dana", "LIVES_IN")) == ["Lyon"]


def test_a_restored_scope_keeps_its_session_registry(make_memory: MakeMemory) -> None:
    agent = make_memory(session="s-gone")
    agent.register_session()
    agent.upsert(("Dana", "DEBUGGING", "login bug"), memory_scope="session")
    agent.revoke_session("s-gone")
    make_memory(scope=agent.scope, session="s-live").register_session(ttl=timedelta(days=2))
    exported = list(agent.export())

    restored = make_memory(session="s-gone")
    restored.import_(exported)

    def registry(memory: Memory) -> list[tuple[str, str, Any, Any, Any]]:
        return [(s.id, s.status(), s.registered_at, s.expires_at, s.revoked_at) for s in memory.sessions()]

    assert registry(restored) == registry(agent)
    assert [s[:2] for s in registry(restored)] == [("s-gone", "revoked"), ("s-live", "active")]
    assert restored.register_session().status() == "revoked"  # registering again does not reopen it
    with pytest.raises(SessionClosedError, match="revoked"):
        restored.upsert(("Dana", "LIKES", "tea"), memory_scope="session")
    assert restored.facts(memory_scope="session", include_history=True) == []


def test_a_session_scope_is_reachable_only_through_its_session(make_memory: MakeMemory) -> None:
    agent = make_memory(session="s-closed")
    agent.register_session()
    agent.revoke_session("s-closed")
    for scope in (f"{agent.scope}/session:s-closed", f"{agent.scope}/session:never-registered",
                  "session:s-closed", f"{agent.scope}/session:s-closed/notes"):
        with pytest.raises(InvalidScopeError, match="session"):
            make_memory(scope=scope)
    assert agent.facts(memory_scope="session", include_history=True) == []
    with pytest.raises(SessionClosedError, match="revoked"):
        agent.observe("Dana", ["likes tea"], memory_scope="session")


def test_a_ttl_beyond_what_a_time_can_hold_is_refused(make_memory: MakeMemory) -> None:
    agent = make_memory(session="s-long")
    for ttl in (timedelta(days=3_000_000), timedelta.max):
        with pytest.raises(InvalidInputError, match="ttl"):
            agent.register_session(ttl=ttl)
    assert agent.sessions() == []
    assert agent.register_session(ttl=timedelta(days=36_500)).status() == "active"  # a century is fine
