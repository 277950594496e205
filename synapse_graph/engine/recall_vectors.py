"""Recall's cosines in process for a scanned small scope (issue 28, ``docs/recall-design.md``, "The round trips").

A small scope's vector leg is an exact scan, and on Neo4j most of the scan's cost is reading every memory's
embedding from the store (a 384-float array is ~13 records) and the cosines. So a memory keeps, per scope, the
embeddings by its model of the scope's memories, current or expired (by memory id), and sends the cosines of the
question's vector to them (``observation_cosines``, ``fact_cosines``, computed here) with the memories' read; the
statements take a memory's cosine from them (and compute it from the stored embedding only for an id they do not
hold).
Which memories are scanned (current, believed, valid at ``as_of``, recorded by ``known_at``, by the model) stays
the statements', with the rows they return whole: the answer is the one the store gives.

This is a cache verified on every read, not a second store: it is complete for one state of the scope (version
and last write, ``Context.recalled``'s state rows), the state recall reads (or guesses and checks) with its
memories. A recall in another state first reads the embeddings the cache lacks (``recall/memory_embeddings``;
the first recall of a scope reads them all: a one-off), so a new observation or fact is scored like the others;
a forgotten or corrected memory is left out by the statements' own filters; an embedding is written once per
memory and model (``recall/set_embeddings``), so one kept is never stale. When the state changes between that
read and the memories' (a write in between), a memory the cache lacks is scored by the server.
At most :data:`BUDGET` bytes of embeddings across the scopes of one memory (the least recently recalled scopes
are dropped first)"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import TYPE_CHECKING, Any

from synapse_graph.catalogue import Q
from synapse_graph.engine.context import Context
from synapse_graph.engine.io import Op, read

if TYPE_CHECKING:
    import numpy as np

BUDGET = 64 * 2**20
"""Bytes of embeddings (unit vectors of float64) a memory keeps across scopes for :func:`params` (64 MiB: ~21,800
vectors of 384 dimensions, some 20 scopes of 1,000 memories)."""
KINDS = ("observation", "fact")
TOP = 64
"""Observations by cosine a small scope's vector scan is given (``observation_top``) on Neo4j, of which it ranks
the eligible (current, recorded by ``known_at``, by the model) and keeps ``k`` (50): the kept embeddings include
expired memories, so a few more than ``k``; when fewer than ``k`` of them are eligible the caller scans the scope."""


@cache
def _numpy() -> Any:
    """numpy (the ``vector`` extra's), or None without it: then the server computes every cosine (an endpoint
    embedder needs no numpy; the core install imports none)."""
    try:
        import numpy
    except ImportError:
        return None
    return numpy


@dataclass
class _Kept:
    """A scope's embeddings by one model: per kind, the ids and their unit vectors (rows of one matrix)."""

    model: str
    state: Any = None
    """The state rows of the scope the kept embeddings are complete for (None: none yet)."""
    ids: dict[str, list[str]] = field(default_factory=lambda: {k: [] for k in KINDS})
    added: dict[str, list[np.ndarray]] = field(default_factory=lambda: {k: [] for k in KINDS})
    matrix: dict[str, np.ndarray | None] = field(default_factory=lambda: dict.fromkeys(KINDS))
    known: dict[str, set[str]] = field(default_factory=lambda: {k: set() for k in KINDS})
    size: int = 0

    def unit(self, kind: str) -> np.ndarray | None:
        """The kind's unit vectors, one row per id (those added since stacked in once)."""
        if self.added[kind]:
            before = self.matrix[kind]
            vstack = _numpy().vstack
            rows = [vstack(self.added[kind])]
            self.matrix[kind] = vstack(rows if before is None else [before, *rows])
            self.added[kind] = []
        return self.matrix[kind]


def _kept(ctx: Context) -> OrderedDict[str, _Kept]:
    return ctx.vectors


