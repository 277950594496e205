"""Embeddings of what a scope holds: entity names and memories (observations; facts as sentences).

They are computed by the memory's embedder when they are written, in one batch per write, and stored under
the embedder's model name; the scope records its embedder (model and dimension) the first time, and refuses
another one (:class:`~synapse_graph.errors.EmbedderMismatchError`) until :func:`backfill` has embedded the
scope again with it (``Memory.reindex_embeddings``, ``synapse-graph reembed``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from synapse_graph.catalogue import Q
from synapse_graph.engine.context import Context
from synapse_graph.engine.io import Op, embed, read, write
from synapse_graph.engine.scope import STORE_FORMAT, ScopeState
from synapse_graph.errors import EmbedderMismatchError
from synapse_graph.instants import Instant
from synapse_graph.rules.stems import fact_sentence
from synapse_graph.rules.timeline import Record
from synapse_graph.rules.timeparse import now_micros


def check(ctx: Context, state: ScopeState) -> None:
    """Refuse a memory whose embedder is not the one whose vectors the scope holds."""
    if ctx.embedder is None or state.embedder is None:
        return
    if state.embedder != ctx.embedder or (state.dimensions is not None and state.dimensions != ctx.dimensions):
        raise EmbedderMismatchError(
            f"scope {ctx.scope!r} holds vectors of the embedder {state.embedder!r} ({state.dimensions} dimensions), "
            f"not of {ctx.embedder!r} ({ctx.dimensions} dimensions): open it with that embedder, or without one; "
            "or embed the scope again with this one (Memory.reindex_embeddings(), or `synapse-graph reembed`), "
            "after which it records this one")


def store(ctx: Context, *, entities: Sequence[dict[str, Any]] = (), observations: Sequence[dict[str, Any]] = (),
          facts: Sequence[Record] = (), spoken: Mapping[str, str] | None = None, last: bool = True) -> Op[None]:
    """Embed entity names (rows with ``key`` and ``name``), observations (``id``, ``text``) and fact records (their
    sentences, their entities as ``spoken`` names them, else by key) with the memory's embedder, in one batch,
    and store the vectors (nothing without an embedder)."""
    if ctx.embedder is None:  # nothing to embed: the sentences of a batch's facts are not even made
        return
    said = spoken or {}
    rows = [("entities", e["key"], e["name"]) for e in entities]
    rows += [("observations", o["id"], o["text"]) for o in observations]
    rows += [("facts", r.id, fact_sentence(said.get(r.subject, r.subject), r.predicate, said.get(r.object, r.object)))
             for r in facts]
    yield from _embedded(ctx, rows, last=last)


def _embedded(ctx: Context, rows: list[tuple[str, str, str]], *, last: bool, record: bool = False) -> Op[None]:
    """Embed the rows' texts and store the vectors (``record``: record the scope's embedder, even with none)."""
    if ctx.embedder is None or not (rows or record):
        return
    texts = list(dict.fromkeys(text for _, _, text in rows))  # a fact recorded again embeds the same sentence
    vectors = dict(zip(texts, (yield from embed(tuple(texts))), strict=True)) if texts else {}
    params: dict[str, Any] = {"scope": ctx.scope, "model": ctx.embedder, "dimensions": ctx.dimensions,
                              "now": Instant(now_micros()), "format": STORE_FORMAT,
                              "entities": [], "observations": [], "facts": []}
    for kind, key, text in rows:
        params[kind].append({"key" if kind == "entities" else "id": key, "vector": vectors[text]})
    yield from write(Q.SET_EMBEDDINGS, params, last=last)


def backfill(ctx: Context, batch_size: int) -> Op[int]:
    """Embed, a batch at a time, whatever in the scope lacks a vector from the memory's embedder (entity names,
    current observations and fact records), and record it as the scope's embedder; returns how many."""
    done = 0
    while found := (yield from read(Q.MISSING_EMBEDDINGS, {"scope": ctx.scope, "model": ctx.embedder,
                                                      "limit": batch_size})):
        rows = [("entities" if r["kind"] == "entity" else r["kind"] + "s", r["id"],
                 r["text"] if r["kind"] != "fact" else fact_sentence(r["text"], r["predicate"], r["object"]))
                for r in found]
        yield from _embedded(ctx, rows, last=False)
        done += len(found)
    if done == 0:  # nothing to embed: the scope's embedder is recorded all the same
        yield from _embedded(ctx, [], last=False, record=True)
    return done
