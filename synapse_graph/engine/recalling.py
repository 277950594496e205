"""Recall: the memories (facts and observations) that answer a question, from four legs fused (issue 28).

The design and its measurements: ``docs/recall-design.md``. Two requests (one more when the scope holds facts,
one fewer in a later one; reads that do not depend on each other go together: one round trip on FalkorDB, a
pipeline; on Neo4j one statement when each returns its rows collected, else one session, its statements a round
trip each, auto-commit):

1. one statement (``state_and_term_hits``, search's too): the scope's state, whether it holds facts at all and
   how many names each word of the question matches; with an embedder, the question less the words that name an
   entity is embedded next (a name weighs on an embedding more than what is asked about it). A later recall
   guesses this answer from the last one's (and embeds the question less the words it guesses name an entity)
   and checks it first in the next request; when it differs (a write since, a new word naming an entity), the
   question is embedded again if need be and that request sent again (:func:`_same`);
2. the entities the words name (``search_lexical``; in a small scope the first rows of ``memory_lexical``, one
   statement), and one request for the memories: those holding the question's stems (``memory_lexical``; stem
   by stem in a larger scope, ``memory_lexical_each``, or without an embedder engine/recall_statements') with
   their cosines, ranked by BM25 in Python (the lexical leg: the database sends back only the matches that can make
   its cut, with what BM25 needs of them all); the best by cosine (the vector leg) and among those valid in the
   time the question names (the window leg; without an embedder, the lexical leg's best there);
3. the facts around the entities the question names (``recall_expand``, the graph leg), when the scope holds
   facts, with the names of the entities the other legs' observations are about;

then :func:`synapse_graph.rules.fusion.fuse`, ``min_score``, ``limit`` over facts and observations together, and
``max_tokens`` (:func:`synapse_graph.rules.budget.pack`).
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from synapse_graph.catalogue import Q
from synapse_graph.engine import embeddings, recall_statements, rows
from synapse_graph.engine import recall_memo as memo
from synapse_graph.engine import recall_vectors as vectors
from synapse_graph.engine.context import Context
from synapse_graph.engine.io import Op, Read, embed, read, read_each, read_rows
from synapse_graph.engine.recall import (
    entries_of,
    expand_read,
    matched_words,
    ranked,
    search_read,
    split_counted,
    state_and_terms,
)
from synapse_graph.engine.recall_found import Found, by_score, key_of, said
from synapse_graph.engine.scope import state_of
from synapse_graph.instants import MAX_MICROS, MIN_MICROS, Instant, from_datetime, to_datetime
from synapse_graph.models import EntryEntity, Recall, RecalledFact, RecalledObservation, RecallReason, RecallUsage
from synapse_graph.rules.asked_time import AskedTime, asked_time
from synapse_graph.rules.budget import approx_tokens, pack
from synapse_graph.rules.distinct import past_belief_once
from synapse_graph.rules.fusion import Fused, Weights, fuse
from synapse_graph.rules.recall import content_terms, scope_token, term_matches, words
from synapse_graph.rules.stems import Matches, bm25, matched, term_stems
from synapse_graph.rules.timeparse import now_micros

SMALL_SCOPE = 1_000
"""A scope holding fewer memories than this is searched for all the question's stems at once, every match
read (``memory_lexical``); a larger one stem by stem, :data:`POOL` matches of each at most
(``memory_lexical_each``), so a stem most memories hold costs no pass over them all."""
POOL = 200
"""Memories of each kind the full-text leg keeps per stem of the question in a larger scope: of those holding
it, the shortest, then by what they say (``cypher/fragments/stem_pools``); BM25 scores them here (FalkorDB's
full-text score is not BM25)."""
COMMON = 2
"""In a larger scope, a stem held by more than this many times :data:`POOL` memories of a kind is common: none
of the memories it finds is kept (the index gives the first it yields, in an order of its own that writes
changing no memory and imports change: keeping any of them made the answer depend on it, issue 28), BM25
counts it as held by that many, and the memories holding two common stems are asked for together. Knowing a
stem is common costs reading that many of its matches (2 x 200: recall of the harness's row A at 100,000
writes 0.73x main's p50; 4 x 200: 1.25x; sorting every match: 2.9x)."""
DEPTH = 50
"""Memories each leg keeps (the vector and window legs read as many)."""
OVERSAMPLE = 4
"""The vector leg asks the vector indexes, which span every scope, for this many times :data:`DEPTH` memories of
each kind, and keeps the scope's (scanning the scope when too few of them came back)."""
INDEXED_FROM = SMALL_SCOPE
"""A scope holding at least this many memories (believed records and observations) asks the vector indexes for
its vector leg; a smaller one is scanned, in the same statement: a scan of a few hundred memories costs about what
the indexes' answer does, and a small scope beside large ones of similar topics is crowded out of that answer
(then it paid the indexes, a second round trip and the scan: p95 288 -> 456 ms on Neo4j beside a 20,000-memory
scope, benchmarks/results/2026-12-06-2cpu-24g-locomo-vector-index-side-by-side-neo4j-crowded-by-20k-scope.json)."""
NAMING_HITS = 3
"""A word of the question that matches the names of at most this many entities names them: it is left out
of the question the vector leg embeds (a word many names share is left in)."""
NAMED_SHARE = 0.5
"""An entry entity is one the question names when its name holds a word of it and its BM25 score is at least
this share of the best entry's."""
WITHOUT_EMBEDDER = Weights(lexical=1.0, vector=0.0)
"""Without an embedder the lexical leg ranks alone (with the same bonuses, and the graph leg for facts)."""


@dataclass
class _Question:
    """A question as recall reads it."""

    text: str
    terms: list[str]
    stems: list[str]
    at: Instant
    """The instant facts are read at (``as_of``, or now by the scope's clock)."""
    known_at: Instant | None
    asked: AskedTime
    hops: int


@dataclass(frozen=True)
class _Chosen:
    """The memories to return, best first, with the share of the question each answers."""

    keys: list[str]
    fused: list[Fused]
    scores: list[float]
    abstained: str | None = None


def recall(ctx: Context, query: str, *, as_of: Instant | None, known_at: Instant | None, hops: int, limit: int,
           legs: list[str], min_score: float | None = None, max_tokens: int | None = None,
           reference_time: Instant | None = None) -> Op[Recall]:
    """The memories that answer a question, most relevant first (see the module's docstring)."""
    started = time.perf_counter()
    terms = content_terms(query)
    if not terms:  # the gate: small talk never touches the database
        now = Instant(now_micros())
        return Recall(query=query, as_of=to_datetime(now if as_of is None else as_of), legs=legs,
                      skipped="no content words (empty question or small talk)",
                      usage=RecallUsage(items=0, tokens=0, ms=_ms(started)))
    # The scope's state and the words' name hits as the last recall read them, checked with the memories (with an
    # embedder the check follows the embedding: on Neo4j one statement with the memories' read, one round trip
    # less; docs/recall-design.md "The round trips").
    first = memo.guessed(ctx, terms)
    checked = first is None  # a guess is read again with the memories, in their round trip, and compared
    if first is None:
        first = split_counted((yield from read_rows(state_and_terms(ctx, terms))))
    passes = 0
    while True:  # twice at most: a wrong guess is replaced by what was read with it (no embedding to redo)
        state_rows, counted = first
        state = state_of(state_rows)
        embeddings.check(ctx, state)
        # The instant the facts are read at: now by the scope's clock, never before its last write
        # (as cypher/fragments/read_clock.cypher takes it), so the answer names when its facts hold.
        at = as_of if as_of is not None else Instant(max(now_micros(), state.updated_at))
        if state.version == 0:  # never written (a session's scope before its first offload): nothing to find
            return Recall(query=query, as_of=to_datetime(at), legs=legs, skipped="the scope holds no memories yet",
                          usage=RecallUsage(items=0, tokens=0, ms=_ms(started)))
        reference = to_datetime(reference_time if reference_time is not None else at)
        question = _Question(query, terms, term_stems(terms), at, known_at, asked_time(query, reference), hops)
        window = _window(question.asked)
        hits = memo.hits_of(counted)
        vector = None
        naming = _naming(terms, hits)
        if ctx.embedder is not None:
            [vector] = yield from embed((_without(query, naming) or query,))
        small = state.facts < SMALL_SCOPE  # believed records and observations: at most this many match
        scanned = state.facts < INDEXED_FROM or not ctx.indexed  # the vector leg by a scan (INDEXED_FROM)
        corpus_size = max(state.facts, 1)
        searched = search_read(ctx, terms, hits)
        yield from vectors.fill(ctx, state_rows, vector, scanned_small=small and scanned)
        memories = {
            "scope": ctx.scope, "scope_token": scope_token(ctx.scope), "stems": question.stems,
            "index": {s: i for i, s in enumerate(question.stems)}, "corpus": corpus_size,
            "pool": SMALL_SCOPE if small else POOL, "as_of": at, "known_at": known_at, "vector": vector,
            "model": ctx.embedder, "k": DEPTH, "fetch": 0 if scanned else DEPTH * OVERSAMPLE,
            "kinds": ["fact", "observation"] if scanned and vector is not None else [],
            "start": None if window is None else window[0], "end": None if window is None else window[1],
            **vectors.params(ctx, vector, scanned_small=small and scanned, top=passes < 2),
            **({} if small else memo.known_common(ctx, state_rows, question))}
        # checked again with the memories when the scan is given the best cosines (a memory written since the
        # kept embeddings were read would be missing from them; the second time it is scanned, all of it)
        check = None if checked and memories.get("observation_top") is None else state_and_terms(ctx, terms)
        passes += 1
        read_again, names, legged = yield from _memories_read(check, searched, memories, small=small)
        if check is None or memo.same(first, again := split_counted(read_again)):
            break
        if not small and again[0] == first[0] and (vector is None or _naming(terms, memo.hits_of(again[1])) == naming):
            # the same state, other name hits (and the same text embedded): the memories read stand (they depend
            # on the state and the vector, not the hits); the names are read again
            first = again
            searched = search_read(ctx, terms, memo.hits_of(again[1]))
            names = yield from read(searched.name, searched.params)
            break
        first, checked = again, True  # the guess was wrong: again with what was read, the memories read again
    memo.remember(ctx, terms, first)
    memo.remember_common(ctx, first[0], question, memories, legged)
    entries = entries_of(terms, names, corpus_size=state.entities)
    named = _named(entries, terms)
    found = Found(names={e.key: e.name for e in entries})
    _lexical(found, [r for r in legged if r["leg"] == "lexical"], question, corpus_size=corpus_size,
             window=window if ctx.embedder is None else None)
    short = _vectors(found, [r for r in legged if r["leg"] not in ("lexical", "names")])
    if vectors.short(memories, legged):  # too few of the best cosines given were eligible: the scope scanned
        short.add("observation")
    if vector is not None and short:  # the indexes' answer was crowded by other scopes': a scan of the scope's
        _vectors(found, (yield from read(Q.MEMORY_VECTOR_SCAN, {
            "scope": ctx.scope, "kinds": sorted(short), "as_of": at,
            "known_at": known_at, "vector": vector, "model": ctx.embedder, "k": DEPTH,
            **vectors.params(ctx, vector, scanned_small=small and scanned)})))
    if entries and state_rows[0]["facts"] > 0:  # the graph leg, and the names of what the other legs found
        around, known = yield from read_each(
            expand_read(ctx, entries, hops=hops, as_of=at, known_at=known_at, limit=limit, vector=vector),
            _names_read(ctx, found, found.rows))
        found.names.update({r["key"]: r["name"] for r in known})
        _graph(found, around, entries, question)
    chosen = _fused(found, question, named, limit=limit, min_score=min_score, vectors=vector is not None)
    missing = [k for k in chosen.keys if k.startswith("o:") and found.rows[k][1]["entity_key"] not in found.names]
    facts = [found.rows[k][1]["id"] for k in chosen.keys if k.startswith("f:")]
    if missing or facts:  # what replaced each fact chosen and what it replaced; the names observations lack
        linked, known = yield from read_each(
            Read(Q.LINKS_OF, {"scope": ctx.scope, "ids": facts, "known_at": known_at, "candidate": "candidate"})
            if facts else None,
            _names_read(ctx, found, missing))
        found.links.update({f"f:{r['id']}": r["links"] for r in linked})
        found.names.update({r["key"]: r["name"] for r in known})
    return _answer(found, chosen, question, entries, named, legs=legs, max_tokens=max_tokens, started=started)


# -- the question --------------------------------------------------------------------------------------------


def _window(asked: AskedTime) -> tuple[Instant, Instant] | None:
    """The time the question names as instants (open ends as the first and last instants), or None."""
    span = asked.span()
    if span is None:
        return None
    start, end = span
    return (Instant(MIN_MICROS) if start is None else Instant(from_datetime(start)),
            Instant(MAX_MICROS) if end is None else Instant(from_datetime(end)))


def _named(entries: Sequence[EntryEntity], terms: Sequence[str]) -> set[str]:
    """The entry entities the question names: their name holds a word of it, and they matched it strongly."""
    best = max((e.lexical_score or 0.0 for e in entries), default=0.0)
    return {e.key for e in entries
            if best > 0 and (e.lexical_score or 0.0) >= NAMED_SHARE * best and term_matches(e.name, terms)}


_TOKEN = re.compile(r"[^\W_]+(?:['’][sS])?")


def _without(query: str, naming: Sequence[str]) -> str:
    """The question without the words that name an entity: what is left to match the memories' meaning ("What
    did Caroline research?" embedded whole is near every sentence about Caroline; without her name, near the
    sentences about research: 0.657 -> 0.686 at recall@10 on LoCoMo)."""
    dropped = set(naming)
    if not dropped:
        return query
    kept = _TOKEN.sub(lambda m: "" if (parts := words(m.group())) and set(parts) <= dropped else m.group(), query)
    return re.sub(r"\s+", " ", kept).strip()


def _naming(terms: Sequence[str], hits: Mapping[str, int]) -> list[str]:
    """The words of the question that name an entity (left out of what is embedded)."""
    return [t for t in terms if 0 < hits.get(t, 0) <= NAMING_HITS]


def _memories_read(check: Read | None, searched: Read, memories: dict[str, Any], *,
                   small: bool) -> Op[tuple[list[dict[str, Any]], list[dict[str, Any]], list[dict[str, Any]]]]:
    """The round trip of the memories: the rows of ``check`` (a read of ``state_and_terms`` when its answer
    was guessed, first in the same round trip), the entities the words name, and the memories' legs."""
    if small:  # the names and the memories in one statement: its first rows are search_lexical's (leg 'names')
        lexical = Read(Q.MEMORY_LEXICAL, {**searched.params, **memories}) if memories["fetch"] else Read(
            Q.MEMORY_LEXICAL_SCANNED, {**searched.params, **{k: v for k, v in memories.items() if k != "fetch"}})
        checked, legged = (yield from read_each(check, lexical)) if check is not None else (
            [], (yield from read(lexical.name, lexical.params)))
        return checked, [{"found": r["memory"]} for r in legged if r["leg"] == "names"], legged
    each = recall_statements.memories_read(memories, cap=COMMON * POOL + 1)  # without a vector, the lexical leg alone
    checked, names, legged = yield from read_each(  # each stem's first matches as the index yields them, at most cap
        check, searched, each)
    return checked, names, legged


# -- the legs ------------------------------------------------------------------------------------------------


def _lexical(found: Found, lexical: list[dict[str, Any]], question: _Question, *, corpus_size: int,
             window: tuple[Instant, Instant] | None) -> None:
    """The lexical leg's candidates (and, given a ``window``, the window leg's: those valid in it) by BM25 of
    their stems, the best :data:`DEPTH` of each, with the cosines the read computed. The read sends back the
    matches that can make the cut, and what BM25 needs of every match (``cypher/fragments/lexical_cut``)."""
    if not lexical:
        return
    read = lexical[0]["memory"]
    pool = {key_of(m["kind"], m["memory"]): m for m in read["memories"]}
    matches = Matches(int(read["documents"]), int(read["length"]),
                      dict(zip(question.stems, (int(f) for f in read["frequency"]), strict=True)))
    docs = {key: (m["stems"] or "").split() for key, m in pool.items()}
    scores = bm25(question.stems, docs, corpus_size=corpus_size, matches=matches)
    ties: dict[str, str] = {}  # what the memories that tie say, kept for fusion's candidates

    def tie(key: str) -> str:
        if key not in ties:
            ties[key] = said(pool[key]["kind"], pool[key]["memory"])
        return ties[key]
    best = by_score(scores, tie)
    legs = [("lexical", best[:DEPTH])]
    if window is not None:
        legs.append(("window", [(k, s) for k, s in best
                                if _within(pool[k]["memory"].get("valid_at"), window)][:DEPTH]))
    for leg, chosen in legs:
        for key, score in chosen:
            m = pool[key]
            cosine = None if m["cosine"] is None else float(m["cosine"])
            found.add(key, leg, m["kind"], m["memory"], docs[key], lexical=score, vector=cosine, tie=ties.get(key))


def _within(instant: int | None, window: tuple[Instant, Instant]) -> bool:
    return instant is not None and window[0] <= instant < window[1]


def _vectors(found: Found, answer: list[dict[str, Any]]) -> set[str]:
    """The vector or window leg's memories, whole, with their cosines; returns the kinds of memory the vector
    indexes' answer held too few of the scope's of (rows of leg ``short``: other scopes' crowded it), which the
    caller reads by a scan."""
    short: set[str] = set()
    for r in answer:
        if r["leg"] == "short":
            short.add(r["kind"])
        else:
            found.add(key_of(r["kind"], r["memory"]), r["leg"], r["kind"], r["memory"], r["stems"],
                      vector=float(r["cosine"]))
    return short


def _graph(found: Found, answer: list[dict[str, Any]], entries: Sequence[EntryEntity], question: _Question) -> None:
    """The graph leg: facts around the named entities, scored by their relevance through them."""
    by_id = {r["fact"]["id"]: r for r in answer}
    for fact in ranked(answer, entries, hops=question.hops, known_at=question.known_at, limit=len(answer),
                       terms=question.terms):
        r = by_id[fact.id]
        key = key_of("fact", r["fact"])
        found.graph[key] = fact
        found.add(key, "graph", "fact", r["fact"], r["stems"], graph=fact.relevance,
                  vector=None if r["cosine"] is None else float(r["cosine"]))


def _names_read(ctx: Context, found: Found, keys: Iterable[str]) -> Read | None:
    """The names of the entities of observations (by key) whose names no leg read (None: none is missing)."""
    missing = sorted({found.rows[k][1]["entity_key"] for k in keys if k.startswith("o:")} - found.names.keys())
    return Read(Q.ENTITY_NAMES, {"scope": ctx.scope, "keys": missing}) if missing else None


# -- the answer ------------------------------------------------------------------------------------------------


def _fused(found: Found, question: _Question, named: set[str], *, limit: int, min_score: float | None,
           vectors: bool) -> _Chosen:
    """The fused ranking, cut by ``min_score`` and ``limit``."""
    asked = question.asked
    fused = fuse(found.candidates(), named=named, in_window=asked.contains if asked.windows else None,
                 overlaps=asked.overlaps if asked.windows else None, asks_when=asked.asks_when,
                 weights=Weights() if vectors else WITHOUT_EMBEDDER,
                 limit=limit if min_score is None else None)  # min_score scores them all
    if min_score is None:
        kept = [(f, _score(found, f.key, question)) for f in fused[:limit]]
        return _Chosen([f.key for f, _ in kept], [f for f, _ in kept], [s for _, s in kept])
    scored = [(f, _score(found, f.key, question)) for f in fused]
    kept = [(f, s) for f, s in scored if s >= min_score][:limit]
    abstained = None if kept or not scored else (
        f"no memory answers at least {min_score:g} of the question (the best answers "
        f"{max(s for _, s in scored):.2f})")
    return _Chosen([f.key for f, _ in kept], [f for f, _ in kept], [s for _, s in kept], abstained)


def _answer(found: Found, chosen: _Chosen, question: _Question, entries: list[EntryEntity], named: set[str], *,
            legs: list[str], max_tokens: int | None, started: float) -> Recall:
    """The chosen memories, within ``max_tokens``, as a :class:`Recall`."""
    names = {e.key: e.name for e in entries}
    memories = _once([_memory(f, score, found, question, names, named, rank)
                      for rank, (f, score) in enumerate(zip(chosen.fused, chosen.scores, strict=True), start=1)],
                     question.known_at)
    costs = [approx_tokens(str(m)) for m in memories]
    left_out = 0
    ranked_memories = memories
    if max_tokens is not None:
        packed = pack(list(range(len(memories))), max_tokens, lambda i: costs[i])
        costs, left_out = [costs[i] for i in packed.kept], packed.left_out
        ranked_memories = [memories[i].model_copy(update={"rank": rank}) for rank, i in enumerate(packed.kept, 1)]
    return Recall(
        query=question.text, as_of=to_datetime(question.at), legs=legs, entities=entries,
        abstained=chosen.abstained, facts=[m for m in ranked_memories if isinstance(m, RecalledFact)],
        observations=[m for m in ranked_memories if isinstance(m, RecalledObservation)],
        usage=RecallUsage(items=len(ranked_memories), tokens=sum(costs), ms=_ms(started), left_out=left_out))


def _once(memories: list[RecalledFact | RecalledObservation],
          known_at: Instant | None) -> list[RecalledFact | RecalledObservation]:
    """The memories with a past belief's records of one fact read once: as believed before an alias merge, the
    merged entity's records are found beside its target's (rules/distinct.py); the united facts take the places
    of the facts, in order, and the ranks follow."""
    if known_at is None:  # the current belief holds one record of a fact whose intervals meet (writes unite them)
        return memories
    facts = [m for m in memories if isinstance(m, RecalledFact)]
    united = past_belief_once(facts, known_at)
    if len(united) == len(facts):
        return memories
    left = iter(united)
    kept = [m if isinstance(m, RecalledObservation) else next(left, None) for m in memories]
    return [m.model_copy(update={"rank": rank}) for rank, m in enumerate((m for m in kept if m is not None), start=1)]


def _score(found: Found, key: str, question: _Question) -> float:
    """The share of the question a memory answers (``min_score`` compares it): for a fact, the share of the
    question's words its names, types and predicate (or its entry entity) match; for an observation, the share
    of the question's stems it, or its entity's name, holds."""
    kind, memory, stems = found.rows[key]
    if kind == "fact":
        through = found.graph.get(key)
        if through is not None:
            return through.score
        return round(len(matched_words(memory, "", question.terms)) / len(question.terms), 6) if question.terms else 1.0
    if not question.stems:
        return 1.0
    held = set(matched(stems, question.stems)) | _name_stems(found.names.get(memory["entity_key"], ""),
                                                           tuple(question.terms))
    return round(len(held & set(question.stems)) / len(question.stems), 6)


@lru_cache(maxsize=1024)
def _name_stems(name: str, terms: tuple[str, ...]) -> frozenset[str]:
    return frozenset(term_stems(term_matches(name, terms)))


def _memory(fused: Fused, score: float, found: Found, question: _Question, names: Mapping[str, str],
            named: set[str], rank: int) -> RecalledFact | RecalledObservation:
    kind, memory, stems = found.rows[fused.key]
    seen = found.seen[fused.key]
    about = sorted(seen.entities & named)
    why = RecallReason(legs=sorted(seen.legs), words=matched(stems, question.stems),
                       entity=names.get(about[0]) if about else None, lexical=seen.lexical, vector=seen.vector,
                       graph=seen.graph, entity_bonus=fused.entity, time_bonus=fused.time,
                       episode_bonus=round(fused.episode, 6))
    relevance = round(fused.score, 9)
    if kind == "observation":
        whole = {**memory, "entity": found.names.get(memory["entity_key"], memory["entity_key"])}
        return rows.recalled_observation(whole, relevance=relevance, score=score, rank=rank, why=why)
    through = found.graph.get(fused.key)
    if through is None:
        through = rows.recalled(memory, hop=0, entry=None, relevance=relevance, score=score, rank=rank, why=why,
                                words=matched_words(memory, "", question.terms))
    return through.model_copy(update={"relevance": relevance, "why": why, "rank": rank,
                                      **rows.linked(through.valid_at, through.invalid_at,
                                                    found.links.get(fused.key, []))})


def _ms(started: float) -> float:
    return round((time.perf_counter() - started) * 1000, 2)
