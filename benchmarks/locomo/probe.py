"""The chosen ranking run through the databases' own indexes, for recall and latency (issue 28's design).

Not the library: a scratch label in a scratch store, so nothing of the library's stored shapes changes. Each
conversation's sentences become ``(:LocomoProbe {scope, id, text, entity, episode, valid_at, embedding})``
with an English full-text index (FalkorDB: RediSearch, language English and its default stop words; Neo4j:
Lucene's ``english`` analyzer, the scope's token required with boost 0) and their MiniLM vectors. A question
is then answered as recall would:

1. round trip 1: which entities the question's words name (here the two speakers; recall reads it today
   together with the scope's state);
2. the question less those words is embedded;
3. round trip 2, one request: the full-text leg (best ``DEPTH``, with each hit's cosine), the vector leg (an
   exact scan of the scope's vectors, best ``DEPTH``; the library's vector read does the same) and, when the
   question names a window, the window's best ``DEPTH`` by cosine (or by full-text score without an embedder);
4. :func:`synapse_graph.rules.fusion.fuse`, then the best 20.

The dense baseline (embed the whole question, numpy cosine over every sentence) is timed in the same loop.
Run: ``python -m benchmarks.locomo.probe [--backend falkordb|neo4j|all] [--small] [--out FILE]``.
"""

from __future__ import annotations

import argparse
import json
import math
import tempfile
import time
import uuid
from collections.abc import Sequence
from datetime import UTC, timedelta
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks.locomo.data import SMALL, Conversation, data_dir, load
from benchmarks.locomo.metrics import Answer, report
from benchmarks.locomo.research import CHOSEN, without_names
from benchmarks.measure import machine_tag, ratio, summary
from synapse_graph import Memory
from synapse_graph.rules.asked_time import asked_time
from synapse_graph.rules.fusion import Candidate, Weights, fuse
from synapse_graph.rules.recall import STOPWORDS, content_terms, scope_token, words
from synapse_graph.rules.timeparse import to_micros

DEPTH = 50
POOL = 200
"""FalkorDB's full-text score is not BM25 (RediSearch's default scorer): its best ``POOL`` matches are scored
again in Python (BM25 over Snowball stems), as recall already does for entity names, and the best ``DEPTH`` kept."""
LABEL = "LocomoProbe"
WEIGHTS = Weights(lexical=CHOSEN.lexical, vector=CHOSEN.vector, entity=CHOSEN.speaker, time=CHOSEN.time,
                  dated=0.0, episode=CHOSEN.session)
NEO4J_TEXT, NEO4J_ENTITY, NEO4J_VECTORS = "locomo_probe_text", "locomo_probe_entity", "locomo_probe_vectors"
NEO4J_VECTOR_INDEX_USED = False

_FIELDS = "n.id AS id, n.entity AS entity, n.episode AS episode, n.valid_at AS valid_at"
FALKOR_LEXICAL = (f"CALL db.idx.fulltext.queryNodes('{LABEL}', $q) YIELD node AS n, score WHERE n.scope = $scope "
                  f"WITH n, score ORDER BY score DESC LIMIT $pool RETURN 'lexical' AS leg, {_FIELDS}, score, "
                  "CASE WHEN $v IS NULL THEN null ELSE 1 - vec.cosineDistance(n.embedding, vecf32($v)) END AS cosine, "
                  "n.text AS text")
FALKOR_VECTOR = (f"MATCH (n:{LABEL} {{scope: $scope}}) WHERE $start <= n.valid_at < $end "
                 "WITH n, 1 - vec.cosineDistance(n.embedding, vecf32($v)) AS cosine ORDER BY cosine DESC LIMIT $k "
                 f"RETURN $leg AS leg, {_FIELDS}, null AS score, cosine, null AS text")
