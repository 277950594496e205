"""Store formats: a scope written by an older version is brought up to date once, when it is opened."""

from __future__ import annotations

from synapse_graph.catalogue import Q
from synapse_graph.engine.context import Context
from synapse_graph.engine.io import Op, read, write
from synapse_graph.engine.scope import STORE_FORMAT, ScopeState
from synapse_graph.errors import NewerStoreFormatError
from synapse_graph.instants import Instant
from synapse_graph.rules.grams import grams
from synapse_graph.rules.growth import Changes
from synapse_graph.rules.recall import scope_token
from synapse_graph.rules.slots import SIDE_SLOTS_FORMAT, SLOT_FORMAT, fact_slot, object_slot, predicate_slot
from synapse_graph.rules.stems import fact_search_text, search_stems
from synapse_graph.rules.timeparse import now_micros

SCOPE_TOKEN_FORMAT = 4
STEMS_FORMAT = 6
COUNTED_FORMAT = 8
RECORD_COUNTS_FORMAT = 9
GROWTH_FORMAT = 10
GRAMS_FORMAT = 11
COUNTED_ON_ITSELF_FORMAT = 12
RECORD_KEYS_FORMAT = 13
HISTORY_TOKEN_FORMAT = 14
MEMORY_TOKEN_FORMAT = 15
PAGE = 5_000
KEY_PAGE = 10_000
"""Entities a page of store format 13's keys covers (with their records: ~46,000 at 1M facts). FalkorDB sorts the
scope's entities by key for each page (0.86 s at 216k entities): fewer, larger pages."""
TOKEN_PAGE = 100_000
"""Memories of each kind a statement of store format 15's upgrade gives their search token."""


def needed(state: ScopeState) -> bool:
    """True if the scope holds data in a format older than this version writes.

    Raises ``NewerStoreFormatError`` for a format newer than this version knows: it would write
    records that version's reads cannot find (e.g. entities without the scope's search token)."""
    if (state.format or 0) > STORE_FORMAT:
        raise NewerStoreFormatError(
            f"this scope is in store format {state.format}, written by a newer synapse-graph; this version "
            f"knows formats up to {STORE_FORMAT}: upgrade synapse-graph (pip install -U synapse-graph)")
    return state.version > 0 and (state.format or 0) < STORE_FORMAT


def upgrade(ctx: Context, state: ScopeState) -> Op[None]:
    """Format 2: give every fact its slot. Format 3: count candidates apart from believed facts.
    Format 4: give entities, aliases and live observations the scope's search token. Format 5: move the
    scope's state from its node to its STATE relationship (with the recount every upgrade ends with).
    Format 6: store the stems of observations and fact records (their search text). Format 7: give every fact
    its object's and its predicate's slots. Format 8: mark the records ahead (their validity starts or ends after
    they were recorded) and count expired and ended records (the recount; observations count with the facts,
    as writes count them). Format 9: count each entity's fact records (``records``, which the digest ranks by).
    Format 10: count the scope's growth per slice of recorded time (rules/growth.py).
    Format 11: store the grams of entities, aliases and observations (the substring index: rules/grams.py).
    Format 12: move each entity's count of records from its node to a COUNTED relationship of it to itself
    (fragments/count_records). Format 13: give every fact record its ends' exact keys (`starts`, `ends`: its slot
    and instants as text), which fragments/links seeks. Format 14: give the expired observations and fact records the
    scope's history token (Neo4j: recall as believed at an earlier time finds them by it). Format 15: give the
    observations and fact records the scope's search token, or its history token once expired (FalkorDB: their
    fulltext indexes hold it, so a search of memories keeps to the scope inside the index)."""
    if not needed(state):
        return
    if (state.format or 0) < SLOT_FORMAT:
        while found := (yield from read(Q.SLOTLESS_FACTS, {"scope": ctx.scope, "limit": 5_000})):
            slots = [{"id": r["id"], "slot": fact_slot(ctx.scope, r["subject"], r["predicate"])} for r in found]
            yield from write(Q.SET_SLOTS, {"scope": ctx.scope, "slots": slots})
    if (state.format or 0) < SIDE_SLOTS_FORMAT:
        while found := (yield from read(Q.FACTS_WITHOUT_SIDE_SLOTS, {"scope": ctx.scope, "limit": 5_000})):
            slots = [{"id": r["id"], "object_slot": object_slot(ctx.scope, r["object"], r["predicate"]),
                      "predicate_slot": predicate_slot(ctx.scope, r["predicate"])} for r in found]
            yield from write(Q.SET_SIDE_SLOTS, {"scope": ctx.scope, "slots": slots})
    if (state.format or 0) < SCOPE_TOKEN_FORMAT:
        yield from write(Q.SET_SCOPE_TOKENS, {"scope": ctx.scope, "scope_token": scope_token(ctx.scope)})
    if (state.format or 0) < STEMS_FORMAT:
        yield from stem_memories(ctx)
    if (state.format or 0) < COUNTED_FORMAT:
        yield from write(Q.SET_AHEAD, {"scope": ctx.scope})
    if (state.format or 0) < RECORD_COUNTS_FORMAT:
        yield from write(Q.SET_RECORD_COUNTS, {"scope": ctx.scope})
    if (state.format or 0) < GROWTH_FORMAT:
        yield from count_growth(ctx)
    if (state.format or 0) < GRAMS_FORMAT:
        yield from store_grams(ctx)
    if (state.format or 0) < COUNTED_ON_ITSELF_FORMAT:
        while (yield from write(Q.MOVE_RECORD_COUNTS, {"scope": ctx.scope, "limit": PAGE}))[0]["moved"]:
            pass
    if (state.format or 0) < RECORD_KEYS_FORMAT:
        yield from key_records(ctx)
    if (state.format or 0) < HISTORY_TOKEN_FORMAT:
        yield from write(Q.SET_HISTORY_TOKENS, {"scope": ctx.scope, "scope_token": scope_token(ctx.scope)})
    if (state.format or 0) < MEMORY_TOKEN_FORMAT:
        yield from memory_tokens(ctx)
    yield from write(Q.RECOUNT_SCOPE, {"scope": ctx.scope, "format": STORE_FORMAT, "candidate": "candidate",
                                  "now": Instant(now_micros())})


