"""The scope's write lock: a writer that cannot have it in time is refused cleanly; on FalkorDB, the
lock is handed over first come, first served, and a writer killed while holding it (or paused past
its lease) holds up the others at most for its lease.

The lock is held from another connection through the backend seam every write goes through
(``backend.locked``): what a writer stuck inside a long write looks like to the others.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import signal
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
import redis

from synapse_graph import Memory, QuotaExceededError, ScopeBusyError, Triple
from synapse_graph.backends import falkordb_steps as steps
from synapse_graph.backends.base import StatementRunner
from synapse_graph.catalogue import Q
from synapse_graph.engine.scope import lock_init
from tests.integration.helpers import snapshot, utc

pytestmark = pytest.mark.integration

MakeMemory = Callable[..., Memory]
T0 = utc("2020-01-01")


def open_memory(settings: dict[str, Any], scope: str, **options: Any) -> Memory:
    given = {**settings, **options}
    return Memory(given.pop("location"), scope=scope, **given)


@contextlib.contextmanager
def lock_held(settings: dict[str, Any], scope: str) -> Iterator[None]:
    """The scope's lock held by another writer (its own connection) for as long as the block runs."""
    with open_memory(settings, scope) as holder, holder.backend.locked(scope, lock_init(), 120) as runner:
        runner.read(Q.SCOPE_STATE, {"scope": scope})  # a writer that has read the scope and is still planning
        yield


def version(memory: Memory) -> int:
    [row] = memory.backend.read(Q.SCOPE_STATE, {"scope": memory.scope})
    return int(row["state"]["version"])


# -- lock_timeout -------------------------------------------------------------------------------------


def test_a_writer_that_cannot_get_the_lock_in_time_gets_scope_busy_and_writes_nothing(
        make_memory: MakeMemory, backend_settings: dict[str, Any]) -> None:
    memory = make_memory(lock_timeout=1.5)
    memory.upsert([Triple(subject="Dana", predicate="LIVES_IN", object="Paris", valid_at=T0),
                   Triple(subject="Dana", predicate="KNOWS", object="Bob", valid_at=T0)])
    before, version_before = snapshot(memory), version(memory)

    with lock_held(backend_settings, memory.scope):
        with pytest.raises(ScopeBusyError) as upsert_refused:
            memory.upsert(Triple(subject="Dana", predicate="LIVES_IN", object="London", valid_at="2021-01-01"))
        with pytest.raises(ScopeBusyError):
            memory.alias("Dana", "Dee")
        with pytest.raises(ScopeBusyError):
            memory.purge("Bob")
        assert snapshot(memory) == before  # reads do not wait for the lock, and see nothing new

    error = upsert_refused.value
    assert error.is_retryable()
    assert "1.5 s" in str(error) and "lock_timeout" in str(error), str(error)
    assert snapshot(memory) == before and version(memory) == version_before

    # The refused writer left no trace in the queue: with the holder gone, the next write passes at once.
    memory.upsert(Triple(subject="Dana", predicate="LIVES_IN", object="London", valid_at="2021-01-01"))
    assert [f.object for f in memory.facts("Dana", "LIVES_IN")] == ["London"]
    assert version(memory) == version_before + 1


def test_a_writer_waits_for_the_lock_within_its_timeout(make_memory: MakeMemory,
                                                        backend_settings: dict[str, Any]) -> None:
    """The lock makes writers queue, not fail: one that arrives while another writes gets through after it."""
    memory = make_memory(lock_timeout=30)
    memory.upsert(Triple(subject="Dana", predicate="LIVES_IN", object="Paris", valid_at=T0))
    context = multiprocessing.get_context("forkserver")
    held, release = context.Event(), context.Event()
    holder = context.Process(target=hold_until, args=(backend_settings, memory.scope, held, release))
    holder.start()
    try:
        assert held.wait(60), "the holder never got the lock"
        timer = _set_later(release, 2.0)
        memory.upsert(Triple(subject="Dana", predicate="LIVES_IN", object="London", valid_at="2021-01-01"))
        assert release.is_set(), "the write went through while another writer held the lock"
        timer.join()
    finally:
        release.set()
        holder.join(timeout=30)
    assert holder.exitcode == 0
    assert [f.object for f in memory.facts("Dana", "LIVES_IN")] == ["London"]


