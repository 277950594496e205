"""Alias merges give the store it would hold had every fact been written to the canonical entity.

Each test writes facts under two names (``Bob``, merged into ``Robert``) and checks the outcome
after the merge, by ``alias()`` and by a ``SAME_AS`` triple: trust states (candidates and disputed
facts stay what they were), rejections (they move with the entity), single-valued predicates
(resolved by the single-valued rule, also when several processes merge at once), belief-time
reads (a fact never comes back twice) and erasure (purging the merged entity leaves nothing of
the name it absorbed).
"""

from __future__ import annotations

import asyncio
import json
import multiprocessing
from collections.abc import Callable
from datetime import datetime
from typing import Any

import pytest

from synapse_graph import Fact, Memory, Triple
from synapse_graph.aio import AsyncMemory
from synapse_graph.catalogue import Q
from tests.integration.helpers import run_processes, spans, utc, words

pytestmark = pytest.mark.integration

MakeMemory = Callable[..., Memory]
MERGES: dict[str, Callable[[Memory], bool]] = {
    "alias-call": lambda memory: memory.alias("Robert", "Bob").merged,
    "same-as-triple": lambda memory: memory.upsert(("Robert", "SAME_AS", "Bob")).aliases_merged == 1,
}
EVERY_STATE = {"include_candidates": True, "include_disputed": True}

Row = tuple[str, str, str, datetime, datetime | None, str, int]


def rows(facts: list[Fact]) -> list[Row]:
    """What a fact is, apart from ids and belief times: ends, validity, trust state, confirmations."""
    return sorted((f.subject, f.predicate, f.object, f.valid_at, f.invalid_at, f.status, f.confirmations)
                  for f in facts)


def hold(memory: Memory, name: str, state: str, triple: tuple[str, str] = ("LIKES", "Tea"),
         valid_at: str = "2021-01-01", invalid_at: str | None = None) -> None:
    """Write ``name predicate object`` so that it is believed, a candidate, or disputed."""
    predicate, obj = triple
    written = Triple(subject=name, predicate=predicate, object=obj, valid_at=valid_at, invalid_at=invalid_at,
                     confidence=0.4 if state == "candidate" else 1.0)
    memory.upsert(written, model="extractor" if state == "candidate" else None)
    if state == "disputed":
        [fact] = [f for f in memory.facts(name, predicate, as_of=valid_at, include_disputed=True) if f.object == obj]
        memory.feedback(fact, "wrong")


def counters(memory: Memory) -> tuple[int, int]:
    """The scope's stored (facts, candidates) counters, which the quotas rely on."""
    [row] = memory.backend.read(Q.SCOPE_STATE, {"scope": memory.scope})
    return row["state"]["facts"], row["state"]["candidates"]


def measured(memory: Memory) -> tuple[int, int]:
    """(believed or disputed, candidate) records currently believed, counted from the export."""
    current = [json.loads(x) for x in memory.export()]
    current = [x for x in current if x["kind"] == "fact" and x["expired_at"] is None]
    return sum(x["status"] != "candidate" for x in current), sum(x["status"] == "candidate" for x in current)


# -- trust states -----------------------------------------------------------------------------------------


INTERVALS = {  # Bob's and Robert's intervals of the fact
    "same-interval": (("2021-01-01", None), ("2021-01-01", None)),
    "overlapping": (("2020-01-01", "2022-01-01"), ("2021-01-01", "2023-01-01")),
}