FALKOR_WINDOW_LEXICAL = (f"CALL db.idx.fulltext.queryNodes('{LABEL}', $q) YIELD node AS n, score "
                         "WHERE n.scope = $scope AND $start <= n.valid_at < $end "
                         f"WITH n, score ORDER BY score DESC LIMIT $pool RETURN 'window' AS leg, {_FIELDS}, score, "
                         "null AS cosine, n.text AS text")
NEO4J_LEXICAL = (f"CALL db.index.fulltext.queryNodes('{NEO4J_TEXT}', $q) YIELD node AS n, score "
                 "WITH n, score ORDER BY score DESC LIMIT $pool RETURN 'lexical' AS leg, " + _FIELDS + ", score, "
                 "CASE WHEN $v IS NULL THEN null ELSE 2 * vector.similarity.cosine(n.embedding, $v) - 1 END AS cosine, "
                 "n.text AS text")
NEO4J_VECTOR = (f"MATCH (n:{LABEL} {{scope: $scope}}) WHERE $start <= n.valid_at < $end "
                "WITH n, 2 * vector.similarity.cosine(n.embedding, $v) - 1 AS cosine ORDER BY cosine DESC LIMIT $k "
                f"RETURN $leg AS leg, {_FIELDS}, null AS score, cosine, null AS text")
NEO4J_VECTOR_INDEX = (f"CALL db.index.vector.queryNodes('{NEO4J_VECTORS}', $over, $v) YIELD node AS n, score "
                      "WHERE n.scope = $scope WITH n, 2 * score - 1 AS cosine ORDER BY cosine DESC LIMIT $k "
                      f"RETURN 'vector' AS leg, {_FIELDS}, null AS score, cosine, null AS text")
"""``--neo4j-vector-index``: the vector leg through Neo4j's vector index, over-fetching ``$over`` (the index spans
every scope; here only this scope has the label, so the over-fetch always suffices: a library must check it)."""
NEO4J_WINDOW_LEXICAL = (f"CALL db.index.fulltext.queryNodes('{NEO4J_TEXT}', $q) YIELD node AS n, score "
                        "WHERE $start <= n.valid_at < $end WITH n, score ORDER BY score DESC LIMIT $pool "
                        f"RETURN 'window' AS leg, {_FIELDS}, score, null AS cosine, n.text AS text")
FALKOR_COSINES = (f"MATCH (n:{LABEL} {{scope: $scope}}) WHERE n.id IN $ids RETURN 'cosine' AS leg, {_FIELDS}, "
                  "null AS score, 1 - vec.cosineDistance(n.embedding, vecf32($v)) AS cosine, null AS text")
NEO4J_COSINES = (f"MATCH (n:{LABEL} {{scope: $scope}}) WHERE n.id IN $ids RETURN 'cosine' AS leg, {_FIELDS}, "
                 "null AS score, 2 * vector.similarity.cosine(n.embedding, $v) - 1 AS cosine, null AS text")
NAMES = (f"UNWIND $terms AS t MATCH (e:{LABEL}Entity {{scope: $scope}}) WHERE e.key STARTS WITH t "
         "RETURN DISTINCT e.key AS key")
_ALL = (-(2**62), 2**62)


