"""Concurrent writers on one scope: threads, processes, and two processes starting one embedded file.

Every writer upserts overlapping facts into the same scope at once (same subjects and
predicates; single-valued ``LIVES_IN``, ``USES_EDITOR`` written with ``replace=True``,
multi-valued ``LIKES``), always with explicit instants, so the end state follows from
the multiset of acknowledged writes alone, whatever order they were applied in:

* each (subject, object) of a single-valued predicate has one fixed ``valid_at``, so a
  subject's values form a chain ``[t_i, t_{i+1})`` with the last one open;
* each (subject, ``LIKES``, object) has one fixed interval;
* a fact written k times in total (over all writers) has ``confirmations == k``.

Writers of one scope queue on the scope's write lock (held by the server), so every call
succeeds: a worker never retries, and any error fails the test. The end state is checked
against what each writer was told (its acknowledged calls and the ``WriteResult`` of each:
records created, confirmed and closed, entities created), and the scope's counters against
the records. 8 and 32 writer processes run on each backend, with the synchronous ``Memory``
or ``AsyncMemory`` in every process.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import multiprocessing
import os
import random
import signal
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from synapse_graph import Memory, SynapseError, Triple, WriteResult
from synapse_graph.aio import AsyncMemory
from synapse_graph.backends.embedded import EmbeddedServer
from synapse_graph.catalogue import Q
from tests.integration.helpers import run_processes

pytestmark = pytest.mark.integration

WORKERS = 8
CALLS_PER_WORKER = 8
SUBJECTS = ("Ann", "Bob", "Cat")
CITIES = ("Paris", "London", "Berlin", "Rome", "Oslo")  # LIVES_IN: single-valued by default
EDITORS = ("vim", "emacs", "nano", "helix")  # USES_EDITOR: always written with replace=True
HOBBIES = ("chess", "jazz", "tennis", "go", "baking", "running")  # LIKES: multi-valued
SINGLE = ("LIVES_IN", "USES_EDITOR")
T0 = datetime(2020, 1, 1, tzinfo=UTC)
US = timedelta(microseconds=1)

Fact = tuple[str, str, str]
Spec = tuple[str, str, str, datetime, datetime | None]  # subject, predicate, object, valid_at, invalid_at
Call = tuple[list[Spec], bool]  # the triples of one upsert, and its replace flag


def instant(predicate: str, subject: str, obj: str) -> tuple[datetime, datetime | None]:
    """The one interval every writer uses for a fact (distinct instants per subject and predicate)."""
    s = SUBJECTS.index(subject)
    if predicate == "LIVES_IN":
        return T0 + timedelta(days=100 * CITIES.index(obj) + s, hours=7), None
    if predicate == "USES_EDITOR":
        return T0 + timedelta(days=90 * EDITORS.index(obj) + s, microseconds=123), None
    h = HOBBIES.index(obj)
    start = T0 + timedelta(days=30 * h + s)
    return start, (start + timedelta(days=400) if h % 2 else None)


def spec(predicate: str, subject: str, obj: str) -> Spec:
    return (subject, predicate, obj, *instant(predicate, subject, obj))


def calls_for(worker: int, count: int, seed: int) -> list[Call]:
    """A worker's upserts: batches of 1-3 triples mixing the three kinds of predicate."""
    rng = random.Random(seed * 1_000 + worker)
    calls: list[Call] = []
    for _ in range(count):
        kind = rng.choice(("single", "replace", "multi"))
        size = rng.randint(1, 3)
        triples: list[Spec] = []
        for _ in range(size):
            subject = rng.choice(SUBJECTS)
            if kind == "replace":  # replace=True makes any predicate single-valued: no LIKES in these
                if rng.random() < 0.7:
                    triples.append(spec("USES_EDITOR", subject, rng.choice(EDITORS)))
                else:
                    triples.append(spec("LIVES_IN", subject, rng.choice(CITIES)))
            elif kind == "single" or rng.random() < 0.3:
                triples.append(spec("LIVES_IN", subject, rng.choice(CITIES)))
            else:
                triples.append(spec("LIKES", subject, rng.choice(HOBBIES)))
        calls.append((triples, kind == "replace"))
    return calls


def as_triples(specs: list[Spec]) -> list[Triple]:
    return [Triple(subject=s, predicate=p, object=o, valid_at=v, invalid_at=i) for s, p, o, v, i in specs]


# -- a worker: the same code for a thread and a process ----------------------------------------------


@dataclass
class Outcome:
    acked: list[int] = field(default_factory=list)  # indexes of the calls that returned
    errors: list[str] = field(default_factory=list)
    told: Counter[str] = field(default_factory=Counter)  # the sums of what the acknowledged calls returned
    seconds: float = 0.0  # from the start signal to the writer's last call