@pytest.mark.parametrize("merge", MERGES)
@pytest.mark.parametrize("intervals", INTERVALS)
@pytest.mark.parametrize(("bob", "robert", "expected"), [
    ("candidate", "candidate", ["candidate"]),
    ("disputed", "disputed", ["disputed"]),
    ("disputed", "believed", ["disputed"]),
    ("believed", "disputed", ["disputed"]),
    ("candidate", "believed", ["believed", "candidate"]),
])
def test_a_merge_keeps_candidates_and_disputed_facts_as_they_were(
        make_memory: MakeMemory, merge: str, intervals: str, bob: str, robert: str, expected: list[str]) -> None:
    (bob_from, bob_until), (robert_from, robert_until) = INTERVALS[intervals]

    def write(memory: Memory, names: tuple[str, str], order: tuple[int, int] = (0, 1)) -> None:
        hold(memory, "Robert", "believed", ("WORKS_AT", "Acme"))  # Robert exists whatever his Tea fact is
        writes = [(names[0], bob, bob_from, bob_until), (names[1], robert, robert_from, robert_until)]
        for i in order:
            name, state, since, until = writes[i]
            hold(memory, name, state, valid_at=since, invalid_at=until)

    memory = make_memory()
    write(memory, ("Bob", "Robert"))

    assert MERGES[merge](memory) is True

    tea = memory.facts("Robert", "LIKES", include_history=True, **EVERY_STATE)
    assert sorted(f.status for f in tea) == expected
    if len(tea) == 1:  # one fact: both intervals united, both writes counted
        ends = [bob_until, robert_until]
        assert spans(tea) == [("Tea", utc(min(bob_from, robert_from)),
                               None if None in ends else max(utc(e) for e in ends if e))]
        assert tea[0].confirmations == 2
    # Nothing was approved: reads that ask for believed facts only see no Tea unless one was believed.
    assert [f.object for f in memory.facts("Robert", "LIKES", as_of=robert_from)] == (
        ["Tea"] if "believed" in expected else [])
    assert [f.status for f in memory.pending()] == ["candidate"] * expected.count("candidate")
    # The same store as if both writes had named Robert from the start, in either order.
    for order in ((0, 1), (1, 0)):
        control = make_memory()
        write(control, ("Robert", "Robert"), order)
        assert rows(memory.facts(include_history=True, **EVERY_STATE)) == rows(
            control.facts(include_history=True, **EVERY_STATE)), f"written to Robert in order {order}"
        assert counters(memory) == measured(memory) == counters(control)


@pytest.mark.parametrize("merge", MERGES)
def test_a_merged_candidate_can_still_be_reviewed(memory: Memory, merge: str) -> None:
    hold(memory, "Robert", "candidate")
    hold(memory, "Bob", "candidate")
    MERGES[merge](memory)

    [candidate] = memory.pending()
    memory.approve(candidate)

    assert memory.pending() == []
    [tea] = memory.facts("Bob", "LIKES")
    assert (tea.subject, tea.object, tea.status) == ("Robert", "Tea", "believed")
    assert tea.confirmations == 2  # both names' writes still count once believed
    assert counters(memory) == measured(memory)


# -- rejections ---------------------------------------------------------------------------------------------


def rejected(memory: Memory, subject: str, predicate: str, obj: str, reason: str) -> None:
    """Leave a tombstone for ``subject predicate object`` (a model's candidate, rejected)."""
    memory.upsert(Triple(subject=subject, predicate=predicate, object=obj, valid_at="2021-01-01", confidence=0.3),
                  model="extractor")
    [candidate] = [f for f in memory.pending() if (f.predicate, f.object) == (predicate, obj)]
    memory.reject(candidate, reason)


def flagged(memory: Memory, reason: str) -> list[Fact]:
    return [f for f in memory.pending() if f.flag is not None and reason in f.flag]


@pytest.mark.parametrize("merge", MERGES)
@pytest.mark.parametrize("written_as", ["Robert", "Bob"])
def test_a_rejection_moves_with_the_merged_entity(memory: Memory, merge: str, written_as: str) -> None:
    hold(memory, "Robert", "believed")
    rejected(memory, "Bob", "WORKS_AT", "Globex", "Bob never worked at Globex")
    rejected(memory, "Carol", "KNOWS", "Bob", "Carol never met Bob")
    MERGES[merge](memory)

    memory.upsert([Triple(subject=written_as, predicate="WORKS_AT", object="Globex", valid_at="2022-01-01"),
                   Triple(subject="Carol", predicate="KNOWS", object=written_as, valid_at="2022-01-01")])

    # Written again after the merge, each rejected fact comes back as a flagged candidate, not believed.
    assert memory.facts("Robert", "WORKS_AT") == []
    assert memory.facts("Carol", "KNOWS") == []
    [globex] = flagged(memory, "Bob never worked at Globex")
    [carol] = flagged(memory, "Carol never met Bob")
    assert (globex.subject, globex.object) == ("Robert", "Globex")
    assert (carol.subject, carol.object) == ("Carol", "Robert")
    assert counters(memory) == measured(memory)


