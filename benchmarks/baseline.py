"""The raw-driver baseline: the same writes and reads on the same server, without the library.

It is "the database's own limit for this work": one parameterised statement per batch
(``UNWIND $creates AS row MERGE (a) MERGE (b) CREATE (a)-[:FACT]->(b)``, then the
confirmations and closings of records from earlier batches by id), with all the
temporal bookkeeping done beforehand by the generator's oracle (no reads, no planning,
no guard, no quotas). Reads are the raw point-in-time query of ``facts_by_subject``
for one (subject, predicate) without alias resolution or bitemporal filters.

FalkorDB: the ``falkordb`` client's ``graph.query`` on the same server, in a graph of
its own (``bench_raw``) with the indexes MERGE needs. Neo4j: the ``neo4j`` driver's
``execute_query`` in the same database, in a scope of its own (the library's indexes
and constraints on ``Entity``/``FACT`` apply to both).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Protocol

from benchmarks.generate import Write, entity_key

RAW_GRAPH = "bench_raw"
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)

WRITE = """
UNWIND $creates AS row
MERGE (a:Entity {scope: $scope, key: row.s}) ON CREATE SET a.name = row.sn
MERGE (b:Entity {scope: $scope, key: row.o}) ON CREATE SET b.name = row.on
CREATE (a)-[r:FACT]->(b)
SET r = row.props
WITH count(r) AS created
CALL {
  WITH created
  UNWIND $closes AS c
  MATCH ()-[r:FACT {id: c.id}]->()
  WHERE r.scope = $scope
  SET r.invalid_at = c.at
}
CALL {
  WITH created
  UNWIND $confirms AS c
  MATCH ()-[r:FACT {id: c.id}]->()
  WHERE r.scope = $scope
  SET r.confirmations = r.confirmations + c.n
}
RETURN created
"""

# Neo4j 5.23+ wants the variable scope clause (the form above is deprecated there). Instants travel
# as ISO-8601 text turned into DATETIME by the server, as the library sends bulk rows: the Python
# driver packs datetime objects far more slowly, and the baseline should be the fast way.
WRITE_NEO4J = (
    WRITE.replace("CALL {\n  WITH created\n", "CALL (created) {\n")
    .replace("SET r = row.props", "SET r = row.props, r.valid_at = datetime(row.props.valid_at), "
             "r.invalid_at = datetime(row.props.invalid_at), r.recorded_at = datetime(row.props.recorded_at)")
    .replace("SET r.invalid_at = c.at", "SET r.invalid_at = datetime(c.at)")
)

READ = """
MATCH (a:Entity {scope: $scope, key: $subject})-[r:FACT]->(b:Entity)
WHERE r.predicate = $predicate AND r.valid_at <= $as_of AND (r.invalid_at IS NULL OR r.invalid_at > $as_of)
RETURN r.id AS id, a.name AS subject, r.predicate AS predicate, b.name AS object,
       r.valid_at AS valid_at, r.invalid_at AS invalid_at, r.recorded_at AS recorded_at,
       r.confidence AS confidence, r.confirmations AS confirmations
