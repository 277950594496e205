"""Graphiti (``graphiti-core``) on the same server, fully offline, against the same questions.

Graphiti writes each triple with ``Graphiti.add_triplet`` and answers point-in-time
questions with its hybrid ``search`` and date filters (``valid_at <= as_of`` and
``invalid_at > as_of OR invalid_at IS NULL``, the subject's node and the predicate as
filters too). Its LLM, embedder and cross-encoder are offline fakes (nothing leaves the
machine; telemetry is off):

- the LLM is an *oracle*: it answers edge de-duplication and contradiction prompts
  exactly (same fact = duplicate; same subject and single-valued predicate with another
  object = contradicted), node de-duplication by exact name, and leaves timestamps to the
  ones we set. This is Graphiti's best case: the write cost measured is its own machinery
  (searches, embeddings, round trips), with zero LLM latency;
- the embedder is a deterministic hashed bag of words (64 dimensions), so facts that
  share the subject and predicate are close;
- the cross-encoder ranks by word overlap.

Our side writes the same stream one fact per ``upsert`` call (like ``add_triplet``) and
in batches, into scopes of its own. Graphiti's answer is the set of objects of the edges
its date-filtered search returns; it is also scored after a client-side date filter, to
separate its search from the temporal model.
"""

from __future__ import annotations

import ast
import asyncio
import hashlib
import json
import math
import os
import re
import time
import uuid
from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Any

from benchmarks.generate import Dataset, Question, Write, generate
from benchmarks.measure import ratio, summary
from benchmarks.runner import RunConfig, console
from benchmarks.targets import Target, drop_scopes
from synapse_graph import Triple

os.environ.setdefault("GRAPHITI_TELEMETRY_ENABLED", "false")

DIMENSIONS = 64
_FACT = re.compile(r"^(.*?) ([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*) (.*)$")
_SECTION = re.compile(r"<{tag}>\s*(.*?)\s*</{tag}>", re.S)


def fact_text(subject: str, predicate: str, obj: str) -> str:
    return f"{subject} {predicate} {obj}"


def parse_fact(text: str) -> tuple[str, str, str] | None:
    found = _FACT.match(text.strip())
    return None if found is None else (found.group(1), found.group(2), found.group(3))


def _section(content: str, tag: str) -> str:
    found = re.search(_SECTION.pattern.format(tag=re.escape(tag)), content, re.S)
    return "" if found is None else found.group(1)