def params(ctx: Context, vector: Sequence[float] | None, *, scanned_small: bool, top: bool = False) -> dict[str, Any]:
    """The parameters of the memories' read that the kept embeddings give: the cosines of ``vector`` to the
    scope's memories kept (by kind, by id), for a small scope scanned with a vector (after :func:`fill`);
    empty maps otherwise (the server computes every cosine). With ``top``, also ``observation_top``: the best
    :data:`TOP` observations kept, their ids by cosine then id (the scan's order), which the scan ranks
    instead of every observation of the scope (None: it scans them all; when the scope's kept observations were
    more, fewer than ``k`` eligible among them calls for a scan: :func:`short`)."""
    out: dict[str, Any] = {"observation_cosines": {}, "fact_cosines": {}}
    if ctx.cosines_in_process:  # the backend's statements take observation_top (None: none given)
        out["observation_top"] = None
    kept = _kept(ctx).get(ctx.scope)
    np = _numpy()
    if (vector is None or not scanned_small or kept is None or kept.model != ctx.embedder or not ctx.cosines_in_process
            or np is None):
        return out
    query = np.asarray(vector, dtype=np.float64)
    norm = float(np.linalg.norm(query))
    if norm == 0.0:
        return out
    query /= norm
    for kind in KINDS:
        unit = kept.unit(kind)
        if unit is not None:
            out[f"{kind}_cosines"] = dict(zip(kept.ids[kind], (unit @ query).tolist(), strict=True))
    given = out["observation_cosines"]
    if top and given:
        out["observation_top"] = sorted(given, key=lambda i: (-given[i], i))[:TOP]
    return out


def short(memories: dict[str, Any], answer: list[dict[str, Any]]) -> bool:
    """Whether the scan given ``observation_top`` (the parameters ``memories``) ranked fewer than ``k``
    observations while the scope's kept ones were more: then the observations are scanned again, all of them."""
    given = memories.get("observation_top")
    return given is not None and len(memories["observation_cosines"]) > len(given) and sum(
        1 for r in answer if r["leg"] == "vector" and r["kind"] == "observation") < memories["k"]


def fill(ctx: Context, state_rows: list[dict[str, Any]], vector: Sequence[float] | None, *,
         scanned_small: bool) -> Op[None]:
    """Reads the embeddings the scope's kept ones lack when its state is not the one they are complete for (a
    small scope scanned with a vector only)."""
    np = _numpy()
    if vector is None or not scanned_small or ctx.embedder is None or not ctx.cosines_in_process or np is None:
        return
    scopes = _kept(ctx)
    kept = scopes.get(ctx.scope)
    if kept is None or kept.model != ctx.embedder:
        scopes[ctx.scope] = kept = _Kept(ctx.embedder)
    scopes.move_to_end(ctx.scope)
    if kept.state == state_rows:
        return
    found = yield from read(Q.MEMORY_EMBEDDINGS, {
        "scope": ctx.scope, "model": ctx.embedder, "observations": dict.fromkeys(kept.ids["observation"], True),
        "facts": dict.fromkeys(kept.ids["fact"], True)})
    for r in found:
        kind = r["kind"]
        if r["embedding"] is None or r["id"] in kept.known[kind]:
            continue
        v = np.asarray(r["embedding"], dtype=np.float64)
        norm = float(np.linalg.norm(v))
        kept.ids[kind].append(r["id"])
        kept.known[kind].add(r["id"])
        kept.added[kind].append((v / norm if norm else v)[None, :])
        kept.size += v.size * 8
    kept.state = state_rows
    _within_budget(scopes, ctx.scope)


def _within_budget(scopes: OrderedDict[str, _Kept], current: str) -> None:
    """Drops the least recently recalled scopes' embeddings (at last the current one's) until within budget."""
    total = sum(k.size for k in scopes.values())
    for scope in [*(s for s in scopes if s != current), current]:
        if total <= BUDGET:
            return
        total -= scopes.pop(scope).size
