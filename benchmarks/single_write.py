"""The single-fact upsert row: what an agent does all day through MCP, one fact per call.

At each checkpoint, ``Memory.upsert(one triple)`` against the raw single-triple write (one
parameterised ``MERGE`` of the two entities + ``CREATE`` of the edge with the baseline's
properties, :data:`benchmarks.baseline.WRITE` with one row), on the same server, interleaved
and alternating which goes first. Each probe writes a new fact about an entity already in
the store (its subject) to an object of its own, with a multi-valued predicate: the library
reads the subject's slot, plans and applies as for any write. Afterwards the probe objects
are purged from both systems (``Memory.purge``; a ``DETACH DELETE`` in the raw store), so the
later checkpoints' counts and answers are those of the stream alone, and the result says
whether every probe was written, read back and removed as expected.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

from benchmarks.baseline import Batch, RawStore, micros
from benchmarks.generate import Dataset, entity_key
from benchmarks.measure import ratio, summary
from synapse_graph import Memory, Triple

PREDICATE = "NOTED_BY_PROBE"
"""Not among the generator's predicates; multi-valued (never closes anything)."""
WARM_UP = 5


def _raw_row(subject: str, obj: str, record: str, valid_at: datetime, native: bool) -> dict[str, Any]:
    when: Any = valid_at.isoformat() if native else micros(valid_at)
    props = {"id": record, "predicate": PREDICATE, "valid_at": when, "confidence": 1.0, "confirmations": 1}
    return {"s": entity_key(subject), "sn": subject, "o": entity_key(obj), "on": obj, "props": props}


def single_writes(memory: Memory, raw: RawStore, dataset: Dataset, upto: int, count: int,
                  breakdown: Callable[[], dict[str, Any]] = dict) -> dict[str, Any]:
    """``count`` single-fact writes to both systems (after ``WARM_UP`` each), interleaved; then cleaned up.

    The probes' objects are written first, in one batch to each system (as subjects of a fact to
    one hub), so that each timed write finds both its entities stored and reads their timeline, as
    a write about known things does. ``breakdown`` (the probe's reset) is called before and after
    the timed writes: the second call's figures are theirs alone.
    """
    native = raw.__class__.__name__ == "Neo4jRaw"
    before = memory.stats()
    raw_before = raw.count()
    tag = uuid.uuid4().hex[:6]
    subjects = [w.subject for w in dataset.writes[: max(upto, 1)]]
    step = max(1, len(subjects) // (count + WARM_UP))
    base = datetime(2024, 6, 1, tzinfo=UTC)
    hub = f"probe {tag} hub"
    objects = [f"probe {tag} {index}" for index in range(count + WARM_UP)]
    memory.upsert([Triple(subject=obj, predicate=PREDICATE, object=hub, valid_at=base) for obj in objects])
    raw.write(Batch(creates=[_raw_row(obj, hub, f"probe-{tag}-setup-{i}", base, native)
                             for i, obj in enumerate(objects)]), datetime.now(UTC))
    breakdown()
    ours_t: list[float] = []
    raw_t: list[float] = []
    created = raw_created = 0
    probes: list[tuple[str, str]] = []
    for index in range(count + WARM_UP):
        subject = subjects[(index * step) % len(subjects)]
        obj = objects[index]
        valid_at = base + timedelta(minutes=index)
        probes.append((subject, obj))
        triple = Triple(subject=subject, predicate=PREDICATE, object=obj, valid_at=valid_at)
        row = _raw_row(subject, obj, f"probe-{tag}-{index}", valid_at, native)

        def mine(triple: Triple = triple, timed: bool = index >= WARM_UP) -> int:
            began = time.perf_counter()
            result = memory.upsert(triple)
            if timed:
                ours_t.append(time.perf_counter() - began)
            return result.created

        def base_write(row: dict[str, Any] = row, timed: bool = index >= WARM_UP) -> int:
            began = time.perf_counter()
            done = raw.write(Batch(creates=[row]), datetime.now(UTC))
            if timed:
                raw_t.append(time.perf_counter() - began)
            return done

        if index % 2 == 0:
            created += mine()
            raw_created += base_write()
        else:
            raw_created += base_write()
            created += mine()
    statements = breakdown()
    sample = probes[:: max(1, count // 20)]
    read_back = sum(any(f.object == obj for f in memory.facts(subject, PREDICATE)) for subject, obj in sample)
    checked = len(sample)
    for obj in [*objects, hub]:
        memory.purge(obj)
    raw.delete_entities([entity_key(obj) for obj in [*objects, hub]])
    after = memory.stats()
    ours_s, raw_s = summary(ours_t), summary(raw_t)
    return {
        "writes": count,
        "ours": ours_s,
        "raw": raw_s,
        "median_ratio": ratio(ours_s["median_ms"], raw_s["median_ms"]),
        "p95_ratio": ratio(ours_s["p95_ms"], raw_s["p95_ms"]),
        "created_ours": created,
        "created_raw": raw_created,
        "read_back": f"{read_back}/{checked}",
        "ours_db_seconds_by_statement": statements,
        "correct": created == raw_created == len(probes) and read_back == checked
        and (after.facts, after.entities) == (before.facts, before.entities) and raw.count() == raw_before,
    }
