"""Offline prototype of recall's ranking over LoCoMo's sentences (issue 28): signals, fusion, ablation.

Everything here is computed over the same sentences as the harness's baselines, in numpy, to choose a
ranking before the store implements it. A ranking must be buildable from what the databases give in a few
round trips, so the prototype keeps to that:

- candidates: the best ``lexical_depth`` sentences of a full-text index (BM25 over Snowball-stemmed words
  without English stop words: what FalkorDB's RediSearch index with language English and Neo4j's ``english``
  Lucene analyzer score) and the best ``vector_depth`` by cosine (the vector index); with a time window in the
  question, also the best ``vector_depth`` by cosine among sentences valid in it (the same vector read with a
  ``valid_at`` filter). Nothing outside the candidates is ranked.
- per candidate: its BM25 score (0 when the lexical leg did not return it: it holds fewer or rarer words), its
  cosine (the lexical read returns it too: the node's embedding is at hand), its entity, session and date.
- the question: which speakers (entities) it names, the time window it names (``rules.asked_time``, relative
  to the conversation's last session), whether it asks "when".

Run: ``python -m benchmarks.locomo.research [--data DIR] [--out FILE]`` (prints the tables; writes numbers only).
"""

from __future__ import annotations

import argparse
import hashlib
import itertools
import json
import re
import statistics
import tempfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from datetime import timedelta
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks.locomo.data import CATEGORIES, Conversation, data_dir, load
from synapse_graph.rules.asked_time import AskedTime, asked_time
from synapse_graph.rules.fusion import Candidate, Weights, fuse


@dataclass(frozen=True)
class Ranking:
    """One ranking's signals and weights (0 turns a signal off)."""

    lexical: float = 0.5          # weight of the lexical leg's normalised score
    vector: float = 1.0           # weight of the vector leg's normalised score (0: no embedder)
    normalise: str = "z"          # "z" (z-score over the candidates), "max" (over the leg's best), "rrf"
    speaker: float = 0.0          # bonus for a sentence about the (only) entity the question names
    time: float = 0.0             # bonus for a sentence valid in the question's window
    time_leg: bool = False        # also read the window's best sentences by cosine (lexical without embedder)
    session: float = 0.0          # bonus: its session's best fused score among the candidates (normalised)
    neighbour: float = 0.0        # bonus: the fused score of its neighbour in the same session and entity
    lexical_depth: int = 50
    vector_depth: int = 50
    stemmed: bool = True
    without_names: bool = False   # the question's words naming an entity left out of the embedded question
    lexical_without_names: bool = False  # ... and of the full-text query
    relative_times: bool = True   # read "last week", "yesterday" ... (relative to the last session) too
    library: bool = False         # fuse through synapse_graph.rules.fusion.fuse (normalise "max", no neighbour)


@dataclass
class Prepared:
    """One conversation with every question's scores over every sentence."""

    conv: Conversation
    dense: np.ndarray        # (questions, sentences) cosine
    dense_without: np.ndarray  # the same for the questions without the words naming a speaker
    bm25: np.ndarray         # (questions, sentences) BM25, stemmed, English stop words
    bm25_without: np.ndarray
    bm25_plain: np.ndarray   # the same without stemming (the harness's BM25 baseline)
    speaker: np.ndarray      # (sentences,) index of the sentence's speaker
    named: np.ndarray        # (questions, 2) whether the question names each speaker
    session: np.ndarray      # (sentences,)
    asked: list[AskedTime]   # relative times included
    asked_absolute: list[AskedTime]
    dates: list[Any]


# -- preparation ---------------------------------------------------------------------------------------------

def _cache() -> Path:
    folder = Path(tempfile.gettempdir()) / "synapse-locomo-vectors"
    folder.mkdir(exist_ok=True)
    return folder


def embed(texts: Sequence[str], embedder: Any) -> np.ndarray:
    """MiniLM vectors, cached by the texts' hash in the temporary folder (never in the repository)."""
    digest = hashlib.sha256("\n".join(texts).encode()).hexdigest()[:24]
    path = _cache() / f"{digest}.npy"
    if path.exists():
        return np.asarray(np.load(path))
    vectors = np.asarray(embedder.embed_array(list(texts)))
    np.save(path, vectors)
    return vectors