class Store:
    """One backend's scratch store: load a conversation, ask one question in two round trips."""

    def __init__(self, backend: str) -> None:
        self.backend = backend
        self.scope = f"bench.locomo-probe/{uuid.uuid4().hex[:12]}"
        self._folder: tempfile.TemporaryDirectory[str] | None = None
        if backend == "falkordb":
            from falkordb import FalkorDB

            self._folder = tempfile.TemporaryDirectory(prefix="synapse-locomo-probe-")
            self._keeper = Memory(str(Path(self._folder.name) / "probe.db"), scope="probe-keeper")
            client = FalkorDB(unix_socket_path=self._keeper.backend.server.connect_path)  # type: ignore[attr-defined]
            self._redis = client.connection
            self._graph = client.select_graph("locomo_probe")
            self._graph.query(f"CALL db.idx.fulltext.createNodeIndex({{label: '{LABEL}', language: 'English'}}, "
                              "'text')")
            self._graph.query(f"CREATE INDEX FOR (n:{LABEL}) ON (n.scope, n.valid_at)")
            self._graph.query(f"CREATE INDEX FOR (n:{LABEL}Entity) ON (n.scope, n.key)")
        else:
            from neo4j import GraphDatabase

            from benchmarks.targets import neo4j_settings

            url, auth = neo4j_settings()
            self._driver = GraphDatabase.driver(url, auth=auth)
            self._token = scope_token(self.scope)
            for statement in (
                f"CREATE FULLTEXT INDEX {NEO4J_TEXT} IF NOT EXISTS FOR (n:{LABEL}) ON EACH [n.text, n.scope_token] "
                "OPTIONS {indexConfig: {`fulltext.analyzer`: 'english'}}",
                f"CREATE INDEX {NEO4J_ENTITY} IF NOT EXISTS FOR (n:{LABEL}Entity) ON (n.scope, n.key)",
                f"CREATE INDEX locomo_probe_time IF NOT EXISTS FOR (n:{LABEL}) ON (n.scope, n.valid_at)",
                f"CREATE VECTOR INDEX {NEO4J_VECTORS} IF NOT EXISTS FOR (n:{LABEL}) ON n.embedding "
                "OPTIONS {indexConfig: {`vector.dimensions`: 384, `vector.similarity_function`: 'cosine'}}",
            ):
                self._driver.execute_query(statement)

    def load(self, conv: Conversation, vectors: np.ndarray) -> None:
        self.size = len(conv.sentences)
        rows = [{"scope": self.scope, "id": s.index, "text": s.text, "entity": s.speaker.casefold(),
                 "episode": str(s.session), "valid_at": to_micros(s.date), "embedding": vectors[i].tolist()}
                for i, s in enumerate(conv.sentences)]
        entities = [{"scope": self.scope, "key": s.casefold()} for s in conv.speakers]
        if self.backend == "falkordb":
            self._graph.query(f"UNWIND $rows AS r CREATE (n:{LABEL}) SET n = r, n.embedding = vecf32(r.embedding)",
                              {"rows": rows})
            self._graph.query(f"UNWIND $rows AS r CREATE (n:{LABEL}Entity) SET n = r", {"rows": entities})
        else:
            for row in rows:
                row["scope_token"] = self._token
            # float[] vectors (db.create.setNodeVectorProperty): the cosine of a LIST<FLOAT> property reads slower
            self._driver.execute_query(f"UNWIND $rows AS r CREATE (n:{LABEL}) SET n = r {{.*, embedding: null}} "
                                       "WITH n, r CALL db.create.setNodeVectorProperty(n, 'embedding', r.embedding)",
                                       rows=rows)
            self._driver.execute_query(f"UNWIND $rows AS r CREATE (n:{LABEL}Entity) SET n = r", rows=entities)
            self._driver.execute_query("CALL db.awaitIndexes(300)")

    def names(self, terms: Sequence[str]) -> list[str]:
        """Round trip 1: the entities the question's words name (prefixes of 3 letters or more)."""
        params = {"scope": self.scope, "terms": [t for t in terms if len(t) >= 3]}
        if self.backend == "falkordb":
            return [row[0] for row in self._graph.ro_query(NAMES, params).result_set]
        return [r["key"] for r in self._driver.execute_query(NAMES, params).records]

    def legs(self, terms: Sequence[str], vector: list[float] | None, window: tuple[int, int] | None
             ) -> list[dict[str, Any]]:
        """Round trip 2: the full-text leg, the vector leg and the window's leg, in one request."""
        base = {"scope": self.scope, "k": DEPTH, "v": vector, "pool": POOL}
        if self.backend == "falkordb":
            requests = [(FALKOR_LEXICAL, {**base, "q": "|".join(terms)})]
            if vector is not None:
                requests.append((FALKOR_VECTOR, {**base, "leg": "vector", "start": _ALL[0], "end": _ALL[1]}))
            if window is not None:
                requests.append((FALKOR_VECTOR, {**base, "leg": "window", "start": window[0], "end": window[1]})
                                if vector is not None else
                                (FALKOR_WINDOW_LEXICAL, {**base, "q": "|".join(terms), "start": window[0],
                                                         "end": window[1]}))
            return rescored(self._falkordb_pipeline(requests), self.size, _stems(" ".join(terms)))
        lucene = f"+scope_token:{self._token}^0 +(" + " ".join(f"text:{t}" for t in terms) + ")"
        parts, params = [NEO4J_LEXICAL], {**base, "q": lucene, "start": _ALL[0], "end": _ALL[1], "leg": "vector"}
        if vector is not None:
            parts.append(NEO4J_VECTOR_INDEX if NEO4J_VECTOR_INDEX_USED else NEO4J_VECTOR)
            params["over"] = 4 * DEPTH
        if window is not None:
            window_query = NEO4J_VECTOR if vector is not None else NEO4J_WINDOW_LEXICAL
            parts.append(window_query.replace("$start", "$wstart").replace("$end", "$wend")
                         .replace("$leg", "'window'"))
            params.update(wstart=window[0], wend=window[1])
        query = " UNION ALL ".join(f"CALL () {{ {part} }} RETURN leg, id, entity, episode, valid_at, score, cosine, "
                                   "text" for part in parts)
        rows = [dict(r) for r in self._driver.execute_query(query, params).records]
        return rescored(rows, self.size, _stems(" ".join(terms)))

    def vector_legs(self, vector: list[float], window: tuple[int, int] | None, ids: Sequence[int]
                    ) -> list[dict[str, Any]]:
        """``--overlap``'s second request: the vector and window legs, and the cosine of the lexical leg's hits."""
        base = {"scope": self.scope, "k": DEPTH, "v": vector, "ids": list(ids)}
        if self.backend == "falkordb":
            requests = [(FALKOR_VECTOR, {**base, "leg": "vector", "start": _ALL[0], "end": _ALL[1]}),
                        (FALKOR_COSINES, base)]
            if window is not None:
                requests.append((FALKOR_VECTOR, {**base, "leg": "window", "start": window[0], "end": window[1]}))
            return self._falkordb_pipeline(requests)
        parts = [NEO4J_VECTOR, NEO4J_COSINES]
        params = {**base, "start": _ALL[0], "end": _ALL[1], "leg": "vector"}
        if window is not None:
            parts.append(NEO4J_VECTOR.replace("$start", "$wstart").replace("$end", "$wend").replace("$leg", "'window'"))
            params.update(wstart=window[0], wend=window[1])
        query = " UNION ALL ".join(f"CALL () {{ {part} }} RETURN leg, id, entity, episode, valid_at, score, cosine, "
                                   "text" for part in parts)
        return [dict(r) for r in self._driver.execute_query(query, params).records]

    def _falkordb_pipeline(self, requests: list[tuple[str, dict[str, Any]]]) -> list[dict[str, Any]]:
        from falkordb.helpers import stringify_param_value

        pipe = self._redis.pipeline(transaction=False)
        for query, params in requests:
            header = "CYPHER " + " ".join(f"{k}={stringify_param_value(v)}" for k, v in params.items())
            pipe.execute_command("GRAPH.RO_QUERY", "locomo_probe", f"{header} {query}", "--compact")
        rows: list[dict[str, Any]] = []
        for reply in pipe.execute():
            rows += [dict(zip(["leg", "id", "entity", "episode", "valid_at", "score", "cosine", "text"],
                              [_compact(v) for v in row], strict=True)) for row in reply[1]]
        return rows

    def close(self) -> None:
        if self.backend == "falkordb":
            self._keeper.close()
            if self._folder is not None:
                self._folder.cleanup()
            return
        for label in (LABEL, f"{LABEL}Entity"):
            self._driver.execute_query(f"MATCH (n:{label} {{scope: $scope}}) DETACH DELETE n", scope=self.scope)
        self._driver.close()


