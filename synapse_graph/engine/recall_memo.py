"""What a memory keeps between recalls of a scope, while the scope's state is the same (issue 28, the round
trips in ``docs/recall-design.md``): the words' name hits, so a later recall guesses its first round trip and
checks it with the memories; and in a larger scope the full-text calls known to reach their cap (a common
stem), so they are not made again."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from synapse_graph.engine.context import Context
from synapse_graph.instants import Instant

REMEMBERED = (16, 1_000)
"""Scopes whose state, and words of each whose name hits, a context keeps for its next recall (:func:`remember`)."""


class Asked(Protocol):
    """What the known calls depend on in a question: its stems, the instant it is read at, ``known_at``."""

    @property
    def stems(self) -> list[str]: ...
    @property
    def at(self) -> Instant: ...
    @property
    def known_at(self) -> Instant | None: ...


def guessed(ctx: Context, terms: Sequence[str]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]] | None:
    """The rows of ``state_and_terms`` as the scope's last recall read them (a word it did not ask about
    guessed to name nothing), or None when no recall of this context read the scope yet."""
    known = ctx.recalled.get(ctx.scope)
    if known is None:
        return None
    state_rows, hits = known
    return state_rows, [{"state": None, "facts": None, "term": t, "hits": hits[t]} for t in terms if hits.get(t)]


def same(guess: tuple[list[dict[str, Any]], list[dict[str, Any]]],
         read_again: tuple[list[dict[str, Any]], list[dict[str, Any]]]) -> bool:
    """Whether guessed rows of ``state_and_terms`` are what it reads now: the same state, the same hits."""
    return guess[0] == read_again[0] and hits_of(guess[1]) == hits_of(read_again[1])


def hits_of(counted: list[dict[str, Any]]) -> dict[str, int]:
    """How many names each word matches, by word (a word matching none left out, as absent)."""
    return {r["term"]: int(r["hits"]) for r in counted if int(r["hits"]) > 0}


def remember(ctx: Context, terms: Sequence[str], read_: tuple[list[dict[str, Any]], list[dict[str, Any]]]) -> None:
    """Keeps what ``state_and_terms`` read for the scope's next recall: the words' hits while the state is the
    same (at most :data:`REMEMBERED`)."""
    state_rows, counted = read_
    known = ctx.recalled.get(ctx.scope)
    hits = dict(known[1]) if known is not None and known[0] == state_rows and len(known[1]) < REMEMBERED[1] else {}
    hits.update(dict.fromkeys(terms, 0) | hits_of(counted))
    if ctx.scope not in ctx.recalled and len(ctx.recalled) >= REMEMBERED[0]:
        ctx.recalled.clear()
    ctx.recalled[ctx.scope] = (state_rows, hits)


def _slots(stems: Sequence[str]) -> list[str]:
    """What memory_lexical_each asks the full-text indexes for stem by stem: each of the first eight stems, then
    the others together ("a | b | ...")."""
    return [*stems[:8], *([" | ".join(stems[8:])] if len(stems) > 8 else [])]


def known_common(ctx: Context, state_rows: list[dict[str, Any]], question: Asked) -> dict[str, Any]:
    """The parameters of memory_lexical_each naming its calls known to reach their cap (``$cap`` matches,
    none kept), or, for observations, to find none: read while the scope had this state, at an instant no later
    than the question's, every match they counted lasting (an observation: none depends on the instant; a fact
    record never closed: valid from before that instant on), so the same holds now; never with ``known_at``.
    Such a call is not made again: one reaching its cap counts as ``$cap`` matches found, none kept
    (``known_stems``/``known_kinds`` give the rows of its slots), one finding none as before (no row)."""
    known = ctx.common.get(ctx.scope)
    usable: set[tuple[str, str]] = set()
    if known is not None and question.known_at is None and known[0] == state_rows:
        usable = {call for call, since in known[1].items() if since <= question.at}
    asked = _slots(question.stems)
    slots = [(t, kind) for t in asked for kind in ("observation", "fact") if (t, kind) in usable]
    return {"slots": asked, "known_observation": sorted(t for t, kind in usable if kind != "fact"),
            "capped_observation": sorted(t for t, kind in usable if kind == "observation"),
            "known_fact": sorted(t for t, kind in usable if kind == "fact"),
            "known_stems": [t for t, _ in slots], "known_kinds": [kind for _, kind in slots]}


def all_common(stems: Sequence[str], known: Mapping[str, Any]) -> bool:
    """Whether every call of memory_lexical_each is known to keep nothing (:func:`known_common`): each stem
    slot's fact records reach their cap and its observations reach it or are none, and so do the pairs of its
    common stems (as the statement joins them): its lexical leg is empty (without a vector it reads nothing
    else)."""
    slots = known["slots"]
    if not slots or any(t not in known["known_observation"] or t not in known["known_fact"] for t in slots):
        return False
    common = [x for x in stems if x in slots]
    pairs = " | ".join(f"({a} {b})" for i, a in enumerate(common) for b in common[i + 1:])
    return pairs == "" or (pairs in known["known_observation"] and pairs in known["known_fact"])


def remember_common(ctx: Context, state_rows: list[dict[str, Any]], question: Asked,
                     memories: Mapping[str, Any], legged: list[dict[str, Any]]) -> None:
    """Keeps the calls memory_lexical_each found reaching their cap with lasting matches (its lexical row's
    ``capped``), while the scope's state is the same (at most :data:`REMEMBERED` scopes and calls)."""
    if question.known_at is not None:
        return
    capped = next((r["memory"].get("capped") for r in legged if r["leg"] == "lexical"), None)
    if not capped:
        return
    known = ctx.common.get(ctx.scope)
    calls: dict[tuple[str, str], int] = (
        dict(known[1]) if known is not None and known[0] == state_rows and len(known[1]) < REMEMBERED[1] else {})
    for t, kind in capped:
        calls.setdefault((t, kind), memories["as_of"])
    if ctx.scope not in ctx.common and len(ctx.common) >= REMEMBERED[0]:
        ctx.common.clear()
    ctx.common[ctx.scope] = (state_rows, calls)