def bm25_scores(corpus: Sequence[str], queries: Sequence[str], stemmed: bool) -> np.ndarray:
    import bm25s
    import Stemmer

    tokenizer = bm25s.tokenization.Tokenizer(stopwords="en", stemmer=Stemmer.Stemmer("english") if stemmed else None)
    retriever = bm25s.BM25()
    retriever.index(tokenizer.tokenize(list(corpus), show_progress=False), show_progress=False)
    out = np.zeros((len(queries), len(corpus)), dtype=np.float32)
    for i, query in enumerate(queries):
        ids = tokenizer.tokenize([query], update_vocab=False, return_as="ids", show_progress=False)[0]
        known = [t for t in ids if t in retriever.vocab_dict]
        if known:
            out[i] = retriever.get_scores(known)
    return out


_WORD = re.compile(r"[A-Za-z]+(?:['’]s)?")


def _names(word: str, speaker: str) -> bool:
    """Whether a word names the speaker: the name or a 3+ letter prefix of it, possessive or not (the entity
    index matches prefixes: "Mel" finds Melanie, as an alias would)."""
    bare = re.sub(r"['’]s$", "", word).casefold()
    return len(bare) >= 3 and speaker.casefold().startswith(bare)


def names_in(question: str, speaker: str) -> bool:
    """Whether the question names the speaker."""
    return any(_names(w, speaker) for w in _WORD.findall(question))


def without_names(question: str, speakers: Sequence[str]) -> str:
    """The question without the words that name a speaker (what is left to match the memories' content)."""
    kept = _WORD.sub(lambda m: "" if any(_names(m.group(), s) for s in speakers) else m.group(), question)
    return re.sub(r"\s+", " ", kept).strip()


def prepare(conv: Conversation, embedder: Any) -> Prepared:
    texts = [s.text for s in conv.sentences]
    questions = [q.text for q in conv.questions]
    bare = [without_names(q, conv.speakers) for q in questions]
    vectors, asked_vectors, bare_vectors = embed(texts, embedder), embed(questions, embedder), embed(bare, embedder)
    reference = conv.last_date + timedelta(days=1)
    asked = [asked_time(q, reference) for q in questions]
    absolute = [asked_time(q, reference) for q in questions]
    absolute = [AskedTime(tuple(w for w in a.windows if _absolute(w.phrase)), a.asks_when) for a in absolute]
    return Prepared(
        conv=conv, dense=asked_vectors @ vectors.T, dense_without=bare_vectors @ vectors.T,
        bm25=bm25_scores(texts, questions, True), bm25_without=bm25_scores(texts, bare, True),
        bm25_plain=bm25_scores(texts, questions, False),
        speaker=np.array([conv.speakers.index(s.speaker) for s in conv.sentences]),
        named=np.array([[names_in(q, s) for s in conv.speakers] for q in questions]),
        session=np.array([s.session for s in conv.sentences]), asked=asked, asked_absolute=absolute,
        dates=[s.date for s in conv.sentences])


def _absolute(phrase: str) -> bool:
    """Whether a window's words name a year (so it does not depend on when the question is asked)."""
    return re.search(r"\b(?:1[89]|20)\d\d\b", phrase) is not None


# -- ranking ---------------------------------------------------------------------------------------------------

def _top(scores: np.ndarray, depth: int, among: np.ndarray | None = None) -> np.ndarray:
    order = np.argsort(-scores, kind="stable")
    if among is not None:
        order = order[among[order]]
    return order[:depth]


def _normalised(values: np.ndarray, how: str, present: np.ndarray) -> np.ndarray:
    if how == "z":
        seen = values[present]
        spread = seen.std() if seen.size > 1 else 0.0
        out = (values - seen.mean()) / spread if spread > 0 else np.zeros_like(values)
        return np.where(present, out, out.min() if out.size else 0.0)
    if how == "max":
        best = values[present].max() if present.any() else 0.0
        return np.where(present, values / best, 0.0) if best > 0 else np.zeros_like(values)
    raise ValueError(how)