def test_a_rejection_moves_with_an_entity_merged_in_the_same_write(memory: Memory) -> None:
    hold(memory, "Robert", "believed")
    rejected(memory, "Bob", "WORKS_AT", "Globex", "Bob never worked at Globex")

    result = memory.upsert([("Robert", "SAME_AS", "Bob"),
                            Triple(subject="Robert", predicate="WORKS_AT", object="Globex", valid_at="2022-01-01")])

    assert result.aliases_merged == 1
    assert memory.facts("Robert", "WORKS_AT") == []
    [globex] = flagged(memory, "Bob never worked at Globex")
    assert (globex.subject, globex.object) == ("Robert", "Globex")


@pytest.mark.parametrize("rejected_as", ["Bob", "Robert"])
def test_a_rejected_fact_written_again_flags_the_candidate_it_confirms(memory: Memory, rejected_as: str) -> None:
    """The write comes back flagged even when it only confirms a candidate that was never rejected itself."""
    memory.upsert(Triple(subject="Robert", predicate="LIKES", object="Tea", valid_at="2020-01-01", confidence=0.3),
                  model="extractor")
    memory.upsert(Triple(subject=rejected_as, predicate="LIKES", object="Tea", valid_at="2010-01-01",
                         invalid_at="2011-01-01", confidence=0.3), model="extractor")
    [old] = [f for f in memory.pending() if f.valid_at == utc("2010-01-01")]
    memory.reject(old, "Robert hates tea")
    memory.alias("Robert", "Bob")
    [waiting] = memory.pending()
    assert waiting.flag is None

    memory.upsert(Triple(subject="Bob", predicate="LIKES", object="Tea", valid_at="2021-01-01",
                         invalid_at="2022-01-01"))

    [again] = memory.pending()
    assert (again.id, again.confirmations, again.status) == (waiting.id, 2, "candidate")
    assert again.flag is not None and "Robert hates tea" in again.flag
    assert memory.facts("Robert", "LIKES") == []


# -- single-valued predicates -------------------------------------------------------------------------------


@pytest.mark.parametrize("merge", MERGES)
@pytest.mark.parametrize("story", ["merged-in-is-earlier", "merged-in-is-later", "merged-in-is-between"])
def test_a_merge_resolves_two_current_values_of_a_single_valued_predicate(
        make_memory: MakeMemory, merge: str, story: str) -> None:
    writes = {
        "merged-in-is-earlier": [("Bob", "Paris", "2019-01-01"), ("Robert", "London", "2021-01-01")],
        "merged-in-is-later": [("Robert", "Paris", "2019-01-01"), ("Bob", "London", "2021-01-01")],
        "merged-in-is-between": [("Robert", "Paris", "2019-01-01"), ("Robert", "Berlin", "2023-01-01"),
                                 ("Bob", "London", "2021-01-01")],
    }[story]
    memory, control = make_memory(), make_memory()
    for name, city, since in writes:
        memory.upsert(Triple(subject=name, predicate="LIVES_IN", object=city, valid_at=since))
        control.upsert(Triple(subject="Robert", predicate="LIVES_IN", object=city, valid_at=since))

    MERGES[merge](memory)

    # One current value: the later valid_at closes the earlier one at its start; history keeps both.
    latest = max(writes, key=lambda w: w[2])[1]
    assert [f.object for f in memory.facts("Robert", "LIVES_IN")] == [latest]
    assert [f.object for f in memory.facts("Bob", "LIVES_IN", as_of="2020-06-01")] == ["Paris"]
    chain = sorted((since, city) for _, city, since in writes)
    assert spans(memory.history("Robert", "LIVES_IN")) == [
        (city, utc(since), utc(chain[i + 1][0]) if i + 1 < len(chain) else None)
        for i, (since, city) in enumerate(chain)]
    assert rows(memory.history("Robert")) == rows(control.history("Robert"))
    assert counters(memory) == measured(memory)


def merge_worker(settings: dict[str, Any], api: str, scope: str, worker: int, barrier: Any, results: Any) -> None:
    """One process (spawned): merges entity ``P<worker>`` into ``Main`` at the same moment as the others."""
    options = dict(settings)
    location = options.pop("location")
    try:
        if api == "sync":
            with Memory(location, scope=scope, **options) as memory:
                barrier.wait(timeout=120)
                merged = memory.alias("Main", f"P{worker}").merged
        else:
            async def run() -> bool:
                async with AsyncMemory(location, scope=scope, **options) as memory:
                    barrier.wait(timeout=120)
                    return (await memory.alias("Main", f"P{worker}")).merged
            merged = asyncio.run(run())
        results.put((worker, merged, None))
    except BaseException as exc:  # reported to the parent, which fails the test
        results.put((worker, False, f"{type(exc).__name__}: {exc}"))