def hold_until(settings: dict[str, Any], scope: str, held: Any, release: Any) -> None:
    """A writer process stuck inside its write until told to finish."""
    with lock_held(settings, scope):
        held.set()
        release.wait(120)


def _set_later(event: Any, seconds: float) -> Any:
    import threading

    timer = threading.Timer(seconds, event.set)
    timer.start()
    return timer


# -- FalkorDB: the lock held on the server -------------------------------------------------------------
# Neo4j's lock is the scope node's write lock inside the writer's transaction: first come, first
# served by the database, and released by the server when the client dies. FalkorDB's is the
# library's own queue on the server (backends/falkordb_steps.py); these tests are about it.


def redis_client(memory: Memory) -> redis.Redis:
    """A plain client on the memory's FalkorDB server, to look at the scope's queue."""
    from synapse_graph.backends.falkordb import redis_url

    server = getattr(memory.backend, "server", None)
    if server is not None:
        return redis.Redis(unix_socket_path=server.connect_path, decode_responses=True)
    return redis.Redis.from_url(redis_url(os.environ["SYNAPSE_FALKORDB_URL"]), decode_responses=True)


def queued(memory: Memory, client: redis.Redis) -> int:
    """Writers in the scope's queue (the holder first)."""
    key = steps.lock_keys(memory.backend.graph, memory.scope)[0]
    return int(client.llen(key))


def wait_for_queue(memory: Memory, client: redis.Redis, length: int, processes: list[Any]) -> None:
    deadline = time.monotonic() + 120
    while queued(memory, client) < length:
        assert all(p.exitcode in (None, 0) for p in processes), "a writer died while queueing"
        assert time.monotonic() < deadline, f"{queued(memory, client)} writers queued, expected {length}"
        time.sleep(0.02)


def queued_writer(settings: dict[str, Any], scope: str, writer: int, writes: int, results: Any) -> None:
    """A writer process: ``writes`` upserts, each acknowledged time and any error reported back."""
    acked: list[float] = []
    errors: list[str] = []
    try:
        with open_memory(settings, scope, lock_timeout=120) as memory:
            for i in range(writes):
                memory.upsert(Triple(subject="Queue", predicate="HAS", object=f"w{writer}-{i}", valid_at=T0),
                              source=f"writer {writer}")
                acked.append(time.monotonic())
    except BaseException as exc:
        errors.append(f"{type(exc).__name__}: {exc}")
    results.put((writer, acked, errors))


@pytest.fixture
def falkordb_settings(falkordb_location: str) -> dict[str, Any]:
    return {"location": falkordb_location}


@pytest.fixture
def falkordb_memory(falkordb_settings: dict[str, Any]) -> Iterator[Memory]:
    with open_memory(falkordb_settings, f"lock-{os.urandom(6).hex()}") as memory:
        memory.upsert(Triple(subject="Queue", predicate="HAS", object="seed", valid_at=T0))
        yield memory


def test_falkordb_hands_the_lock_over_first_come_first_served(falkordb_memory: Memory,
                                                              falkordb_settings: dict[str, Any]) -> None:
    memory, settings = falkordb_memory, falkordb_settings
    client = redis_client(memory)
    context = multiprocessing.get_context("forkserver")
    results = context.Queue()
    writers: list[Any] = []
    with lock_held(settings, memory.scope):
        for writer in range(5):  # each one joins the queue before the next one starts
            writers.append(context.Process(target=queued_writer, args=(settings, memory.scope, writer, 1, results)))
            writers[-1].start()
            wait_for_queue(memory, client, writer + 2, writers)
    collected = {w: (acked, errors) for w, acked, errors in (results.get(timeout=120) for _ in writers)}
    for process in writers:
        process.join(timeout=30)
    assert [e for _, errors in collected.values() for e in errors] == []
    served = [entry.source for entry in reversed(memory.audit()) if entry.source and entry.source.startswith("writer")]
    assert served == [f"writer {w}" for w in range(5)], "the lock was not handed over in arrival order"
    assert sorted(collected, key=lambda w: collected[w][0][0]) == list(range(5))