def memory_tokens(ctx: Context) -> Op[None]:
    """Store format 15: the search token of every observation and fact record of the scope, a page of each kind at
    a time (one statement over 1M facts wrote a 79 MB effect and held the store meanwhile)."""
    while True:
        [page] = yield from write(Q.SET_MEMORY_TOKENS, {"scope": ctx.scope, "scope_token": scope_token(ctx.scope),
                                                        "limit": TOKEN_PAGE})
        if max(page["observations"], page["records"]) < TOKEN_PAGE:
            return


def stem_memories(ctx: Context) -> Op[None]:
    """Store format 6: the search text of every observation and fact record of the scope, as stems."""
    after = ""
    while found := (yield from read(Q.UNSTEMMED_OBSERVATIONS, {"scope": ctx.scope, "after": after, "limit": PAGE})):
        yield from write(Q.SET_OBSERVATION_SEARCH_TEXTS, {"scope": ctx.scope, "rows": [
            {"id": r["id"], "search_text": search_stems(r["text"])} for r in found]})
        after = found[-1]["id"]
    while found := (yield from read(Q.UNSTEMMED_FACTS, {"scope": ctx.scope, "limit": PAGE})):
        yield from write(Q.SET_FACT_SEARCH_TEXTS, {"scope": ctx.scope, "scope_token": scope_token(ctx.scope), "rows": [
            {"id": r["id"], "search_text": fact_search_text(r["subject"], r["predicate"], r["object"], r["source"])}
            for r in found]})


def count_growth(ctx: Context) -> Op[None]:
    """Store format 10: the scope's growth counters, counted from its records (those a counting cut short
    left behind go first)."""
    yield from write(Q.DROP_GROWTH, {"scope": ctx.scope})
    changes = Changes()
    for row in (yield from read(Q.GROWTH_INSTANTS, {"scope": ctx.scope, "candidate": "candidate"})):
        changes.add(row["kind"], row["made"], row["gone"], row["n"])
    rows = changes.rows(ctx.scope)
    for start in range(0, len(rows), PAGE):
        yield from write(Q.COUNT_GROWTH, {"scope": ctx.scope, "grown": rows[start:start + PAGE]})


def store_grams(ctx: Context) -> Op[None]:
    """Store format 11: the grams of every entity (name and type), alias and observation of the scope."""
    for found_query, set_query in ((Q.GRAMLESS_ENTITIES, Q.SET_ENTITY_GRAMS), (Q.GRAMLESS_ALIASES, Q.SET_ALIAS_GRAMS),
                                   (Q.GRAMLESS_OBSERVATIONS, Q.SET_OBSERVATION_GRAMS)):
        after = ""
        while found := (yield from read(found_query, {"scope": ctx.scope, "after": after, "limit": PAGE})):
            yield from write(set_query, {"scope": ctx.scope, "rows": [
                {"key": r["key"], "grams": grams(*r["texts"])} for r in found]})
            after = found[-1]["key"]


def key_records(ctx: Context) -> Op[None]:
    """Store format 13: the exact end keys of every fact record of the scope (fragments/links), a page of entities
    (by key) at a time, each with the records it is the subject of."""
    after: str | None = ""
    while after is not None:  # the last page's last key; none once no entity is left
        [page] = yield from write(Q.SET_RECORD_KEYS, {"scope": ctx.scope, "after": after, "limit": KEY_PAGE})
        after = page["last"]