@lru_cache(maxsize=100_000)
def _stored_stems(text: str) -> tuple[str, ...]:
    """A memory's stems, worked out once: what storing them at write time gives (``--stems-at-read`` does not)."""
    return tuple(_stems(text))


def _stems(text: str) -> list[str]:
    import Stemmer

    global _STEMMER
    if _STEMMER is None:
        _STEMMER = Stemmer.Stemmer("english")
    return list(_STEMMER.stemWords([w for w in words(text) if w not in STOPWORDS]))


_STEMMER: Any = None
STEMS_STORED = True


def rescored(rows: list[dict[str, Any]], corpus_size: int, query_stems: Sequence[str] | None = None
             ) -> list[dict[str, Any]]:
    """Full-text rows scored by BM25 (k1 1.2, b 0.75) over their stems, document frequencies counted in the pool
    (exact while the pool holds every match), the best ``DEPTH`` of each leg kept; other rows as they are."""
    texted = [r for r in rows if r.get("text") is not None]
    if not texted:
        return rows
    stems = [list(_stored_stems(r["text"])) if STEMS_STORED else _stems(r["text"]) for r in texted]
    query = set(query_stems or [])
    frequency: dict[str, int] = {}
    for doc in stems:
        for t in set(doc) & query:
            frequency[t] = frequency.get(t, 0) + 1
    average = sum(len(d) for d in stems) / len(stems)
    total = max(corpus_size, len(stems))
    for row, doc in zip(texted, stems, strict=True):
        score = 0.0
        for term in query:
            tf = doc.count(term)
            if tf:
                idf = math.log(1 + (total - frequency[term] + 0.5) / (frequency[term] + 0.5))
                score += idf * tf * 2.2 / (tf + 1.2 * (0.25 + 0.75 * len(doc) / average))
        row["score"] = score
    kept: list[dict[str, Any]] = [r for r in rows if r.get("text") is None]
    for leg in {r["leg"] for r in texted}:
        best = sorted((r for r in texted if r["leg"] == leg and r["score"] > 0), key=lambda r: -r["score"])
        kept += best[:DEPTH]
    return kept