def rank(p: Prepared, qi: int, r: Ranking, depth: int = 20) -> list[int]:
    """The sentences one question gets, best first."""
    lexical_scores = (p.bm25_without if r.lexical_without_names else p.bm25 if r.stemmed else p.bm25_plain)[qi]
    dense = (p.dense_without if r.without_names else p.dense)[qi]
    asked = (p.asked if r.relative_times else p.asked_absolute)[qi]
    in_window = (np.array([asked.contains(d) for d in p.dates]) if asked.windows
                 else np.zeros(len(p.dates), dtype=bool))
    lexical = _top(lexical_scores, r.lexical_depth)
    lexical = lexical[lexical_scores[lexical] > 0]
    legs = [lexical]
    if r.vector:
        legs.append(_top(dense, r.vector_depth))
    if r.time_leg and in_window.any():
        legs.append(_top(dense if r.vector else lexical_scores, r.vector_depth, in_window))
    candidates = np.unique(np.concatenate(legs)) if legs else np.array([], dtype=int)
    if candidates.size == 0:
        return []
    lex = np.zeros(len(lexical_scores), dtype=np.float64)
    lex[lexical] = lexical_scores[lexical]
    mask = np.zeros(len(lex), dtype=bool)
    mask[candidates] = True
    if r.normalise == "rrf":  # 60 / (60 + rank): 0.98 for the first, on the scale of the others
        fused = np.zeros(len(lex))
        for leg, weight in ((lexical, r.lexical), (_top(dense, r.vector_depth) if r.vector else None, r.vector)):
            if leg is not None and weight:
                fused[leg] += weight * 60.0 / (60 + np.arange(1, len(leg) + 1))
    else:
        lex_present = mask & (lex > 0)
        fused = np.zeros(len(lex))
        if r.lexical and lex_present.any():
            fused += r.lexical * _normalised(lex, r.normalise, lex_present)
        if r.vector:
            fused += r.vector * _normalised(dense.astype(np.float64), r.normalise, mask)
    # the weighted mean of the legs: on one scale with an embedder or without, so one set of bonuses serves both
    fused /= r.lexical + r.vector
    if r.library:
        return _library_rank(p, qi, r, candidates, lex, dense, asked, depth)
    score = fused.copy()
    named = p.named[qi]
    if r.speaker and named.sum() == 1:
        score += r.speaker * (p.speaker == int(np.argmax(named)))
    if r.time and asked.windows:
        score += r.time * in_window
    if r.session:
        best: dict[int, float] = {}
        for i in candidates:
            best[p.session[i]] = max(best.get(p.session[i], -np.inf), fused[i])
        values = np.array(list(best.values()))
        low, high = values.min(), values.max()
        scale = (high - low) or 1.0
        score += r.session * np.array([(best.get(s, low) - low) / scale for s in p.session])
    if r.neighbour:
        near = np.zeros(len(score))
        for i in candidates:
            for j in (i - 1, i + 1):
                if 0 <= j < len(score) and p.session[j] == p.session[i] and p.speaker[j] == p.speaker[i]:
                    near[j] = max(near[j], fused[i])
        if np.ptp(fused[candidates]) > 0:
            near = (near - fused[candidates].min()) / np.ptp(fused[candidates])
        score += r.neighbour * np.clip(near, 0, None)
    ordered = candidates[np.argsort(-score[candidates], kind="stable")]
    return [int(i) for i in ordered[:depth]]


def _library_rank(p: Prepared, qi: int, r: Ranking, candidates: np.ndarray, lex: np.ndarray, dense: np.ndarray,
                  asked: AskedTime, depth: int) -> list[int]:
    """The same candidates ranked by the library's pure fusion rule (what recall will run)."""
    speakers = p.conv.speakers
    found = [Candidate(key=str(i), lexical=float(lex[i]) if lex[i] > 0 else None,
                       vector=float(dense[i]) if r.vector else None, entities=frozenset({speakers[p.speaker[i]]}),
                       episode=str(p.session[i]), valid_at=p.dates[i]) for i in candidates]
    named = [s for s, n in zip(speakers, p.named[qi], strict=True) if n]
    weights = Weights(lexical=r.lexical, vector=r.vector, entity=r.speaker, time=r.time, dated=0.0, episode=r.session)
    fused = fuse(found, named=named, in_window=asked.contains if asked.windows else None, weights=weights,
                 limit=depth)
    return [int(f.key) for f in fused]


# -- evaluation ------------------------------------------------------------------------------------------------

def recall_of(p: Prepared, qi: int, ranked: Sequence[int], k: int = 10) -> float:
    evidence = p.conv.questions[qi].evidence
    got = frozenset().union(*(p.conv.sentences[i].evidence for i in ranked[:k]))
    return len(evidence & got) / len(evidence)


def evaluate(prepared: Sequence[Prepared], r: Ranking, k: int = 10) -> dict[str, Any]:
    per_conv: dict[str, list[float]] = {}
    per_cat: dict[str, list[float]] = {}
    for p in prepared:
        for qi, q in enumerate(p.conv.questions):
            value = recall_of(p, qi, rank(p, qi, r), k)
            per_conv.setdefault(p.conv.name, []).append(value)
            per_cat.setdefault(CATEGORIES[q.category], []).append(value)
    every = [v for values in per_conv.values() for v in values]
    return {"recall": round(statistics.fmean(every), 4),
            "conversations": {c: round(statistics.fmean(v), 4) for c, v in per_conv.items()},
            "categories": {c: round(statistics.fmean(v), 4) for c, v in per_cat.items()}}


