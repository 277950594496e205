"""Observations: free text about an entity ("Speaks fluent Spanish"), kept with when it was recorded.

An observation is a belief like a fact: it is recorded, can be forgotten (it expires, and
history keeps it), is found by recall's fulltext search, counts toward the scope's fact quota,
moves with its entity in an alias merge, and is erased with it by ``purge``.
"""

from __future__ import annotations

import re
import unicodedata
import uuid
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from synapse_graph.catalogue import Q
from synapse_graph.engine import projections, rows
from synapse_graph.engine.context import Context
from synapse_graph.engine.inputs import Name
from synapse_graph.engine.io import Op, Read, read, read_rows
from synapse_graph.engine.reads import lookup
from synapse_graph.engine.view import View
from synapse_graph.engine.writes import Mutation
from synapse_graph.instants import Instant, to_datetime
from synapse_graph.models import Observation
from synapse_graph.rules.grams import grams
from synapse_graph.rules.stems import search_stems
from synapse_graph.rules.timeline import Provenance
from synapse_graph.shapes import OBSERVATION

MAX_OBSERVATION_LENGTH = 10_000
_NOT_WORD = re.compile(r"[\W_]+")
_ALL = 1_000_000


def _read(ctx: Context, keys: list[str] | None, *, history: bool, known_at: Instant | None, limit: int
          ) -> Op[list[dict[str, Any]]]:
    """Observation rows of some entities (each found by the (scope, entity) index), or of the whole scope."""
    found = yield from read_rows(_request(ctx, keys, history=history, known_at=known_at, limit=limit))
    return [row["observation"] for row in found]


def _request(ctx: Context, keys: list[str] | None, *, history: bool, known_at: Instant | None, limit: int) -> Read:
    params = {"scope": ctx.scope, "history": history, "known_at": known_at, "limit": limit}
    return (Read(Q.OBSERVATIONS_OF, params) if keys is None
            else Read(Q.OBSERVATIONS_OF_ENTITIES, {**params, "keys": keys}))


def _current(ctx: Context, keys: list[str]) -> Op[list[dict[str, Any]]]:
    return (yield from _read(ctx, keys, history=False, known_at=None, limit=_ALL))


Observed = tuple[Name, list[str], str | None, Instant | None]
"""Texts to record about an entity, the type the entity is created with if it is new, and when what the texts
tell happened or held (``valid_at``), if known."""


def row(scope: str, values: Mapping[str, Any]) -> dict[str, Any]:
    """An observation as ``apply_plan`` creates it: its fields (:data:`~synapse_graph.shapes.OBSERVATION`, the
    entity by key, instants in microseconds), its scope, its search text (the stems of its text) and its grams."""
    return {**{f.name: values.get(f.name) for f in OBSERVATION}, "scope": scope,
            "search_text": search_stems(values["text"]), "grams": grams(values["text"])}


def near_identity(text: str) -> str:
    """What two near-identical observations share: the text case-folded, punctuation and spacing left out."""
    return " ".join(_NOT_WORD.sub(" ", unicodedata.normalize("NFKC", text).casefold()).split())


def observe(view: View, items: Sequence[Observed], provenance: Provenance
            ) -> Op[tuple[Mutation, list[list[Observation]], list[Observation]]]:
    """Record the texts about each entity (created if new, with the first type given) in one write. A text an
    entity holds already, or was given earlier in the call, or one near-identical to those (:func:`near_identity`)
    is not stored again. Returns each item's new observations, and the held ones such texts confirmed."""
    types: dict[str, str] = {}
    for name, _, kind, _ in items:
        if kind is not None:
            types.setdefault(name.key, kind)
    keys = yield from view.resolve([name for name, _, _, _ in items], types)
    entities = list(dict.fromkeys(keys[name.key] for name, _, _, _ in items))
    stored = [key for key in entities if key not in view.entities.created]
    have: dict[str, dict[str, dict[str, Any] | None]] = {key: {} for key in entities}
    for existing in ((yield from _current(view.ctx, stored)) if stored else []):
        have[existing["entity_key"]][near_identity(existing["text"])] = existing
    confirmed: dict[str, Observation] = {}
    added: list[dict[str, Any]] = []
    made: list[list[dict[str, Any]]] = []
    position = dict.fromkeys(entities, 0)
    for name, texts, _, valid_at in items:
        key, mine = keys[name.key], []
        for text in dict.fromkeys(texts):
            same = near_identity(text)
            held = have[key].get(same)
            if held is not None:
                confirmed.setdefault(held["id"], rows.observation(held))
            if same not in have[key]:
                have[key][same] = None
                position[key] += 1
                # Ids start with the position in the call: observations recorded together keep their order.
                mine.append(row(view.ctx.scope, {
                    "id": f"{position[key] - 1:04x}{uuid.uuid4().hex[4:]}", "entity": key, "text": text,
                    "valid_at": valid_at, "recorded_at": view.now, "source": provenance.source,
                    "client": provenance.client, "session": provenance.session}))
        made.append(mine)
        added += mine
    display = {key: view.entities.created[key]["name"] for key in entities if key in view.entities.created}
    named = sorted({o["entity"] for o in added} - set(display))
    if named:
        display.update({row["key"]: row["name"] for row in (yield from read(projections.ENTITY_NAMES, {
            "scope": view.ctx.scope, "keys": named}))})
    return Mutation.of(view, "observe", provenance, observe=added), [
        [Observation(id=o["id"], entity=display.get(o["entity"], name.display), text=o["text"],
                     valid_at=None if o["valid_at"] is None else to_datetime(o["valid_at"]),
                     recorded_at=to_datetime(view.now), source=o["source"], client=o["client"], session=o["session"])
         for o in mine] for (name, _, _, _), mine in zip(items, made, strict=True)], list(confirmed.values())


def unobserve(view: View, entity: Name, texts: Iterable[str]) -> Op[tuple[Mutation | None, int]]:
    """Forget the entity's current observations with these texts; history keeps them. Returns how many."""
    key = (yield from view.lookup([entity])).get(entity.key)
    if key is None:
        return None, 0
    wanted = set(texts)
    ids = [o["id"] for o in (yield from _current(view.ctx, [key])) if o["text"] in wanted]
    return Mutation.of(view, "unobserve", Provenance(client=view.ctx.client), unobserve=ids, touches=[key]), len(ids)


def observations(ctx: Context, entity: Name | None, *, known_at: Instant | None, history: bool, limit: int
                 ) -> Op[list[Observation]]:
    """Observations about an entity (or every entity), as believed at ``known_at``, oldest first."""
    keys: list[str] | None = None
    if entity is not None:
        key = (yield from lookup(ctx, [entity.key])).get(entity.key)
        if key is None:
            return []
        keys = [key]
    found = yield from _read(ctx, keys, history=history, known_at=known_at, limit=limit)
    return [rows.observation(row) for row in found]
