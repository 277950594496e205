"""Writes that race other writes of the same scope: a plan outlived by a purge of the scope, and
alias()/feedback() while other processes change, merge and purge what they touch.

A plan made before ``purge(scope=...)`` can only be applied after it by a writer that lost the
scope's lock (a FalkorDB writer paused past its lease); the scope's version must never repeat so
that the apply guard (``cypher/writes/apply_plan.cypher``) refuses it. The test drives the
engine's write operation by hand without the lock (the documented seam: ``engine.operations.write``
and ``engine.io`` requests, run on ``memory.backend``), paused after its reads.
"""

from __future__ import annotations

import contextlib
import json
import multiprocessing
import random
from collections import Counter
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from synapse_graph import Memory, NotFoundError, SynapseError, Triple
from synapse_graph.catalogue import Q
from synapse_graph.engine import operations as ops
from synapse_graph.engine.context import Context
from synapse_graph.engine.io import Embed, PlanOutdated, Read, Write
from synapse_graph.engine.writes import LEFT_OUT
from tests.integration.helpers import run_processes, utc

pytestmark = pytest.mark.integration

MakeMemory = Callable[..., Memory]
T0 = utc("2020-01-01")


def state(memory: Memory) -> dict[str, Any]:
    [row] = memory.backend.read(Q.SCOPE_STATE, {"scope": memory.scope})
    return dict(row["state"])


def counters_match_records(memory: Memory) -> None:
    """The scope's counters (what quotas rely on) equal what it holds."""
    lines = [json.loads(line) for line in memory.export()]
    current = [x for x in lines if x["kind"] == "fact" and x["expired_at"] is None]
    counted = state(memory)
    assert counted["facts"] == sum(1 for r in current if r["status"] != "candidate")
    assert counted["candidates"] == sum(1 for r in current if r["status"] == "candidate")
    assert counted["entities"] == sum(1 for x in lines if x["kind"] == "entity") == memory.stats().entities


# -- purge(scope=...) and the version guard --------------------------------------------------------------


def test_a_plan_made_before_purging_the_scope_is_never_applied_after_it(make_memory: MakeMemory) -> None:
    memory = make_memory()
    memory.upsert([Triple(subject="Dana", predicate="LIVES_IN", object="Paris", valid_at=T0),
                   Triple(subject="Jazz", predicate="IS_A", object="genre", valid_at=T0)])
    memory.upsert(Triple(subject="Dana", predicate="WORKS_AT", object="Acme", valid_at=T0))
    versions = [state(memory)["version"]]

    # A writer reads the scope and plans "Dana LIKES Jazz" (both entities exist, so the plan creates none)...
    ctx = Context(scope=memory.scope, client="stale-writer")
    stale = ops.write(ops.upsert(ctx, Triple(subject="Dana", predicate="LIKES", object="Jazz", valid_at=T0),
                                 replace=False, valid_at=None, source="planned before the purge", model=None,
                                 session=None))
    apply = run_until_apply(stale, memory)
    assert apply.params["version"] == versions[0]

    # ...then the scope is purged and written again, as often as it had been before: with versions that
    # restart after a purge, the scope would be back at the version the stale plan was made at.
    memory.purge(scope=memory.scope)
    versions.append(state(memory)["version"])
    for i in range(versions[0]):
        memory.upsert(Triple(subject="Erin", predicate="NOTED", object=f"note {i}", valid_at=T0))
        versions.append(state(memory)["version"])
    assert versions == sorted(set(versions)), f"a version repeated: {versions}"

    before = [json.loads(line) for line in memory.export()]
    with pytest.raises(PlanOutdated):  # the guard refuses the plan: the writer plans again
        stale.send(memory.backend.write(apply.name, apply.params))
    assert [json.loads(line) for line in memory.export()] == before, "a refused plan changed the store"
    assert memory.facts("Dana") == [] and memory.entity("Dana") is None
    counters_match_records(memory)
    assert state(memory)["facts"] == versions[0]


def run_until_apply(op: Any, memory: Memory) -> Write:
    """Run a write operation's reads on the memory's backend (without the scope's lock) until it asks to
    apply its plan; the request is returned unanswered."""
    answer: Any = None
    while True:
        request = op.send(answer)
        if isinstance(request, Write) and (request.name == Q.APPLY_PLAN or request.name in LEFT_OUT):
            return request
        assert not isinstance(request, Embed)
        answer = (memory.backend.read if isinstance(request, Read) else memory.backend.write)(
            request.name, request.params)


# -- alias() and feedback() racing other processes ---------------------------------------------------------

PEOPLE = [f"P{i}" for i in range(6)]
CITIES = ("Paris", "London", "Berlin", "Rome")
ROUNDS = 40