ORDER BY valid_at, object
"""

COUNT = "MATCH (:Entity {scope: $scope})-[r:FACT]->() RETURN count(r) AS facts"
ENTITIES = "MATCH (e:Entity {scope: $scope}) RETURN count(e) AS entities"
DELETE_ENTITIES = "UNWIND $keys AS key MATCH (e:Entity {scope: $scope, key: key}) DETACH DELETE e"


def micros(when: datetime) -> int:
    delta = when - _EPOCH
    return (delta.days * 86_400 + delta.seconds) * 1_000_000 + delta.microseconds


@dataclass
class Batch:
    """One batch of raw writes: records to create with their final state, and changes to older ones."""

    creates: list[dict[str, Any]] = field(default_factory=list)
    closes: list[dict[str, Any]] = field(default_factory=list)
    confirms: list[dict[str, Any]] = field(default_factory=list)


def plan_batches(writes: Sequence[Write], batch_size: int, *, native_times: bool) -> list[Batch]:
    """Turn the oracle's effects into raw batches: within a batch, records are created in their final state."""
    convert = (lambda t: t.isoformat()) if native_times else micros
    batches: list[Batch] = []
    for start in range(0, len(writes), batch_size):
        batch = Batch()
        fresh: dict[str, dict[str, Any]] = {}
        confirms: dict[str, int] = {}
        for write in writes[start : start + batch_size]:
            if write.closes is not None:
                if write.closes in fresh:
                    fresh[write.closes]["invalid_at"] = convert(write.valid_at)
                else:
                    batch.closes.append({"id": write.closes, "at": convert(write.valid_at)})
            if write.kind == "repeat":
                if write.record in fresh:
                    fresh[write.record]["confirmations"] += 1
                else:
                    confirms[write.record] = confirms.get(write.record, 0) + 1
                continue
            props = {
                "id": write.record,
                "predicate": write.predicate,
                "valid_at": convert(write.valid_at),
                "confidence": 1.0,
                "confirmations": 1,
            }
            fresh[write.record] = props
            batch.creates.append(
                {"s": entity_key(write.subject), "sn": write.subject, "o": entity_key(write.object),
                 "on": write.object, "props": props}
            )
        batch.confirms = [{"id": k, "n": n} for k, n in confirms.items()]
        batches.append(batch)
    return batches


class RawStore(Protocol):
    """The raw baseline on one backend."""

    scope: str

    def write(self, batch: Batch, recorded_at: datetime) -> int: ...

    def read(self, subject: str, predicate: str, as_of: datetime) -> list[dict[str, Any]]: ...

    def count(self) -> tuple[int, int]: ...

    def delete_entities(self, keys: list[str]) -> None: ...

    def drop(self) -> None: ...

    def close(self) -> None: ...


def _params(batch: Batch, scope: str, recorded_at: Any) -> dict[str, Any]:
    creates = [{**row, "props": {**row["props"], "scope": scope, "recorded_at": recorded_at}} for row in batch.creates]
    return {"scope": scope, "creates": creates, "closes": batch.closes, "confirms": batch.confirms}


class FalkorRaw:
    """Raw FalkorDB: the ``falkordb`` client on the server's socket, graph ``bench_raw``."""

    def __init__(self, socket_path: str, scope: str, graph: str = RAW_GRAPH) -> None:
        from falkordb import FalkorDB

        self.scope = scope
        self.server_s = 0.0
        """FalkorDB's own execution time of the writes (``run_time_ms``), for the split of a round trip."""
        self._client = FalkorDB(unix_socket_path=socket_path)
        self._graph = self._client.select_graph(graph)
        indexes = ("CREATE INDEX FOR (e:Entity) ON (e.scope, e.key)", "CREATE INDEX FOR ()-[r:FACT]-() ON (r.id)")
        for statement in indexes:
            try:
                self._graph.query(statement)
            except Exception as exc:  # an index that already exists is fine
                if "already indexed" not in str(exc):
                    raise

    def write(self, batch: Batch, recorded_at: datetime) -> int:
        result = self._graph.query(WRITE, _params(batch, self.scope, micros(recorded_at)))
        self.server_s += float(result.run_time_ms) / 1e3
        return int(result.result_set[0][0])

    def read(self, subject: str, predicate: str, as_of: datetime) -> list[dict[str, Any]]:
        params = {"scope": self.scope, "subject": entity_key(subject), "predicate": predicate, "as_of": micros(as_of)}
        result = self._graph.ro_query(READ, params)
        header = [h[1] for h in result.header]
        return [dict(zip(header, row, strict=True)) for row in result.result_set]

    def count(self) -> tuple[int, int]:
        facts = self._graph.ro_query(COUNT, {"scope": self.scope}).result_set[0][0]
        entities = self._graph.ro_query(ENTITIES, {"scope": self.scope}).result_set[0][0]
        return int(facts), int(entities)

    def delete_entities(self, keys: list[str]) -> None:
        self._graph.query(DELETE_ENTITIES, {"scope": self.scope, "keys": keys})

    def memory_mb(self) -> float | None:
        return graph_memory_mb(self._client, self._graph.name)

    def drop(self) -> None:
        try:
            self._graph.delete()
        except Exception as exc:  # a graph never written to does not exist
            if "empty key" not in str(exc).lower() and "invalid graph" not in str(exc).lower():
                raise

    def close(self) -> None:
        self._client.connection.close()