def test_six_processes_merging_at_once_leave_one_current_value(
        memory: Memory, backend_settings: dict[str, Any], api: str) -> None:
    workers = 6
    cities = [f"City{i}" for i in range(workers)]
    memory.upsert(Triple(subject="Main", predicate="LIVES_IN", object="Home", valid_at="2010-01-01"))
    for i in range(workers):  # each entity lives somewhere else since a year of its own, out of order
        memory.upsert(Triple(subject=f"P{i}", predicate="LIVES_IN", object=cities[i],
                             valid_at=f"{2011 + (i * 5) % workers}-01-01"))
    context = multiprocessing.get_context("spawn")
    barrier = context.Barrier(workers)
    results = context.Queue()
    processes = [context.Process(target=merge_worker, args=(backend_settings, api, memory.scope, w, barrier, results))
                 for w in range(workers)]
    outcomes = sorted(run_processes(processes, results, timeout=300)[0])

    assert outcomes == [(w, True, None) for w in range(workers)]
    # The values form one chain in order of valid_at, whatever order the merges ran in.
    chain = sorted([(utc("2010-01-01"), "Home"), *((utc(f"{2011 + (i * 5) % workers}-01-01"), cities[i])
                                                   for i in range(workers))])
    assert spans(memory.history("Main", "LIVES_IN")) == [
        (city, since, chain[i + 1][0] if i + 1 < len(chain) else None) for i, (since, city) in enumerate(chain)]
    assert [f.object for f in memory.facts("Main", "LIVES_IN")] == [chain[-1][1]]
    for i in range(workers):
        assert [f.object for f in memory.facts(f"P{i}", "LIVES_IN", as_of=chain[-1][0])] == [chain[-1][1]]
    assert memory.stats().entities == 1 + 1 + workers  # Main, Home and the cities
    assert counters(memory) == measured(memory)


# -- belief-time reads ----------------------------------------------------------------------------------------


def meeting_twice(facts: list[Fact]) -> list[tuple[Fact, Fact]]:
    """Pairs of results that are one fact: same ends and predicate, intervals overlapping or touching."""
    def meet(a: Fact, b: Fact) -> bool:
        return (a.invalid_at is None or b.valid_at <= a.invalid_at) and (
            b.invalid_at is None or a.valid_at <= b.invalid_at)
    return [(a, b) for i, a in enumerate(facts) for b in facts[i + 1:]
            if (a.subject, a.predicate, a.object) == (b.subject, b.predicate, b.object) and meet(a, b)]


OVERLAPS = {
    "same-interval": [("Bob", "2020-01-01", None), ("Robert", "2020-01-01", None)],
    "overlapping": [("Bob", "2020-01-01", "2021-06-01"), ("Robert", "2021-01-01", "2022-01-01")],
    "touching": [("Bob", "2020-01-01", "2021-01-01"), ("Robert", "2021-01-01", "2022-01-01")],
    # Bobby's interval, merged last, bridges Robert's and Bob's, which a first merge kept apart.
    "bridged-by-a-third-name": [("Robert", "2022-01-01", "2023-01-01"), ("Bob", "2020-01-01", "2021-01-01"),
                                ("Bobby", "2021-01-01", "2022-01-01")],
}


def before_merging(memory: Memory, merge: str, overlap: str) -> datetime:
    """Write one fact under several names, merge them into Robert; returns a time before the merges."""
    for name, since, until in OVERLAPS[overlap]:
        memory.upsert([Triple(subject=name, predicate="LIKES", object="Tea", valid_at=since, invalid_at=until),
                       Triple(subject="Carol", predicate="KNOWS", object=name, valid_at=since, invalid_at=until)])
    before = max(f.recorded_at for f in memory.facts(include_history=True))
    MERGES[merge](memory)
    if overlap == "bridged-by-a-third-name":
        memory.alias("Robert", "Bobby")
    return before