def grid(base: Ranking, **choices: Iterable[Any]) -> list[Ranking]:
    keys = list(choices)
    return [replace(base, **dict(zip(keys, values, strict=True))) for values in itertools.product(*choices.values())]


def per_conversation(prepared: Sequence[Prepared], candidates: Sequence[Ranking]) -> np.ndarray:
    """Sum of recall@10 over each conversation's questions, per ranking: (rankings, conversations)."""
    return np.array([[sum(recall_of(p, qi, rank(p, qi, r)) for qi in range(len(p.conv.questions)))
                      for p in prepared] for r in candidates])


def best_of(prepared: Sequence[Prepared], candidates: Sequence[Ranking], sums: np.ndarray | None = None
            ) -> tuple[Ranking, float]:
    """The ranking with the best recall@10 over the conversations (the first of equals)."""
    sums = per_conversation(prepared, candidates) if sums is None else sums
    totals = sums.sum(axis=1) / sum(len(p.conv.questions) for p in prepared)
    index = int(np.argmax(totals))
    return candidates[index], round(float(totals[index]), 4)


def cross_validated(prepared: Sequence[Prepared], candidates: Sequence[Ranking], sums: np.ndarray | None = None
                    ) -> dict[str, Any]:
    """Leave one conversation out: the weights chosen on the other four, recall@10 measured on it."""
    sums = per_conversation(prepared, candidates) if sums is None else sums
    counts = np.array([len(p.conv.questions) for p in prepared])
    held: dict[str, float] = {}
    chosen: dict[str, dict[str, Any]] = {}
    for i, p in enumerate(prepared):
        rest = np.delete(sums, i, axis=1).sum(axis=1)
        index = int(np.argmax(rest))
        held[p.conv.name] = round(float(sums[index, i] / counts[i]), 4)
        chosen[p.conv.name] = _weights(candidates[index])
    mean = sum(held[p.conv.name] * len(p.conv.questions) for p in prepared) / counts.sum()
    return {"recall": round(float(mean), 4), "held_out": held, "chosen": chosen}


def _weights(r: Ranking) -> dict[str, Any]:
    return dict(r.__dict__)


# -- the report ------------------------------------------------------------------------------------------------

CHOSEN = Ranking(lexical=0.3, vector=1.0, normalise="max", speaker=0.5, time=1.0, time_leg=True, session=0.5,
                 lexical_depth=50, vector_depth=50, without_names=True)
"""The ranking chosen for recall with an embedder; without one, the same with ``vector=0``."""
WITHOUT_EMBEDDER = replace(CHOSEN, vector=0.0, lexical=1.0)
_ALL = 10_000  # a depth that takes every sentence (the baselines rank them all)


def rows() -> list[tuple[str, Ranking]]:
    """The baselines, the chosen rankings, and the chosen rankings less one signal at a time."""
    plain = Ranking(stemmed=False, lexical_depth=_ALL, vector_depth=_ALL)
    return [
        ("baseline: BM25 (bm25s, no stemming)", replace(plain, vector=0, lexical=1)),
        ("baseline: BM25, Snowball-stemmed", replace(plain, vector=0, lexical=1, stemmed=True)),
        ("baseline: dense MiniLM cosine", replace(plain, lexical=0)),
        ("baseline: RRF of BM25 and dense", replace(plain, normalise="rrf", lexical=1)),
        ("baseline: RRF of stemmed BM25 and dense", replace(plain, normalise="rrf", lexical=1, stemmed=True)),
        ("baseline: z-scored BM25 (0.5) + dense", replace(plain, normalise="z", lexical=0.5)),
        ("chosen, with MiniLM", CHOSEN),
        ("  the same through the library's rules.fusion.fuse", replace(CHOSEN, library=True)),
        ("  less stemming", replace(CHOSEN, stemmed=False)),
        ("  less names left out of the embedded question", replace(CHOSEN, without_names=False)),
        ("  less the entity (speaker) bonus", replace(CHOSEN, speaker=0.0)),
        ("  less the time bonus and the time leg", replace(CHOSEN, time=0.0, time_leg=False)),
        ("  less the time leg (bonus kept)", replace(CHOSEN, time_leg=False)),
        ("  less relative times (last week, yesterday)", replace(CHOSEN, relative_times=False)),
        ("  less the session bonus", replace(CHOSEN, session=0.0)),
        ("  plus the neighbour bonus (0.3)", replace(CHOSEN, neighbour=0.3)),
        ("  less the lexical leg", replace(CHOSEN, lexical=0.0)),
        ("  z-scores instead of scaling by the leg's best", replace(CHOSEN, normalise="z")),
        ("  RRF instead of scaling by the leg's best", replace(CHOSEN, normalise="rrf")),
        ("  depths 20 / 20", replace(CHOSEN, lexical_depth=20, vector_depth=20)),
        ("  depths 100 / 100", replace(CHOSEN, lexical_depth=100, vector_depth=100)),
        ("  signals only: no speaker, time, session bonus", replace(CHOSEN, speaker=0, time=0, time_leg=False,
                                                                     session=0, without_names=False)),
        ("chosen, without an embedder", WITHOUT_EMBEDDER),
        ("  (no embedder) the same through the library's rules.fusion.fuse", replace(WITHOUT_EMBEDDER, library=True)),
        ("  (no embedder) less stemming", replace(WITHOUT_EMBEDDER, stemmed=False)),
        ("  (no embedder) less the entity (speaker) bonus", replace(WITHOUT_EMBEDDER, speaker=0.0)),
        ("  (no embedder) less the time bonus and the time leg", replace(WITHOUT_EMBEDDER, time=0.0, time_leg=False)),
        ("  (no embedder) less the session bonus", replace(WITHOUT_EMBEDDER, session=0.0)),
        ("  (no embedder) signals only: no speaker, time, session bonus",
         replace(WITHOUT_EMBEDDER, speaker=0, time=0, time_leg=False, session=0)),
    ]