def graph_parts(connection: Any, graph: str) -> dict[str, Any]:
    """``GRAPH.MEMORY USAGE`` of ``graph`` (10,000 samples) as a plain dict of its parts, in MB."""
    reply = connection.execute_command("GRAPH.MEMORY", "USAGE", graph, "SAMPLES", 10_000)
    items = reply.items() if isinstance(reply, dict) else zip(reply[::2], reply[1::2], strict=False)

    def plain(value: Any) -> Any:
        if isinstance(value, dict):
            return {k.decode() if isinstance(k, bytes) else k: v for k, v in value.items()}
        return value

    return {(k.decode() if isinstance(k, bytes) else k): plain(v) for k, v in items}


def graph_memory_mb(client: Any, graph: str) -> float | None:
    """``GRAPH.MEMORY USAGE``: the graph's in-memory size in MB (None if the server lacks the command).

    Attribute sizes are estimated from sampled nodes and edges: 10,000 samples, the most the command
    takes (with its default of 100, a 1M-write graph read 772 MB where 10,000 samples read 765 MB)."""
    try:
        total = graph_parts(client.connection, graph).get("total_graph_sz_mb")
    except Exception:
        return None
    return None if total is None else float(total)


class Neo4jRaw:
    """Raw Neo4j: the ``neo4j`` driver's ``execute_query``, native DATETIME values like the library."""

    def __init__(self, url: str, auth: tuple[str, str] | None, scope: str, database: str | None = None) -> None:
        import neo4j

        self.scope = scope
        self._driver = neo4j.GraphDatabase.driver(url, auth=auth, notifications_min_severity="OFF")
        self._database = database
        self._routing = neo4j.RoutingControl

    def write(self, batch: Batch, recorded_at: datetime) -> int:
        records, _, _ = self._driver.execute_query(
            WRITE_NEO4J, parameters_=_params(batch, self.scope, recorded_at.isoformat()), database_=self._database
        )
        return int(records[0]["created"])

    def read(self, subject: str, predicate: str, as_of: datetime) -> list[dict[str, Any]]:
        records, _, _ = self._driver.execute_query(
            READ,
            parameters_={"scope": self.scope, "subject": entity_key(subject), "predicate": predicate, "as_of": as_of},
            routing_=self._routing.READ,
            database_=self._database,
        )
        return [record.data() for record in records]

    def count(self) -> tuple[int, int]:
        facts, _, _ = self._driver.execute_query(COUNT, parameters_={"scope": self.scope}, database_=self._database)
        entities, _, _ = self._driver.execute_query(
            ENTITIES, parameters_={"scope": self.scope}, database_=self._database
        )
        return int(facts[0]["facts"]), int(entities[0]["entities"])

    def delete_entities(self, keys: list[str]) -> None:
        self._driver.execute_query(DELETE_ENTITIES, parameters_={"scope": self.scope, "keys": keys},
                                   database_=self._database)

    def drop(self) -> None:
        drop_neo4j_scope(self._driver, self.scope, self._database)

    def close(self) -> None:
        self._driver.close()


def drop_neo4j_scope(driver: Any, scope: str, database: str | None = None) -> None:
    """Delete a scope's nodes in small transactions (a 1M-fact scope does not fit one transaction's heap)."""
    with driver.session(database=database) as session:
        for label in ("Entity", "Alias", "Scope"):
            session.run(
                f"MATCH (n:{label} {{scope: $scope}}) CALL (n) {{ DETACH DELETE n }} IN TRANSACTIONS OF 500 ROWS",
                scope=scope,
            ).consume()
        # Whatever else the library keeps per scope (audit log, tombstones, ...).
        session.run(
            "MATCH (n) WHERE n.scope = $scope CALL (n) { DETACH DELETE n } IN TRANSACTIONS OF 500 ROWS", scope=scope
        ).consume()


def answers(rows: Iterable[dict[str, Any]]) -> frozenset[str]:
    return frozenset(str(row["object"]) for row in rows)