def _literal(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        try:
            return ast.literal_eval(text)
        except (ValueError, SyntaxError):
            return []


def oracle_edge_answer(content: str, single_valued: frozenset[str]) -> dict[str, list[int]]:
    """Exact answers to Graphiti's ``dedupe_edges.resolve_edge`` prompt."""
    new = parse_fact(_section(content, "NEW FACT"))
    existing = _literal(_section(content, "EXISTING FACTS")) or []
    candidates = _literal(_section(content, "FACT INVALIDATION CANDIDATES")) or []
    duplicates: list[int] = []
    contradicted: list[int] = []
    if new is None:
        return {"duplicate_facts": [], "contradicted_facts": []}
    for item in [*existing, *candidates]:
        old = parse_fact(str(item.get("fact", "")))
        if old is None:
            continue
        if old == new and item in existing:
            duplicates.append(int(item["idx"]))
        elif old[:2] == new[:2] and old[2] != new[2] and new[1] in single_valued:
            contradicted.append(int(item["idx"]))
    return {"duplicate_facts": duplicates, "contradicted_facts": contradicted}


def oracle_node_answer(content: str) -> dict[str, Any]:
    """Exact-name answers to Graphiti's ``dedupe_nodes.nodes`` prompt."""
    extracted = _literal(_section(content, "ENTITIES")) or []
    existing = _literal(_section(content, "EXISTING ENTITIES")) or []
    by_name = {str(c.get("name", "")).casefold(): int(c["candidate_id"]) for c in existing if "candidate_id" in c}
    return {
        "entity_resolutions": [
            {"id": int(e["id"]), "name": e.get("name", ""),
             "duplicate_candidate_id": by_name.get(str(e.get("name", "")).casefold(), -1)}
            for e in extracted if "id" in e
        ]
    }


def _default(annotation: Any) -> Any:
    text = str(annotation)
    if "list" in text:
        return []
    if "dict" in text:
        return {}
    if "None" in text:
        return None
    if "int" in text or "float" in text:
        return 0
    if "bool" in text:
        return False
    return ""


def hash_embedding(text: str) -> list[float]:
    """A deterministic bag-of-words vector: shared words make texts close."""
    vector = [0.0] * DIMENSIONS
    for token in re.findall(r"[a-z0-9_]+", text.lower()):
        digest = int.from_bytes(hashlib.blake2b(token.encode(), digest_size=8).digest(), "big")
        vector[digest % DIMENSIONS] += 1.0 if (digest >> 32) & 1 else -1.0
    norm = math.sqrt(sum(x * x for x in vector)) or 1.0
    return [x / norm for x in vector]


def offline_clients(single_valued: frozenset[str]) -> tuple[Any, Any, Any]:
    """Graphiti's LLM client, embedder and cross-encoder, offline: the exact oracle, hashed words, word overlap."""
    from graphiti_core.cross_encoder.client import CrossEncoderClient
    from graphiti_core.embedder.client import EmbedderClient
    from graphiti_core.llm_client import LLMClient, LLMConfig

    class OracleLLM(LLMClient):
        calls: dict[str, int]

        async def _generate_response(
            self, messages: Any, response_model: Any = None, max_tokens: int = 0, model_size: Any = None,
            **_: Any,
        ) -> dict[str, Any]:
            name = getattr(response_model, "__name__", "none")
            self.calls[name] = self.calls.get(name, 0) + 1
            content = messages[-1].content
            if name == "EdgeDuplicate":
                return oracle_edge_answer(content, single_valued)
            if name == "NodeResolutions":
                return oracle_node_answer(content)
            if response_model is None:
                return {}
            return {k: _default(f.annotation) for k, f in response_model.model_fields.items()}

    class HashEmbedder(EmbedderClient):
        async def create(self, input_data: Any) -> list[float]:
            text = input_data[0] if isinstance(input_data, list) and input_data else input_data
            return hash_embedding(str(text))

        async def create_batch(self, input_data_list: list[str]) -> list[list[float]]:
            return [hash_embedding(t) for t in input_data_list]

    class OverlapRanker(CrossEncoderClient):
        async def rank(self, query: str, passages: list[str]) -> list[tuple[str, float]]:
            words = set(query.lower().split())
            scored = [(p, len(words & set(p.lower().split())) / (1 + len(words))) for p in passages]
            return sorted(scored, key=lambda x: -x[1])

    llm = OracleLLM(LLMConfig(api_key="offline", model="offline", small_model="offline"))
    llm.calls = {}
    return llm, HashEmbedder(), OverlapRanker()


class _Graphiti:
    """Graphiti on the target's server, in a graph (FalkorDB) or group (Neo4j) of its own."""

    def __init__(self, target: Target, group: str, single_valued: frozenset[str]) -> None:
        self.target = target
        self.group = group
        self.llm, self.embedder, self.ranker = offline_clients(single_valued)
        self.uuids: dict[str, str] = {}
        self.names: dict[str, str] = {}
        self.graphiti: Any = None
        self.driver: Any = None

    async def open(self) -> None:
        from graphiti_core import Graphiti

        if self.target.name == "falkordb":
            from falkordb.asyncio import FalkorDB
            from graphiti_core.driver.falkordb_driver import FalkorDriver

            self.driver = FalkorDriver(falkor_db=FalkorDB(unix_socket_path=self.target.socket_path),
                                       database=self.group)
        else:
            from graphiti_core.driver.neo4j_driver import Neo4jDriver

            assert self.target.auth is not None
            self.driver = Neo4jDriver(self.target.location, self.target.auth[0], self.target.auth[1])
        self.graphiti = Graphiti(graph_driver=self.driver, llm_client=self.llm, embedder=self.embedder,
                                 cross_encoder=self.ranker)
        if getattr(self.driver, "_init_task", None) is not None:
            await self.driver._init_task
        await self.graphiti.build_indices_and_constraints()

    def node(self, name: str) -> Any:
        from graphiti_core.nodes import EntityNode

        node_id = self.uuids.get(name) or str(uuid.uuid5(uuid.NAMESPACE_URL, f"{self.group}/{name.casefold()}"))
        return EntityNode(uuid=node_id, name=name, group_id=self.group, labels=["Entity"])

    async def write(self, write: Write) -> None:
        from graphiti_core.edges import EntityEdge

        source, target = self.node(write.subject), self.node(write.object)
        edge = EntityEdge(
            group_id=self.group, source_node_uuid=source.uuid, target_node_uuid=target.uuid, name=write.predicate,
            fact=fact_text(write.subject, write.predicate, write.object), created_at=datetime.now(UTC),
            valid_at=write.valid_at, episodes=[],
        )
        result = await self.graphiti.add_triplet(source, edge, target)
        for asked, resolved in zip((write.subject, write.object), result.nodes, strict=False):
            self.uuids.setdefault(asked, resolved.uuid)
            self.names[resolved.uuid] = resolved.name

    async def ask(self, question: Question, limit: int = 50) -> tuple[list[Any], float]:
        from graphiti_core.search.search_filters import ComparisonOperator, DateFilter, SearchFilters

        at = question.as_of
        filters = SearchFilters(
            edge_types=[question.predicate],
            valid_at=[[DateFilter(date=at, comparison_operator=ComparisonOperator.less_than_equal)]],
            invalid_at=[[DateFilter(date=at, comparison_operator=ComparisonOperator.greater_than)],
                        [DateFilter(comparison_operator=ComparisonOperator.is_null)]],
            edge_source_node_uuids=[self.node(question.subject).uuid],
        )
        began = time.perf_counter()
        edges = await self.graphiti.search(f"{question.subject} {question.predicate}", group_ids=[self.group],
                                           num_results=limit, search_filter=filters)
        return list(edges), time.perf_counter() - began

    def objects(self, edges: Iterable[Any]) -> frozenset[str]:
        return frozenset(self.names.get(e.target_node_uuid, "?") for e in edges)

    async def close(self) -> None:
        """Delete Graphiti's data, and on Neo4j the indexes and constraints it added to the shared database."""
        try:
            if self.target.name == "falkordb":
                await self.driver.client.connection.execute_command("GRAPH.DELETE", self.group)
            else:
                drop_neo4j_group(self.target, self.group)
        finally:
            await self.graphiti.close()


def graphiti_index_names() -> list[str]:
    """The indexes graphiti-core creates on Neo4j (none of them is the library's)."""
    from graphiti_core.driver.driver import GraphProvider
    from graphiti_core.graph_queries import get_fulltext_indices, get_range_indices

    statements = get_range_indices(GraphProvider.NEO4J) + get_fulltext_indices(GraphProvider.NEO4J)
    return [m.group(1) for s in statements if (m := re.search(r"CREATE (?:FULLTEXT )?INDEX (\w+)", s))]


def drop_neo4j_group(target: Target, group: str | None) -> None:
    """Delete a Graphiti group and Graphiti's indexes from the shared Neo4j (they would slow the library's writes)."""
    import neo4j

    with neo4j.GraphDatabase.driver(target.location, auth=target.auth) as driver, driver.session() as session:
        session.run(
            "MATCH (n) WHERE n.group_id STARTS WITH $group CALL (n) { DETACH DELETE n } IN TRANSACTIONS OF 500 ROWS",
            group=group or "bench_graphiti_",
        ).consume()
        for name in graphiti_index_names():
            session.run(f"DROP INDEX `{name}` IF EXISTS").consume()


def _holds(edge: Any, question: Question, subject_uuid: str) -> bool:
    valid, invalid = edge.valid_at, edge.invalid_at
    return (edge.name == question.predicate and edge.source_node_uuid == subject_uuid
            and valid is not None and valid <= question.as_of and (invalid is None or invalid > question.as_of))


async def _graphiti_side(target: Target, dataset: Dataset, group: str) -> dict[str, Any]:
    peer = _Graphiti(target, group, dataset.single_valued)
    await peer.open()
    try:
        began = time.perf_counter()
        for write in dataset.writes:
            await peer.write(write)
        write_s = time.perf_counter() - began
        checkpoint = dataset.checkpoints[-1]
        took: list[float] = []
        raw_answers: list[frozenset[str]] = []
        filtered: list[frozenset[str]] = []
        for question in checkpoint.questions:
            edges, seconds = await peer.ask(question)
            took.append(seconds)
            raw_answers.append(peer.objects(edges))
            subject_uuid = peer.node(question.subject).uuid
            filtered.append(peer.objects(e for e in edges if _holds(e, question, subject_uuid)))
        return {"write_s": write_s, "read_s": took, "answers": raw_answers, "filtered": filtered,
                "llm_calls": dict(peer.llm.calls)}
    finally:
        await peer.close()


def _ours(target: Target, dataset: Dataset, scope: str, batch: int) -> tuple[float, list[float], list[frozenset[str]]]:
    memory = target.memory(scope, dataset)
    try:
        triples = [Triple(subject=w.subject, predicate=w.predicate, object=w.object, valid_at=w.valid_at)
                   for w in dataset.writes]
        began = time.perf_counter()
        for start in range(0, len(triples), batch):
            memory.upsert(triples[start : start + batch])
        write_s = time.perf_counter() - began
        took: list[float] = []
        found: list[frozenset[str]] = []
        for question in dataset.checkpoints[-1].questions:
            started = time.perf_counter()
            facts = memory.facts(question.subject, question.predicate, as_of=question.as_of)
            took.append(time.perf_counter() - started)
            found.append(frozenset(f.object for f in facts))
        return write_s, took, found
    finally:
        memory.close()
        drop_scopes(target, [scope])


def _exact(found: Iterable[frozenset[str]], questions: Iterable[Question]) -> int:
    return sum(a == q.expected for a, q in zip(found, questions, strict=True))


def run_peer(target: Target, config: RunConfig, run_id: str) -> dict[str, Any]:
    """Graphiti vs ours on a small stream of ``config.peer_size`` writes; an ``error`` if Graphiti cannot run."""
    dataset = generate(config.peer_size, seed=config.seed + 7, questions=min(config.questions, 150),
                       checkpoints=(config.peer_size,))
    questions = dataset.checkpoints[-1].questions
    try:
        single_s, single_read, single_answers = _ours(target, dataset, f"bench-peer1-{run_id}", 1)
        batched_s, _, _ = _ours(target, dataset, f"bench-peerb-{run_id}", config.batch_size)
    except Exception as exc:
        return {"error": f"our side failed: {type(exc).__name__}: {exc}"}
    try:
        graphiti = asyncio.run(_graphiti_side(target, dataset, f"bench_graphiti_{run_id}"))
    except Exception as exc:
        console.print_exception()
        return {"error": f"{type(exc).__name__}: {exc}"[:1000]}
    n = len(dataset.writes)
    graphiti_ms = 1e3 * graphiti["write_s"] / n
    single_ms, batched_ms = 1e3 * single_s / n, 1e3 * batched_s / n
    notes = [
        "Graphiti's LLM is an exact oracle with zero latency, so its write cost here is a lower bound.",
        f"LLM calls Graphiti made: {graphiti['llm_calls']}",
    ]
    if target.name == "falkordb":
        notes.append("graphiti-core stores times on FalkorDB as ISO strings; FalkorDB 4.22's range index scan "
                     "on a string property ignores <=/> bounds, so its date filters let other intervals through "
                     "(the 'client date filter' column re-applies them).")
    return {
        "writes": n,
        "questions": len(questions),
        "graphiti_ms_per_fact": round(graphiti_ms, 3),
        "ours_single_ms_per_fact": round(single_ms, 3),
        "ours_batched_ms_per_fact": round(batched_ms, 3),
        "per_fact_ratio_single": ratio(graphiti_ms, single_ms),
        "per_fact_ratio_batched": ratio(graphiti_ms, batched_ms),
        "graphiti_read": summary(graphiti["read_s"]),
        "ours_read": summary(single_read),
        "read_p95_ratio_graphiti_over_ours": ratio(summary(graphiti["read_s"])["p95_ms"],
                                                   summary(single_read)["p95_ms"]),
        "exact_graphiti": _exact(graphiti["answers"], questions),
        "exact_graphiti_postfiltered": _exact(graphiti["filtered"], questions),
        "exact_ours": _exact(single_answers, questions),
        "examples": [
            {"subject": q.subject, "predicate": q.predicate, "as_of": q.as_of.isoformat(),
             "expected": sorted(q.expected), "graphiti": sorted(a), "ours": sorted(o)}
            for q, a, o in zip(questions, graphiti["answers"], single_answers, strict=True) if a != q.expected
        ][:8],
        "notes": notes,
    }