def racer(settings: dict[str, Any], scope: str, role: str, worker: int, seed: int, barrier: Any,
          results: Any) -> None:
    """One process of the race: ``writer`` (upserts, retracts, purges), ``aliaser`` or ``feedback``."""
    rng = random.Random(seed * 100 + worker)
    calls: list[tuple[str, str, str]] = []  # (call, outcome, detail)
    options = dict(settings)
    location = options.pop("location")
    try:
        with Memory(location, scope=scope, client=f"{role}-{worker}", lock_timeout=120, **options) as memory:
            barrier.wait(timeout=300)
            for round_ in range(ROUNDS):
                try:
                    if role == "writer":
                        person = rng.choice(PEOPLE)
                        choice = rng.random()
                        if choice < 0.15:
                            memory.purge(person)
                            calls.append(("purge", "ok", person))
                        elif choice < 0.25:
                            memory.retract(person, "LIVES_IN")
                            calls.append(("retract", "ok", person))
                        else:
                            memory.upsert([
                                Triple(subject=person, predicate="LIVES_IN", object=rng.choice(CITIES),
                                       valid_at=f"2021-01-{round_ % 28 + 1:02d}"),
                                Triple(subject=person, predicate="LIKES", object=f"hobby {round_ % 5}",
                                       valid_at=T0)])
                            calls.append(("upsert", "ok", person))
                    elif role == "aliaser":
                        canonical, other = rng.sample(PEOPLE, 2)
                        merged = memory.alias(canonical, other)
                        calls.append(("alias", "ok", f"{canonical}<-{other} merged={merged}"))
                    else:
                        found = memory.facts(rng.choice(PEOPLE))
                        if not found:
                            continue
                        fact = rng.choice(found)
                        try:
                            updated = memory.feedback(fact, rng.choice(("helpful", "stale", "wrong")))
                            calls.append(("feedback", "ok", f"{fact.id}->{updated.id}"))
                        except NotFoundError as exc:  # the fact was superseded, merged or purged first
                            calls.append(("feedback", "NotFoundError", f"{fact.id}: {exc}"))
                except SynapseError as exc:
                    calls.append((role, type(exc).__name__, str(exc)))
                except Exception as exc:  # a bare IndexError/ValueError is the defect
                    calls.append((role, f"UNEXPECTED {type(exc).__name__}", repr(exc)))
    except BaseException as exc:
        calls.append((role, f"CRASHED {type(exc).__name__}", repr(exc)))
    results.put((f"{role}-{worker}", calls))


def test_alias_and_feedback_racing_other_processes_never_fail_with_a_bare_error(
        make_memory: MakeMemory, backend_settings: dict[str, Any]) -> None:
    memory = make_memory()
    for person in PEOPLE:
        memory.upsert([Triple(subject=person, predicate="LIVES_IN", object="Paris", valid_at="2020-06-01"),
                       Triple(subject=person, predicate="LIKES", object="hobby 0", valid_at=T0)])
    roles = ["writer", "writer", "aliaser", "aliaser", "feedback", "feedback"]
    seed = random.randrange(10**6)
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload([__name__])
    barrier, results = context.Barrier(len(roles) + 1), context.Queue()
    processes = [context.Process(target=racer, args=(backend_settings, memory.scope, role, w, seed, barrier, results))
                 for w, role in enumerate(roles)]
    returned, seconds = run_processes(processes, results, barrier=barrier)
    collected = dict(returned)

    outcomes = Counter((call, outcome) for calls in collected.values() for call, outcome, _ in calls)
    wrong = [(who, c) for who, calls in collected.items() for c in calls
             if c[1] != "ok" and (c[0], c[1]) != ("feedback", "NotFoundError")]
    assert not wrong, f"seed {seed}: {wrong}"
    assert outcomes[("alias", "ok")] > 0 and outcomes[("feedback", "ok")] > 0, outcomes

    # A feedback the caller was told failed (NotFoundError) was not applied either (purging an entity
    # removes the log entries naming it, so this sees the feedback on facts that were not purged).
    audit = [entry for entry in memory.audit(limit=100_000) if entry.action.startswith("feedback")]
    refused = {(who, detail.split(":")[0]) for who, calls in collected.items()
               for call, outcome, detail in calls if outcome == "NotFoundError"}
    applied = {(entry.client, fact_id) for entry in audit for fact_id in entry.facts}
    assert not refused & applied, f"feedback applied but reported as NotFoundError: {sorted(refused & applied)}"
    counters_match_records(memory)
    print(f"\n[races] {len(roles)} processes x {ROUNDS} calls in {seconds:.1f} s: {dict(outcomes)}")


def test_an_applied_feedback_is_reported_even_if_the_fact_is_superseded_right_after(
        backend_name: str, backend_settings: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> None:
    options = dict(backend_settings)
    location = options.pop("location")
    scope = f"feedback-{random.randrange(16**8):08x}"
    with Memory(location, scope=scope, **options) as memory, Memory(location, scope=scope, **options) as other:
        memory.upsert(Triple(subject="Dana", predicate="LIVES_IN", object="Paris", valid_at="2020-01-01",
                             confidence=0.5))
        [fact] = memory.facts("Dana")
        backend = memory.backend
        real_locked, written = backend.locked, []

        @contextlib.contextmanager
        def locked(scope: str, init: Any, timeout: float) -> Iterator[Any]:
            with real_locked(scope, init, timeout) as runner:
                yield runner
            written.append(True)  # the feedback is written; before its caller hears of it, a writer supersedes it
            other.upsert(Triple(subject="Dana", predicate="LIVES_IN", object="London", valid_at="2021-01-01"))

        monkeypatch.setattr(backend, "locked", locked)
        updated = memory.feedback(fact, "helpful")
        assert written == [True]
        assert updated.id == fact.id and updated.status == "believed" and updated.confidence > fact.confidence
        assert [(f.object, f.invalid_at is None) for f in memory.history("Dana", "LIVES_IN")] == [
            ("Paris", False), ("London", True)]
        [entry] = [e for e in memory.audit() if e.action.startswith("feedback")]
        assert fact.id in entry.facts
