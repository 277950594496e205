"""What recall's full-text leg stores and searches for a memory: its words' Snowball stems (issue 28).

A memory (an observation, or a fact as a sentence) is stored with the English Snowball stems of its words
(``PyStemmer``), English stop words left out: "Melanie adopted two cats" holds ``melani adopt two cat``. A
question is reduced the same way ("What pets did she adopt?" searches ``pet adopt``), so the databases'
full-text indexes match and count the same terms on both backends (they index the stems as they are: no
stemming or stop words of their own), and BM25 reads each candidate's stems back without stemming again.

Measured on LoCoMo's development split (``docs/recall-design.md``): stemming takes BM25 from 0.533 to 0.577
at recall@10, and the chosen ranking from 0.675 to 0.686 with MiniLM (0.581 to 0.625 without an embedder);
the library's light stemmer (:func:`synapse_graph.rules.recall.stem`) reached 0.680 and 0.618.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import Stemmer

from synapse_graph.rules.recall import MAX_TERM_LENGTH, STOPWORDS, possessives_out, words

_LOCAL = threading.local()


def _stemmer() -> Any:
    """One Snowball stemmer per thread (a PyStemmer object keeps a cache and is not to be shared)."""
    stemmer = getattr(_LOCAL, "stemmer", None)
    if stemmer is None:
        stemmer = _LOCAL.stemmer = Stemmer.Stemmer("english")
    return stemmer


def stems(text: str) -> list[str]:
    """The text's stems in order, repeats kept (BM25 counts them): its words (identifiers split as
    :func:`~synapse_graph.rules.recall.words` splits them, possessives left out), less English stop words."""
    kept = [w for w in words(possessives_out(text)) if w not in STOPWORDS and len(w) <= MAX_TERM_LENGTH]
    return list(_stemmer().stemWords(kept)) if kept else []


def search_stems(*texts: str | None) -> str:
    """What a memory's ``search_text`` holds: the stems of its texts, space-separated."""
    return " ".join(s for text in texts if text for s in stems(text))


def term_stems(terms: Iterable[str]) -> list[str]:
    """The stems of a question's content terms (:func:`~synapse_graph.rules.recall.content_terms`), each once."""
    listed = [t for t in terms if t]
    return list(dict.fromkeys(_stemmer().stemWords(listed))) if listed else []


def predicate_words(predicate: str) -> str:
    """A predicate as words: ``WORKS_AT`` -> ``works at``."""
    return predicate.replace("_", " ").casefold()


def fact_sentence(subject: str, predicate: str, object_: str) -> str:
    """A fact as a sentence, what its vector embeds: ``Dana works at Globex``."""
    return f"{subject} {predicate_words(predicate)} {object_}"


def fact_search_text(subject: str, predicate: str, object_: str, source: str | None) -> str:
    """A fact's ``search_text``: the stems of its sentence (:func:`fact_sentence`) and of its source.

    The sentence's parts are whole words apart (a space between them), so its stems are its parts' stems in
    turn (tests/unit/test_recall_rules.py checks it): each part's are computed once (a batch names the same
    entities and predicates many times), which took this from ~35 to ~3 us per fact, and kept joined (a part
    without stems adds nothing: None), so a fact joins at most four texts, not every stem again."""
    head = _joined(subject)
    said = _predicate_joined(predicate)
    tail = _joined(object_)
    end = _joined(source) if source else None
    if head is None or said is None or tail is None or end is not None:
        return " ".join(t for t in (head, said, tail, end) if t is not None)
    return f"{head} {said} {tail}"


@lru_cache(maxsize=4_096)
def _predicate_joined(predicate: str) -> str | None:
    return _joined(predicate_words(predicate))


@lru_cache(maxsize=65_536)
def _joined(text: str) -> str | None:
    """The stems of one part of a fact's sentence, space-separated; None if it has none (:func:`stems` is pure:
    the same per thread)."""
    found = stems(text)
    return " ".join(found) if found else None


def matched(stems_of_memory: Sequence[str], asked: Iterable[str]) -> list[str]:
    """The question's stems a memory holds, in the question's order."""
    held = set(stems_of_memory)
    return [s for s in asked if s in held]


@dataclass(frozen=True)
class Matches:
    """What BM25 needs of every memory that matched a question, for scoring only some of them: the database
    computes it over them all and sends back only those that can make the cut (cypher/fragments/lexical_cut)."""

    documents: int
    """How many memories matched."""
    length: int
    """Their stems in all."""
    frequency: Mapping[str, int]
    """Per stem of the question: how many of them hold it (as far as read: a stem asked alone that filled its
    pool counts as many as were read)."""


def bm25(asked: Sequence[str], docs: Mapping[str, Sequence[str]], *, corpus_size: int,
         matches: Matches | None = None, k1: float = 1.2, b: float = 0.75) -> dict[str, float]:
    """BM25 scores of memories (their stems, by key) for the question's stems; memories holding none are left
    out. The document frequencies and the average length are those of ``docs``, or of every match when
    ``matches`` describes them (``docs`` then holds some of them, each scored as among them all)."""
    if not docs or not asked:
        return {}
    wanted = set(asked)
    counts: dict[str, dict[str, int]] = {}
    for key, doc in docs.items():
        held = [stem for stem in doc if stem in wanted]  # a memory holds few of the question's stems
        counts[key] = {stem: held.count(stem) for stem in dict.fromkeys(held)} if held else {}
    if matches is None:
        matches = Matches(len(docs), sum(len(d) for d in docs.values()),
                          {stem: sum(1 for tfs in counts.values() if stem in tfs) for stem in wanted})
    total = max(corpus_size, matches.documents)
    average = (matches.length / matches.documents if matches.documents else 0.0) or 1.0
    idf = {stem: math.log(1 + (total - df + 0.5) / (df + 0.5))
           for stem in wanted for df in (min(total, matches.frequency.get(stem, 0)),)}
    scores: dict[str, float] = {}
    for key, tfs in counts.items():
        if not tfs:
            continue
        norm = k1 * (1 - b + b * len(docs[key]) / average)
        score = 0.0
        for stem, tf in tfs.items():
            score += idf[stem] * tf * (k1 + 1) / (tf + norm)
        scores[key] = score
    return scores
