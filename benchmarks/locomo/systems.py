"""The systems compared: the library's recall (a fresh store per conversation) and, over exactly the same
sentences, BM25 (``bm25s``), dense MiniLM cosine, and reciprocal rank fusion of the two.

Each system is given one conversation (:meth:`load`, not timed: it stands for what was written before)
and then answers its questions (:meth:`ask`, timed by the harness: the dense legs include embedding the
question). Answers are sentence indices of :class:`~benchmarks.locomo.data.Conversation`, best first.
"""

from __future__ import annotations

import inspect
import tempfile
import uuid
from collections.abc import Sequence
from datetime import timedelta
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from benchmarks.locomo.data import Conversation, Sentence
from synapse_graph import Memory
from synapse_graph.embedding import Embedder

DEPTH = 20
"""How many memories each system returns per question (the largest k reported)."""
RRF_K = 60

OBSERVE_TAKES_VALID_AT = "valid_at" in inspect.signature(Memory.observe).parameters
"""The switch for dated observations: once ``Memory.observe`` takes ``valid_at``, each session's observations
are stored with the session's date (the harness keeps the dates itself until then, in :class:`Sentence`)."""
RECALL_TAKES_REFERENCE_TIME = "reference_time" in inspect.signature(Memory.recall).parameters
"""Once ``Memory.recall`` takes ``reference_time``, questions are asked the day after the last session (what
"last week" or "in May" refer to: the conversation's time, not the run's)."""


class System(Protocol):
    name: str

    def load(self, conv: Conversation) -> None: ...

    def ask(self, question: str) -> list[int]: ...

    def close(self) -> None: ...


class BM25:
    """``bm25s`` over the sentences (English stop words, no stemming); sentences scoring 0 are not returned."""

    name = "bm25"

    def __init__(self) -> None:
        import bm25s

        self._bm25s = bm25s
        self._retriever: Any = None
        self._tokenizer: Any = None
        self._size = 0

    def load(self, conv: Conversation) -> None:
        self._tokenizer = self._bm25s.tokenization.Tokenizer(stopwords="en")
        corpus = self._tokenizer.tokenize([s.text for s in conv.sentences], show_progress=False)
        self._retriever = self._bm25s.BM25()
        self._retriever.index(corpus, show_progress=False)
        self._size = len(conv.sentences)

    def scores(self, question: str) -> np.ndarray:
        """The BM25 score of every sentence for the question."""
        ids = self._tokenizer.tokenize([question], update_vocab=False, return_as="ids", show_progress=False)[0]
        known = [i for i in ids if i in self._retriever.vocab_dict]
        if not known:
            return np.zeros(self._size, dtype=np.float32)
        return np.asarray(self._retriever.get_scores(known), dtype=np.float32)

    def ranking(self, question: str, depth: int = DEPTH) -> list[int]:
        scores = self.scores(question)
        order = np.argsort(-scores, kind="stable")[:depth]
        return [int(i) for i in order if scores[i] > 0]

    def ask(self, question: str) -> list[int]:
        return self.ranking(question)

    def close(self) -> None:
        self._retriever = None


class Dense:
    """Cosine of MiniLM vectors (exact, numpy), the question embedded at ask time."""

    name = "dense"

    def __init__(self, embedder: Any) -> None:
        self.embedder = embedder
        self._vectors: np.ndarray = np.zeros((0, 384), dtype=np.float32)

    def load(self, conv: Conversation) -> None:
        self._vectors = self.embedder.embed_array([s.text for s in conv.sentences])

    def scores(self, question: str) -> np.ndarray:
        query = self.embedder.embed_array([question])[0]
        return np.asarray(self._vectors @ query, dtype=np.float32)

    def ranking(self, question: str, depth: int = DEPTH) -> list[int]:
        scores = self.scores(question)
        return [int(i) for i in np.argsort(-scores, kind="stable")[:depth]]

    def ask(self, question: str) -> list[int]:
        return self.ranking(question)

    def close(self) -> None:
        self._vectors = np.zeros((0, 384), dtype=np.float32)