def acknowledge(outcome: Outcome, index: int, result: WriteResult) -> None:
    outcome.acked.append(index)
    outcome.told.update(created=result.created, confirmed=result.confirmed, closed=result.closed,
                        entities_created=result.entities_created)


def run_calls(memory: Memory, calls: list[Call], outcome: Outcome) -> None:
    """Each call once: a writer is never refused, so nothing is retried here."""
    for index, (specs, replace) in enumerate(calls):
        try:
            result = memory.upsert(as_triples(specs), replace=replace, source=f"call {index}")
        except SynapseError as exc:
            outcome.errors.append(f"call {index}: {type(exc).__name__}: {exc}")
            continue
        acknowledge(outcome, index, result)


async def run_calls_async(memory: AsyncMemory, calls: list[Call], outcome: Outcome) -> None:
    for index, (specs, replace) in enumerate(calls):
        try:
            result = await memory.upsert(as_triples(specs), replace=replace, source=f"call {index}")
        except SynapseError as exc:
            outcome.errors.append(f"call {index}: {type(exc).__name__}: {exc}")
            continue
        acknowledge(outcome, index, result)


def process_worker(settings: dict[str, Any], api: str, scope: str, worker: int, count: int, seed: int,
                   barrier: Any, results: Any) -> None:
    """One writer process: its own Memory (or AsyncMemory) on the shared location and scope."""
    outcome = Outcome()
    options = dict(settings)
    location = options.pop("location")
    calls = calls_for(worker, count, seed)
    try:
        if api == "async":
            asyncio.run(_async_worker(location, options, scope, calls, barrier, outcome))
        else:
            with Memory(location, scope=scope, **options) as memory:
                barrier.wait(timeout=300)
                started = time.monotonic()
                run_calls(memory, calls, outcome)
                outcome.seconds = time.monotonic() - started
    except BaseException as exc:  # reported to the parent, which fails the test
        outcome.errors.append(f"worker {worker} crashed: {type(exc).__name__}: {exc}")
    results.put((worker, outcome.__dict__))


async def _async_worker(location: str, options: dict[str, Any], scope: str, calls: list[Call], barrier: Any,
                        outcome: Outcome) -> None:
    async with AsyncMemory(location, scope=scope, **options) as memory:
        await asyncio.to_thread(barrier.wait, 300)
        started = time.monotonic()
        await run_calls_async(memory, calls, outcome)
        outcome.seconds = time.monotonic() - started


# -- checking the end state ----------------------------------------------------------------------------


def expected_records(written: Counter[Spec]) -> dict[tuple[str, str, str, datetime, datetime | None], int]:
    """(subject, predicate, object, valid_at, invalid_at) -> confirmations, from the acknowledged writes."""
    expected: dict[tuple[str, str, str, datetime, datetime | None], int] = {}
    chains: dict[tuple[str, str], list[tuple[datetime, str, int]]] = {}
    for (subject, predicate, obj, valid_at, invalid_at), k in written.items():
        if predicate in SINGLE:
            chains.setdefault((subject, predicate), []).append((valid_at, obj, k))
        else:
            expected[(subject, predicate, obj, valid_at, invalid_at)] = k
    for (subject, predicate), chain in chains.items():
        chain.sort()
        for i, (valid_at, obj, k) in enumerate(chain):
            end = chain[i + 1][0] if i + 1 < len(chain) else None
            expected[(subject, predicate, obj, valid_at, end)] = k
    return expected


def parse(text: str | None) -> datetime | None:
    return None if text is None else datetime.fromisoformat(text)