def _compact(value: Any) -> Any:
    """A value of FalkorDB's compact reply: [type, value] (strings, integers, doubles, nulls here)."""
    kind, raw = value
    if kind == 1:
        return None
    if kind == 2:
        return raw.decode() if isinstance(raw, bytes) else raw
    if kind == 5:
        return float(raw)
    return raw


def _window(question: str, conv: Conversation) -> tuple[int, int] | None:
    """The question's window as epoch microseconds (the intersection of what it names), from the last session."""
    asked = asked_time(question, conv.last_date + timedelta(days=1))
    if not asked.windows:
        return None
    starts = [to_micros(w.start) for w in asked.windows if w.start is not None]
    ends = [to_micros(w.end) for w in asked.windows if w.end is not None]
    return max(starts, default=_ALL[0]), min(ends, default=_ALL[1])


def ask(store: Store, conv: Conversation, question: str, embedder: Any) -> list[int]:
    """Recall as the design has it: names, embedding, one request for the legs, fusion in Python."""
    terms = content_terms(question)
    named = store.names(terms) if terms else []
    vector = None
    if embedder is not None:
        bare = without_names(question, [s for s in conv.speakers if s.casefold() in named]) or question
        vector = embedder.embed_array([bare])[0].tolist()
    window = _window(question, conv)
    rows = store.legs(terms, vector, window) if terms or vector is not None else []
    return _fused(rows, question, conv, named, embedder is not None)