def tuning_grid() -> list[Ranking]:
    """The weights the cross-validation chooses among (the chosen ones are in it)."""
    return grid(CHOSEN, lexical=(0.2, 0.3, 0.5), speaker=(0.25, 0.5, 0.75), time=(0.5, 1.0, 1.5),
                session=(0.25, 0.5, 0.75))


def study(prepared: Sequence[Prepared]) -> dict[str, Any]:
    made = rows()
    assert len({name for name, _ in made}) == len(made), "each row needs a name of its own"
    table = {name: evaluate(prepared, r) for name, r in made}
    candidates = tuning_grid()
    sums = per_conversation(prepared, candidates)
    without = [replace(c, vector=0.0, lexical=1.0) for c in candidates if c.lexical == CHOSEN.lexical]
    return {
        "rows": table,
        "chosen": _weights(CHOSEN),
        "cross_validation": {"with MiniLM": cross_validated(prepared, candidates, sums),
                             "without an embedder": cross_validated(prepared, without),
                             "grid": len(candidates), "best on all five": best_of(prepared, candidates, sums)[1]},
        "questions": sum(len(p.conv.questions) for p in prepared),
    }


def markdown(found: dict[str, Any]) -> str:
    names = list(next(iter(found["rows"].values()))["conversations"])
    categories = list(next(iter(found["rows"].values()))["categories"])
    lines = ["| ranking | R@10 | " + " | ".join(categories) + " | " + " | ".join(names) + " |",
             "|---" * (2 + len(categories) + len(names)) + "|"]
    for name, row in found["rows"].items():
        lines.append(f"| {name} | {row['recall']:.3f} | "
                     + " | ".join(f"{row['categories'][c]:.3f}" for c in categories) + " | "
                     + " | ".join(f"{row['conversations'][c]:.3f}" for c in names) + " |")
    cv = found["cross_validation"]
    lines += ["", f"Leave one conversation out ({cv['grid']} weightings): with MiniLM "
              f"{cv['with MiniLM']['recall']:.3f} held out (best on all five {cv['best on all five']:.3f}), "
              f"without an embedder {cv['without an embedder']['recall']:.3f}."]
    for name in ("with MiniLM", "without an embedder"):
        held = cv[name]["held_out"]
        lines.append(f"- {name}: " + ", ".join(f"{c} {v:.3f}" for c, v in held.items()))
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    from synapse_graph.embedders.minilm import MiniLMEmbedder

    parser = argparse.ArgumentParser(prog="python -m benchmarks.locomo.research", description=__doc__)
    parser.add_argument("--data", type=Path, default=None)
    parser.add_argument("--out", type=Path, default=None, help="write the figures (numbers only) to this JSON file")
    args = parser.parse_args(argv)
    embedder = MiniLMEmbedder()
    prepared = [prepare(conv, embedder) for conv in load(data_dir(args.data))]
    found = study(prepared)
    print(markdown(found))
    if args.out:
        args.out.write_text(json.dumps(found, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