def check_end_state(memory: Memory, calls: list[list[Call]], outcomes: list[Outcome]) -> dict[str, int]:
    written: Counter[Spec] = Counter()
    for worker_calls, outcome in zip(calls, outcomes, strict=True):
        for index in outcome.acked:
            written.update(worker_calls[index][0])
    # The export names entities by key (case-folded names).
    expected = {(s.casefold(), p, o.casefold(), v, i): k for (s, p, o, v, i), k in expected_records(written).items()}

    lines = [json.loads(line) for line in memory.export()]
    records = [x for x in lines if x["kind"] == "fact"]
    current = [r for r in records if r["expired_at"] is None]
    keys = Counter(
        (r["subject"], r["predicate"], r["object"], parse(r["valid_at"]), parse(r["invalid_at"])) for r in current
    )
    duplicates = {k: n for k, n in keys.items() if n > 1}
    assert not duplicates, f"more than one current record for: {duplicates}"
    assert {r["status"] for r in current} <= {"believed"}
    found = {
        (r["subject"], r["predicate"], r["object"], parse(r["valid_at"]), parse(r["invalid_at"])): r["confirmations"]
        for r in current
    }
    assert set(found) == set(expected), (
        f"missing: {sorted(set(expected) - set(found))}\nunexpected: {sorted(set(found) - set(expected))}"
    )
    wrong = {k: (found[k], n) for k, n in expected.items() if found[k] != n}
    assert not wrong, f"confirmations (found, expected) differ: {wrong}"

    # Single-valued: at most one value at any instant, checked at every boundary and just before it.
    for subject in SUBJECTS:
        for predicate in SINGLE:
            chain = sorted((v, o) for (s, p, o, v, _) in expected if (s, p) == (subject.casefold(), predicate))
            for i, (start, obj) in enumerate(chain):
                for when, holder in ((start - US, chain[i - 1][1] if i else None), (start, obj)):
                    held = [f.object.casefold() for f in memory.facts(subject, predicate, as_of=when)]
                    assert held == ([holder] if holder else []), (subject, predicate, when, held)

    # What the writers were told adds up to the records: each fact was created once (by whoever wrote it
    # first), each later write of it confirmed it, and each record a later value reshaped was closed.
    told: Counter[str] = sum((Counter(o.told) for o in outcomes), Counter())
    expired = [r for r in records if r["expired_at"] is not None]
    entities = [x for x in lines if x["kind"] == "entity"]
    assert (told["created"], told["confirmed"], told["closed"], told["entities_created"]) == (
        len(current), sum(r["confirmations"] - 1 for r in current), len(expired), len(entities))
    assert told["created"] + told["confirmed"] == sum(written.values())

    acked = sum(len(o.acked) for o in outcomes)
    audit = [x for x in lines if x["kind"] == "audit"]
    assert Counter(x["action"] for x in audit) == Counter({"upsert": acked}), "one audit entry per acknowledged call"
    # The counters the quotas rely on moved exactly as the records did.
    [row] = memory.backend.read(Q.SCOPE_STATE, {"scope": memory.scope})
    state, stats = row["state"], memory.stats()
    assert (state["facts"], state["entities"]) == (len(current), stats.entities) == (stats.facts, stats.entities)
    return {"calls": acked, "triples": sum(written.values()), "records": len(records), "current": len(current)}


def report(kind: str, backend: str, outcomes: list[Outcome], figures: dict[str, int], seconds: float) -> None:
    slowest = max(o.seconds for o in outcomes)
    print(
        f"\n[concurrency] {backend} {kind}: {len(outcomes)} writers, {figures['calls']} acknowledged upserts "
        f"({figures['triples']} triples) -> {figures['current']} current records of {figures['records']}; "
        f"errors {sum(len(o.errors) for o in outcomes)}, {seconds:.1f} s ({figures['calls'] / seconds:.1f} "
        f"upserts/s; slowest writer {slowest:.1f} s, fastest {min(o.seconds for o in outcomes):.1f} s)"
    )


# -- the tests ---------------------------------------------------------------------------------------------