def check_once(reads: dict[str, list[Fact]], overlap: str) -> None:
    twice = {read: meeting_twice(found) for read, found in reads.items() if meeting_twice(found)}
    assert twice == {}
    for read, found in reads.items():  # each read still finds the fact, over the union of the intervals
        [tea] = [f for f in found if (f.subject, f.predicate, f.object) == ("Robert", "LIKES", "Tea")]
        if "as of" not in read:
            ends = [until for _, _, until in OVERLAPS[overlap]]
            assert (tea.valid_at, tea.invalid_at) == (
                utc("2020-01-01"), None if None in ends else max(utc(e) for e in ends if e)), read


@pytest.mark.parametrize("merge", MERGES)
@pytest.mark.parametrize("overlap", [
    *OVERLAPS,
])
def test_fact_reads_from_before_a_merge_never_return_a_fact_twice(memory: Memory, merge: str, overlap: str) -> None:
    before = before_merging(memory, merge, overlap)

    as_of = "2021-01-01"  # where the intervals meet
    check_once({
        "facts by subject and predicate": memory.facts("Robert", "LIKES", known_at=before, include_history=True),
        "facts by an alias": memory.facts("Bob", known_at=before, include_history=True),
        "facts in scope": memory.facts(known_at=before, include_history=True),
        "facts as of": memory.facts("Robert", as_of=as_of, known_at=before),
        "history": memory.history("Robert", known_at=before),
    }, overlap)
    carol = memory.facts(object="Robert", known_at=before, include_history=True)
    assert meeting_twice(carol) == [] and {f.subject for f in carol} == {"Carol"}


@pytest.mark.parametrize("merge", MERGES)
@pytest.mark.parametrize("overlap", ["same-interval", "overlapping"])
def test_neighbourhood_and_recall_from_before_a_merge_never_return_a_fact_twice(
        memory: Memory, merge: str, overlap: str) -> None:
    before = before_merging(memory, merge, overlap)

    as_of = "2021-03-01"  # both former entities' records hold
    check_once({
        "neighbourhood as of": memory.neighbourhood("Robert", hops=2, as_of=as_of, known_at=before),
        "subgraph as of": list(memory.subgraph(["Robert"], hops=2, as_of=as_of, known_at=before)),
        "recall as of": list(memory.recall("what does Robert like?", as_of=as_of, known_at=before).facts),
    }, overlap)


# -- erasure ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("merge", MERGES)
@pytest.mark.parametrize("purged_as", ["Robert", "Bob"])
def test_purging_a_merged_entity_erases_the_name_it_absorbed(memory: Memory, merge: str, purged_as: str) -> None:
    memory.upsert([Triple(subject="Bob", predicate="HAS_DIAGNOSIS", object="Diabetes", valid_at="2020-01-01"),
                   Triple(subject="Bob", predicate="LIVES_IN", object="Paris", valid_at="2020-01-01")],
                  source="clinic notes")
    memory.upsert(Triple(subject="Bob", predicate="LIVES_IN", object="Lyon", valid_at="2022-01-01"))
    rejected(memory, "Bob", "WORKS_AT", "Globex", "not true")
    memory.alias("Bob", "Bobby")
    memory.upsert([("Robert", "WORKS_AT", "Acme"), ("Carol", "KNOWS", "Robert"), ("Carol", "LIKES", "Tea")])
    MERGES[merge](memory)
    assert memory.facts("Robert", "HAS_DIAGNOSIS")  # the diagnosis moved onto Robert

    result = memory.purge(purged_as)

    assert result.entities == 1
    exported = list(memory.export())
    text = words("\n".join(exported))
    for word in ("bob", "robert", "has_diagnosis", "clinic notes", "not true"):
        assert word not in text, word
    lines = [json.loads(x) for x in exported]
    assert {(x["subject"], x["predicate"], x["object"]) for x in lines if x["kind"] == "fact"} == {
        ("carol", "LIKES", "tea")}
    audit = memory.audit(limit=1_000)
    assert not any(k in ("bob", "bobby", "robert") for entry in audit for k in entry.entities)
    assert "bob" not in words("\n".join(str(entry.model_dump()) for entry in audit))
    assert audit[0].action == "purge"
    for name in ("Bob", "Bobby", "Robert"):
        assert memory.entity(name) is None
        assert memory.facts(name, include_history=True, **EVERY_STATE) == []
    assert memory.audit("Bob") == []
    assert counters(memory) == measured(memory)

