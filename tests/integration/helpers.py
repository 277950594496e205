"""Small helpers shared by the integration tests (not a test module)."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable, Iterable, Sequence
from datetime import UTC, datetime
from typing import Any

from synapse_graph import Fact, Memory, Triple


def utc(text: str) -> datetime:
    """An aware UTC datetime from an ISO string; a date or naive time is taken as UTC."""
    value = datetime.fromisoformat(text)
    return value if value.tzinfo is not None else value.replace(tzinfo=UTC)


RECORD_ID = re.compile(r"(?<![0-9a-z])[0-9a-z]{25}(?![0-9a-z])")


def words(text: str) -> str:
    """Text casefolded with its record ids (25 random base-36 digits) blanked out, so that asking whether a
    name such as "bob" is in it never finds one by chance inside an id."""
    return RECORD_ID.sub("<id>", text.casefold())


def snapshot(memory: Memory) -> list[dict[str, Any]]:
    """Everything the scope holds, as its export parsed and put in a canonical order.

    Two snapshots are equal exactly when the scope's entities, aliases and fact
    records (history and belief times included) are the same.
    """
    lines = [json.loads(line) for line in memory.export()]
    return sorted(lines, key=lambda line: json.dumps(line, sort_keys=True))


def objects(facts: Iterable[Fact]) -> list[str]:
    return [fact.object for fact in facts]


def spans(facts: Iterable[Fact]) -> list[tuple[str, datetime, datetime | None]]:
    """(object, valid_at, invalid_at) of each fact, in the order given."""
    return [(fact.object, fact.valid_at, fact.invalid_at) for fact in facts]


def triples(facts: Iterable[Fact]) -> set[tuple[str, str, str]]:
    return {(fact.subject, fact.predicate, fact.object) for fact in facts}


def populate(memory: Memory) -> None:
    """A small but varied scope: history, a late correction, an alias merge, a plain alias, a retraction."""
    memory.upsert(
        [
            Triple(subject="Dana", predicate="LIVES_IN", object="Paris", valid_at="2019-01-01"),
            Triple(subject="Dana", predicate="WORKS_AT", object="Acme", valid_at="2020-01-01", confidence=0.8),
            Triple(subject="Dana", predicate="KNOWS", object="Bob", valid_at="2021-06-01"),
            Triple(subject="Bob", predicate="LIKES", object="Jazz", valid_at="2021-01-01", object_type="genre"),
        ],
        source="chat 1",
        model="model-x",
        session="session-1",
    )
    memory.upsert(Triple(subject="Dana", predicate="LIVES_IN", object="Berlin", valid_at="2024-01-01"))
    memory.upsert(Triple(subject="Dana", predicate="LIVES_IN", object="London", valid_at="2022-01-01"))  # late
    memory.upsert(Triple(subject="Robert", predicate="LIKES", object="Tea", subject_type="person"))
    memory.upsert(Triple(subject="Robert", predicate="LIKES", object="Tea", confidence=0.5))  # confirmed
    memory.alias("Robert", "Bob")  # Bob was an entity: merged into Robert
    memory.alias("Dana", "Dee")  # a plain alias name
    memory.retract("Dana", "WORKS_AT", at="2023-01-01")


_POPULATED: dict[str, str] = {}


def populated_scope(make_memory: Callable[..., Memory], backend: str, **options: Any) -> Memory:
    """A Memory on a scope holding :func:`populate`'s data, written once per backend and reused.

    Only for tests that never change that scope: they either just read it, or check
    that an operation left it exactly as it was (which is what keeps sharing it safe).
    """
    scope = _POPULATED.get(backend)
    memory = make_memory(scope=scope, **options)
    if scope is None:
        populate(memory)
        _POPULATED[backend] = memory.scope
    return memory


def run_processes(processes: Sequence[Any], results: Any, *, barrier: Any = None,
                  timeout: float = 600) -> tuple[list[Any], float]:
    """Start ``processes``, release them together through ``barrier`` (if the caller is a party to it),
    and return one item of ``results`` per process with the seconds that took; stragglers are killed."""
    for process in processes:
        process.start()
    try:
        if barrier is not None:
            barrier.wait(timeout=timeout)
        started = time.monotonic()
        collected = [results.get(timeout=timeout) for _ in processes]
        return collected, time.monotonic() - started
    finally:
        for process in processes:
            process.join(timeout=30)
            if process.is_alive():
                process.kill()


def raw_cypher(memory: Memory, text: str, **params: Any) -> list[dict[str, Any]]:
    """Run a statement that is not in the catalogue on the memory's own backend (to shape a store as an
    older version wrote it, or to look at what it stores); rows as dicts."""
    backend: Any = memory.backend
    if backend.dialect == "neo4j":
        records = backend._driver.execute_query(text, params, database_=backend._database).records
        return [dict(r) for r in records]
    from synapse_graph.backends.falkordb_wire import command, rows

    return rows(backend._client.execute_command(*command(backend.graph, text, params, read_only=False)))


def wrong_record_keys(memory: Memory) -> list[dict[str, Any]]:
    """The fact records of the memory's scope (expired ones too) whose end keys (store format 13: ``starts``,
    ``ends``, which fragments/links seeks) are not what their slot and times say: the slot and the instant's epoch
    microseconds as text, ``ends`` absent while the record is open."""
    micros = "{0}.epochSeconds * 1000000 + {0}.microsecond" if memory.backend.dialect == "neo4j" else "{0}"
    stored = raw_cypher(memory, "MATCH (:Entity {scope: $scope})-[r:FACT]->() RETURN r.slot AS slot, "
                        f"{micros.format('r.valid_at')} AS valid_at, {micros.format('r.invalid_at')} AS invalid_at, "
                        "r.starts AS starts, r.ends AS ends", scope=memory.scope)

    def key(row: dict[str, Any], instant: str) -> str | None:
        return None if row[instant] is None else f"{row['slot']}@{row[instant]}"

    return [row for row in stored if (row["starts"], row["ends"]) != (key(row, "valid_at"), key(row, "invalid_at"))]