def test_falkordb_every_write_leaves_the_lock_free(tmp_path: Any) -> None:
    """The lock rides with a write's first read and its last statement (one round trip each): whatever
    way a write ends (applied, nothing to apply, refused, followed by embeddings), nobody holds or waits
    for the lock afterwards, and a writer with a short timeout gets it at once."""
    db_file = str(tmp_path / "free.db")
    with Memory(db_file, scope="free", max_facts=3) as memory, \
            Memory(db_file, scope="free", embedder=TinyEmbedder()) as embedding, \
            Memory(db_file, scope="free", lock_timeout=0.5) as hasty:
        client = redis_client(memory)
        writes: list[Callable[[], Any]] = [
            lambda: memory.upsert(Triple(subject="Ann", predicate="LIKES", object="jazz", valid_at=T0)),
            lambda: memory.upsert(Triple(subject="Ann", predicate="LIKES", object="jazz", valid_at=T0)),
            lambda: memory.retract("Nobody", "LIKES"),
            lambda: memory.upsert([("Bob", "LIKES", f"tune {i}") for i in range(5)]),
            lambda: embedding.upsert(("Cy", "KNOWS", "Dee")),
            lambda: memory.upsert([]),
        ]
        for write in writes:
            with contextlib.suppress(QuotaExceededError):
                write()
            assert queued(memory, client) == 0, "a writer still holds or waits for the lock"
            assert client.keys(steps.lock_keys(memory.backend.graph, "free")[1] + "*") == []
            hasty.upsert(("Probe", "SEES", "lock"))
        facts = {(f.subject, f.object) for f in memory.facts()}
        assert {("Ann", "jazz"), ("Cy", "Dee"), ("Probe", "lock")} <= facts and ("Bob", "tune 0") not in facts


def test_falkordb_a_writer_killed_while_holding_the_lock_holds_up_the_others_at_most_its_lease(
        falkordb_memory: Memory, falkordb_settings: dict[str, Any]) -> None:
    memory, settings = falkordb_memory, falkordb_settings
    client = redis_client(memory)
    context = multiprocessing.get_context("forkserver")
    held, release, results = context.Event(), context.Event(), context.Queue()
    holder = context.Process(target=hold_until, args=(settings, memory.scope, held, release))
    holder.start()
    assert held.wait(60), "the holder never got the lock"
    locked_at = time.monotonic()  # its lease runs from here at the latest (it never renews it again)
    writers = [context.Process(target=queued_writer, args=(settings, memory.scope, w, 5, results)) for w in range(4)]
    for process in writers:
        process.start()
    wait_for_queue(memory, client, 1 + len(writers), writers)
    os.kill(holder.pid, signal.SIGKILL)  # type: ignore[arg-type]
    killed_at = time.monotonic()
    collected = [results.get(timeout=120) for _ in writers]
    for process in writers:
        process.join(timeout=30)
    holder.join(timeout=30)

    assert [e for _, _, errors in collected for e in errors] == []
    assert sorted(len(acked) for _, acked, _ in collected) == [5] * len(writers), "every writer completes"
    first = min(acked[0] for _, acked, _ in collected)
    assert first > killed_at, "a writer got through while the lock was held"
    # Nobody waits for a dead writer longer than its lease (plus scheduling slack on a busy machine).
    assert first - locked_at <= steps.LEASE_S + 1.5, f"the first writer got the lock {first - locked_at:.1f} s " \
        f"after the dead holder last renewed its {steps.LEASE_S:g} s lease"
    assert len(memory.facts("Queue", "HAS")) == 1 + 5 * len(writers)
    print(f"\n[scope lock] holder killed {killed_at - locked_at:.1f} s into its lease; the next writer got the lock "
          f"{first - locked_at:.1f} s after the holder's last renewal (lease {steps.LEASE_S:g} s); all "
          f"{5 * len(writers)} writes of {len(writers)} queued writers acknowledged and found")