def ask_overlapped(store: Store, conv: Conversation, question: str, embedder: Any, pool: Any) -> list[int]:
    """``--overlap``: the lexical legs go to the database while the question is embedded; then one request for
    the vector legs and the cosines of the lexical hits (the same candidates and scores as :func:`ask`)."""
    terms = content_terms(question)
    named = store.names(terms) if terms else []
    window = _window(question, conv)
    lexical = pool.submit(store.legs, terms, None, None) if terms else None
    bare = without_names(question, [s for s in conv.speakers if s.casefold() in named]) or question
    vector = embedder.embed_array([bare])[0].tolist()
    rows = lexical.result() if lexical is not None else []
    rows += store.vector_legs(vector, window, [int(r["id"]) for r in rows])
    return _fused(rows, question, conv, named, True)


def ask_overlapped_process(store: Store, conv: Conversation, question: str, worker: EmbeddingProcess) -> list[int]:
    """:func:`ask_overlapped` with the question embedded in another process (:class:`EmbeddingProcess`), the
    lexical legs read meanwhile in this thread."""
    terms = content_terms(question)
    named = store.names(terms) if terms else []
    window = _window(question, conv)
    worker.send(without_names(question, [s for s in conv.speakers if s.casefold() in named]) or question)
    rows = store.legs(terms, None, None) if terms else []
    rows += store.vector_legs(worker.vector(), window, [int(r["id"]) for r in rows])
    return _fused(rows, question, conv, named, True)


class EmbeddingProcess:
    """The MiniLM embedder in a process of its own, for ``--overlap``: numpy's MiniLM holds the GIL for most of
    a short question (an operation per numpy call), so a thread of this process does not overlap it with the
    reads' client work (decoding, building parameters); another process does, on another core."""

    def __init__(self) -> None:
        import multiprocessing

        context = multiprocessing.get_context("spawn")
        self._conn, child = context.Pipe()
        self._process = context.Process(target=_serve_embeddings, args=(child,), daemon=True)
        self._process.start()
        self._conn.recv()  # the model is loaded and warm

    def send(self, text: str) -> None:
        self._conn.send(text)

    def vector(self) -> list[float]:
        vector: list[float] = np.frombuffer(self._conn.recv_bytes(), dtype=np.float32).tolist()
        return vector

    def close(self) -> None:
        self._conn.send(None)
        self._process.join(10)


def _serve_embeddings(conn: Any) -> None:
    """:class:`EmbeddingProcess`'s loop: a text in, its vector out (float32 bytes), until None."""
    from synapse_graph.embedders.minilm import MiniLMEmbedder

    embedder = MiniLMEmbedder()
    embedder.embed(["warm up"])
    conn.send("ready")
    while (text := conn.recv()) is not None:
        conn.send_bytes(embedder.embed_array([text])[0].tobytes())


def _fused(rows: list[dict[str, Any]], question: str, conv: Conversation, named: Sequence[str], embedded: bool
           ) -> list[int]:
    candidates = [Candidate(str(r["id"]), lexical=r["score"], vector=r["cosine"], entities=frozenset({r["entity"]}),
                            episode=r["episode"], valid_at=None if r["valid_at"] is None else
                            _instant(int(r["valid_at"]))) for r in rows]
    asked = asked_time(question, conv.last_date + timedelta(days=1))
    weights = WEIGHTS if embedded else Weights(lexical=1.0, vector=0.0, entity=WEIGHTS.entity,
                                                            time=WEIGHTS.time, dated=0.0, episode=WEIGHTS.episode)
    fused = fuse(candidates, named=named, in_window=asked.contains if asked.windows else None, weights=weights,
                 limit=20)
    return [int(f.key) for f in fused]


def _instant(micros: int) -> Any:
    from synapse_graph.rules.timeparse import from_micros

    return from_micros(micros).astimezone(UTC)