def test_threads_sharing_one_memory(memory: Memory, backend_name: str) -> None:
    seed = random.randrange(10**6)
    calls = [calls_for(worker, CALLS_PER_WORKER, seed) for worker in range(WORKERS)]
    outcomes = [Outcome() for _ in range(WORKERS)]
    barrier = threading.Barrier(WORKERS)

    def work(worker: int) -> None:
        try:
            barrier.wait(timeout=60)
            started = time.monotonic()
            run_calls(memory, calls[worker], outcomes[worker])
            outcomes[worker].seconds = time.monotonic() - started
        except BaseException as exc:
            outcomes[worker].errors.append(f"thread {worker} crashed: {type(exc).__name__}: {exc}")

    started = time.monotonic()
    threads = [threading.Thread(target=work, args=(w,)) for w in range(WORKERS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=300)
    seconds = time.monotonic() - started
    assert not any(t.is_alive() for t in threads), "a writer thread hung"
    assert [e for o in outcomes for e in o.errors] == [], f"seed {seed}"
    figures = check_end_state(memory, calls, outcomes)
    report("threads (one shared Memory)", backend_name, outcomes, figures, seconds)


PROCESS_CASES = [
    pytest.param(8, 40, id="8-writers-x40"),
    # 32 processes x 40 batches would be 1,280 serialised writes per variant (four variants): minutes of
    # a 2-core CI machine. 10 batches each still keeps 31 writers queued behind the lock for most of
    # the run, which is what this case is about; benchmarks/concurrency.py runs 32 x 40.
    pytest.param(32, 40, id="32-writers-x40"),
]


@pytest.mark.parametrize(("writers", "batches"), PROCESS_CASES)
def test_processes_each_with_its_own_memory(make_memory: Callable[..., Memory], backend_settings: dict[str, Any],
                                            backend_name: str, api: str, writers: int, batches: int) -> None:
    """Writer processes on one scope all succeed, and the end state is what they were told."""
    memory = make_memory()
    seed = random.randrange(10**6)
    # Each writer forks from a server process that imported this module once: 32 interpreters importing
    # the library each would cost more CPU than the writes on a 2-core machine.
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload([__name__])
    barrier = context.Barrier(writers + 1)
    results = context.Queue()
    processes = [
        context.Process(target=process_worker,
                        args=(backend_settings, api, memory.scope, w, batches, seed, barrier, results))
        for w in range(writers)
    ]
    returned, seconds = run_processes(processes, results, barrier=barrier)  # go once every memory is open
    collected = dict(returned)
    outcomes = [Outcome(**collected[w]) for w in range(writers)]
    assert [e for o in outcomes for e in o.errors] == [], f"seed {seed}"
    assert [p.exitcode for p in processes] == [0] * writers
    assert [len(o.acked) for o in outcomes] == [batches] * writers
    calls = [calls_for(w, batches, seed) for w in range(writers)]
    figures = check_end_state(memory, calls, outcomes)
    report(f"processes ({api}, one memory each)", backend_name, outcomes, figures, seconds)


# -- two processes starting the same embedded database file at once ----------------------------------------


def file_worker(db_file: str, worker: int, rounds: int, barrier: Any, results: Any) -> None:
    """Opens the file at the same moment as its twin, writes, reads back, closes at the same moment too."""
    done: list[dict[str, Any]] = []
    for round_ in range(rounds):
        entry: dict[str, Any] = {"round": round_, "acked": [], "error": None}
        try:
            barrier.wait(timeout=120)
            with Memory(db_file, scope="shared") as memory, Memory(db_file, scope=f"own-{worker}") as own:
                for i in range(5):
                    triple = (f"w{worker}", "WROTE", f"r{round_}-{i}")
                    memory.upsert(triple, valid_at=T0)
                    own.upsert(triple, valid_at=T0)
                    entry["acked"].append(triple)
                assert {f.object for f in memory.facts(f"w{worker}")} >= {t[2] for t in entry["acked"]}
                barrier.wait(timeout=120)  # close together
        except SynapseError as exc:  # acceptable only as a clear library error
            entry["error"] = f"{type(exc).__name__}: {exc}"
        except BaseException as exc:
            entry["error"] = f"UNEXPECTED {type(exc).__name__}: {exc}"
            with_barrier_broken(barrier)
        done.append(entry)
    results.put((worker, done))


def with_barrier_broken(barrier: Any) -> None:
    with contextlib.suppress(Exception):  # best effort, so that the twin does not wait forever
        barrier.abort()


@pytest.fixture
def db_file(tmp_path: Path) -> Iterator[Path]:
    path = tmp_path / "twins.db"
    yield path
    server = EmbeddedServer(path)
    pid = server.pid()
    if _alive(pid) and str(server.socket_path) in _cmdline(pid):  # never leave our server behind
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)


def test_two_processes_start_the_same_embedded_file_at_once(db_file: Path) -> None:
    rounds = 3
    context = multiprocessing.get_context("spawn")
    barrier = context.Barrier(2)
    results = context.Queue()
    processes = [context.Process(target=file_worker, args=(str(db_file), w, rounds, barrier, results))
                 for w in range(2)]
    for process in processes:
        process.start()
    collected = dict(results.get(timeout=300) for _ in processes)
    for process in processes:
        process.join(timeout=60)
    assert [p.exitcode for p in processes] == [0, 0]
    errors = [e["error"] for w in collected.values() for e in w if e["error"]]
    assert not [e for e in errors if not e.startswith("Backend")], errors  # only clear BackendErrors are allowed
    acked = {tuple(t) for w in collected.values() for e in w for t in e["acked"]}
    assert len(acked) >= rounds * 5, f"both failed too often: {errors}"

    server = EmbeddedServer(db_file)
    deadline = time.monotonic() + 15
    while server.pid() is not None and _alive(server.pid()) and time.monotonic() < deadline:
        time.sleep(0.05)  # the last process to close stops the server
    assert not _alive(server.pid()), "the server outlived its last user"

    with Memory(db_file, scope="shared") as memory:  # a fresh server, loading what was written
        exported = list(memory.export())
        stored = {(f.subject, f.predicate, f.object) for f in memory.facts()}
        assert stored == acked
        for worker in range(2):
            with Memory(db_file, scope=f"own-{worker}") as own:
                assert {(f.subject, f.predicate, f.object) for f in own.facts()} == {
                    t for t in acked if t[0] == f"w{worker}"}
    assert len(exported) > len(acked)
    print(f"\n[concurrency] two processes x {rounds} simultaneous opens of one file: {len(acked)} facts "
          f"acknowledged and found after a restart; clear errors: {len(errors)}")


def _cmdline(pid: int | None) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def _alive(pid: int | None) -> bool:
    if pid is None:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True