def test_falkordb_a_writer_paused_past_its_lease_plans_again_instead_of_failing(
        falkordb_memory: Memory, falkordb_settings: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> None:
    """A writer that stalls mid-write longer than its lease loses the lock to the next writer; when it
    resumes it must notice, and plan again on what that writer left, not fail on what it no longer finds."""
    memory = falkordb_memory
    memory.upsert([Triple(subject="Ann", predicate="LIVES_IN", object="Paris", valid_at=T0),
                   Triple(subject="Bob", predicate="LIKES", object="jazz", valid_at=T0)])
    other = open_memory(falkordb_settings, memory.scope, lock_timeout=60)
    backend, locked, stalled = memory.backend, memory.backend.locked, []

    @contextlib.contextmanager
    def stalling(scope: str, init: Any, timeout: float) -> Iterator[Any]:
        with locked(scope, init, timeout) as runner:
            yield Stalling(runner, stalled, lambda: other.purge("Bob"))

    monkeypatch.setattr(backend, "locked", stalling)
    try:
        # Ann's alias Bob names an entity: merging it reads Bob's entity and records. The merge stalls
        # right before those reads, and meanwhile another writer (after waiting out the lease) purges Bob.
        merged = memory.alias("Ann", "Bob")
    finally:
        other.close()
    assert stalled == [Q.ENTITY], "the write did not stall where intended"
    # Planned again after the purge: Bob is a plain alias of Ann now.
    assert (merged.changed, merged.merged) == (True, False)
    entity = memory.entity("Bob")
    assert entity is not None and entity.name == "Ann" and entity.aliases == ["Bob"]
    assert [(f.subject, f.predicate, f.object) for f in memory.facts("Ann")] == [("Ann", "LIVES_IN", "Paris")]
    stored = snapshot(memory)
    [row] = memory.backend.read(Q.SCOPE_STATE, {"scope": memory.scope})
    assert (row["state"]["facts"], row["state"]["entities"]) == (
        sum(1 for x in stored if x["kind"] == "fact" and x["expired_at"] is None),
        sum(1 for x in stored if x["kind"] == "entity"))
    assert [e.action for e in memory.audit()][:2] == ["alias", "purge"]  # the purge went first


class Stalling(StatementRunner):
    """A locked statement runner whose first statement ``at`` waits for something else to happen first (the
    protocol's defaults run its read_many and write_last through these read and write)."""

    def __init__(self, inner: Any, stalled: list[str], meanwhile: Callable[[], Any], at: str = Q.ENTITY) -> None:
        self._inner, self._stalled, self._meanwhile, self._at = inner, stalled, meanwhile, at

    def _stall(self, name: str) -> None:
        if name == self._at and not self._stalled:
            self._stalled.append(name)
            self._meanwhile()

    def read(self, name: str, params: Any) -> Any:
        self._stall(name)
        return self._inner.read(name, params)

    def write(self, name: str, params: Any) -> Any:
        self._stall(name)
        return self._inner.write(name, params)


class TinyEmbedder:
    """A deterministic stand-in for a local model (recall's vector leg is not under test here)."""

    name, dimensions = "tiny-test-embedder", 4

    def embed(self, texts: Any) -> list[list[float]]:
        return [[0.5, 0.5, 0.5, 0.5] for _ in texts]


def test_falkordb_a_writer_whose_lease_runs_out_after_it_applied_its_write_does_not_write_twice(
        tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """After the apply, a write only stores the new entities' vectors: losing the lock then must not make
    it plan and apply the whole batch again (its own store, for the small vector index)."""
    db_file = str(tmp_path / "lease.db")
    with Memory(db_file, scope="lease", embedder=TinyEmbedder()) as memory, \
            Memory(db_file, scope="lease", lock_timeout=60) as other:
        backend, locked, stalled = memory.backend, memory.backend.locked, []

        @contextlib.contextmanager
        def stalling(scope: str, init: Any, timeout: float) -> Iterator[Any]:
            with locked(scope, init, timeout) as runner:
                yield Stalling(runner, stalled, lambda: other.upsert(("Eve", "KNOWS", "Zed")),
                               at=Q.SET_EMBEDDINGS)

        monkeypatch.setattr(backend, "locked", stalling)
        result = memory.upsert(Triple(subject="Ann", predicate="LIKES", object="jazz", valid_at=T0))
        assert stalled == [Q.SET_EMBEDDINGS]
        assert (result.created, result.confirmed) == (1, 0)
        [fact] = memory.facts("Ann")
        assert fact.confirmations == 1
        assert sorted(e.action for e in memory.audit()) == ["upsert", "upsert"]  # Ann's once, Eve's once
        # Eve, Zed and their fact (written without a model); Ann, jazz and their fact have theirs
        assert memory.reindex_embeddings() == 3