def run_backend(backend: str, conversations: Sequence[Conversation], embedder: Any, overlap: bool = False
                ) -> dict[str, Any]:
    from concurrent.futures import ThreadPoolExecutor

    from benchmarks.locomo.research import embed

    answers: dict[str, list[Answer]] = {"design+minilm": [], "design": [], "dense": []}
    if overlap:
        answers["design+minilm overlapped"] = []
        answers["design+minilm overlapped (process)"] = []
    pool = ThreadPoolExecutor(max_workers=1)
    worker = EmbeddingProcess() if overlap else None
    for conv in conversations:
        vectors = embed([s.text for s in conv.sentences], embedder)
        store = Store(backend)
        try:
            store.load(conv, vectors)
            for question in conv.questions:
                for name in answers:
                    began = time.perf_counter()
                    if name == "dense":
                        query = embedder.embed_array([question.text])[0]
                        ranked = [int(i) for i in np.argsort(-(vectors @ query), kind="stable")[:20]]
                    elif name == "design+minilm overlapped":
                        ranked = ask_overlapped(store, conv, question.text, embedder, pool)
                    elif name == "design+minilm overlapped (process)" and worker is not None:
                        ranked = ask_overlapped_process(store, conv, question.text, worker)
                    else:
                        ranked = ask(store, conv, question.text, embedder if name == "design+minilm" else None)
                    answers[name].append(Answer(conv.name, question, tuple(ranked), time.perf_counter() - began))
        finally:
            store.close()
        print(f"  {backend} {conv.name}", flush=True)
    found = {name: report(conversations, got) for name, got in answers.items()}
    dense_p95 = summary([a.seconds for a in answers["dense"]])["p95_ms"]
    pool.shutdown()
    if worker is not None:
        worker.close()
    for name in [n for n in found if n.startswith("design")]:
        found[name]["p95_over_dense"] = ratio(found[name]["latency_ms"]["p95"], dense_p95)  # type: ignore[index]
    return found


def main(argv: Sequence[str] | None = None) -> int:
    from synapse_graph.embedders.minilm import MiniLMEmbedder

    parser = argparse.ArgumentParser(prog="python -m benchmarks.locomo.probe", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--backend", choices=["falkordb", "neo4j", "all"], default="all")
    parser.add_argument("--small", action="store_true")
    parser.add_argument("--data", type=Path, default=None)
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--stems-at-read", action="store_true",
                        help="stem each candidate's text per question (by default as if stored at write time)")
    parser.add_argument("--overlap", action="store_true",
                        help="also time the lexical legs sent while the question is embedded (in this process, "
                        "and in an embedding process of its own)")
    parser.add_argument("--neo4j-vector-index", action="store_true",
                        help="Neo4j's vector leg through its vector index instead of an exact scan of the scope")
    args = parser.parse_args(argv)
    parser_args_vector = args.neo4j_vector_index
    global STEMS_STORED, NEO4J_VECTOR_INDEX_USED
    STEMS_STORED, NEO4J_VECTOR_INDEX_USED = not args.stems_at_read, parser_args_vector
    conversations = load(data_dir(args.data), SMALL if args.small else None)
    embedder = MiniLMEmbedder()
    embedder.embed(["warm up"])
    backends = ["falkordb", "neo4j"] if args.backend == "all" else [args.backend]
    results = {"machine": machine_tag(), "depth": DEPTH, "pool": POOL, "stems_stored": STEMS_STORED,
               "neo4j_vector_index": NEO4J_VECTOR_INDEX_USED,
               "weights": repr(WEIGHTS),
               "overlap": args.overlap,
               "backends": {b: run_backend(b, conversations, embedder, args.overlap) for b in backends}}
    for backend, systems in results["backends"].items():  # type: ignore[union-attr]
        for name, found in systems.items():
            lat = found["latency_ms"]
            print(f"{backend} {name}: R@10 {found['overall']['recall@10']:.3f} (per conversation "
                  f"{found['recall@10_spread']['min']:.3f}-{found['recall@10_spread']['max']:.3f}), "
                  f"p50 {lat['p50']:.1f} ms, p95 {lat['p95']:.1f} ms, p95/dense {found.get('p95_over_dense')}")
    if args.out:
        args.out.write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