def rrf(rankings: Sequence[Sequence[int]], k: int = RRF_K, depth: int = DEPTH) -> list[int]:
    fused: dict[int, float] = {}
    for ranking in rankings:
        for position, item in enumerate(ranking, start=1):
            fused[item] = fused.get(item, 0.0) + 1.0 / (k + position)
    return [item for item, _ in sorted(fused.items(), key=lambda kv: (-kv[1], kv[0]))[:depth]]


class RRF:
    """Reciprocal rank fusion (k = 60) of the whole BM25 and dense rankings."""

    name = "rrf"

    def __init__(self, bm25: BM25, dense: Dense) -> None:
        self.bm25, self.dense = bm25, dense

    def load(self, conv: Conversation) -> None:
        """The legs are loaded by their own systems (the same objects)."""

    def ask(self, question: str) -> list[int]:
        size = len(self.dense._vectors)
        return rrf([self.bm25.ranking(question, size), self.dense.ranking(question, size)])

    def close(self) -> None:
        pass


class Ours:
    """``Memory.recall`` on a fresh store holding the conversation's observations, one observe per speaker per
    session (with ``valid_at`` the session's date once observe takes it: :data:`OBSERVE_TAKES_VALID_AT`)."""

    def __init__(self, backend: str, embedder: Embedder | None, neo4j: tuple[str, tuple[str, str]] | None = None):
        self.name = "ours+minilm" if embedder is not None else "ours"
        self.backend, self.embedder, self.neo4j = backend, embedder, neo4j
        self._folder: tempfile.TemporaryDirectory[str] | None = None
        self._memory: Memory | None = None
        self._found: dict[tuple[str, str], int] = {}
        self._asked: dict[str, Any] = {}

    def _open(self, conv: Conversation) -> Memory:
        scope = f"bench.locomo/{conv.name}/{uuid.uuid4().hex[:12]}"
        if self.backend == "neo4j":
            assert self.neo4j is not None
            location, auth = self.neo4j
            return Memory(location, scope=scope, auth=auth, embedder=self.embedder, max_facts=100_000)
        self._folder = tempfile.TemporaryDirectory(prefix="synapse-locomo-", ignore_cleanup_errors=True)
        return Memory(str(Path(self._folder.name) / "locomo.db"), scope=scope, embedder=self.embedder,
                      max_facts=100_000)

    def load(self, conv: Conversation) -> None:
        self._memory = memory = self._open(conv)
        self._found = {(s.speaker, s.text): s.index for s in conv.sentences}
        self._asked = {"reference_time": conv.last_date + timedelta(days=1)} if RECALL_TAKES_REFERENCE_TIME else {}
        batches: dict[tuple[int, str], list[Sentence]] = {}
        for sentence in conv.sentences:
            batches.setdefault((sentence.session, sentence.speaker), []).append(sentence)
        for (session, speaker), batch in sorted(batches.items()):
            extra: dict[str, Any] = {"valid_at": batch[0].date} if OBSERVE_TAKES_VALID_AT else {}
            memory.observe(speaker, [s.text for s in batch], source=f"locomo {conv.name} session {session}",
                           entity_type="person", **extra)
        if self.embedder is not None:
            memory.reindex_embeddings()

    def ask(self, question: str) -> list[int]:
        assert self._memory is not None
        found = self._memory.recall(question, limit=DEPTH, **self._asked)
        memories = getattr(found, "memories", None)  # facts and observations in one ranking (none are facts here)
        ranked = memories if memories is not None else found.observations
        return [self._found[(o.entity, o.text)] for o in ranked if hasattr(o, "text")][:DEPTH]

    def close(self) -> None:
        if self._memory is not None:
            if self.backend == "neo4j":
                self._memory.purge(scope=self._memory.scope)
            self._memory.close()
            self._memory = None
        if self._folder is not None:
            self._folder.cleanup()
            self._folder = None
