"""A Graphiti group in synapse-graph's terms, as export lines ``Memory.import_`` loads (pure: no I/O).

- An entity node is an entity (its labels other than ``Entity`` its type); its summary an observation,
  recorded at the node's ``created_at`` (Graphiti keeps no time for a summary). Nodes whose names are one name
  here (the same name, or names differing only in case: Graphiti often keeps duplicates) are one entity,
  listed in :attr:`GraphitiImport.merged`; each node's summary stays an observation of its own.
- An entity edge is a fact: its ``name`` the predicate when it is ``UPPER_SNAKE_CASE``, otherwise mapped
  as the reference-memory import maps relation types (``works at`` -> ``WORKS_AT``,
  :func:`~synapse_graph.rules.predicates.predicate_of`) and listed in :attr:`GraphitiImport.renamed`.
  Its source keeps the fact text, the original name and the episodes' uuids:
  ``graphiti: Dana works at Acme [name: works at] [episodes: 4f1c..., 9a0e...]``.
- Times: Graphiti's ``valid_at``/``invalid_at`` (world time) are the fact's validity, ``created_at`` is
  when it was recorded. An edge without ``valid_at`` is valid from its episode's ``reference_time``, else
  from its ``created_at`` (counted in :attr:`GraphitiImport.without_valid_at`). Graphiti ends an edge in
  place: learning that it stopped holding, it sets ``invalid_at`` and ``expired_at`` (now) together. Such an
  edge becomes two records, as this library keeps a superseded value: the belief Graphiti held from
  ``created_at`` (no end) expired at ``expired_at``, and the edge as Graphiti holds it now, recorded at
  ``expired_at``. So ``known_at`` before the expiry sees the edge open, ``as_of`` reads now see it end where
  Graphiti says. An edge that arrived with its end (Graphiti expires it in the same ingestion) has a first
  record lasting that ingestion only; an expired edge without ``invalid_at`` is one expired record.
- Ids: a fact record's id is the edge's uuid without dashes (the earlier, open record's with ``open``
  after it), an observation's a digest of node uuid and text: importing again adds nothing.

Nothing with a secret in clear is kept: with ``secrets="redact"`` a fact text or summary is kept
redacted; an entity whose name holds a secret (a name is never redacted), or under ``secrets="reject"``
any node or edge with a secret, is left out with its edges and listed in :attr:`GraphitiImport.left_out`,
as is what the store cannot hold (an empty validity, a time out of range).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime

from pydantic import BaseModel, Field

from synapse_graph import render
from synapse_graph.engine.context import Context
from synapse_graph.engine.import_lines import EXPORT_FORMAT
from synapse_graph.engine.inputs import MAX_TYPE_LENGTH, name, text
from synapse_graph.engine.observations import MAX_OBSERVATION_LENGTH
from synapse_graph.errors import InvalidInputError, InvalidPredicateError
from synapse_graph.graphiti.source import GraphitiEdge, GraphitiGroup, GraphitiNode
from synapse_graph.instants import to_iso
from synapse_graph.rules.predicates import check_predicate, predicate_of
from synapse_graph.rules.redaction import guard
from synapse_graph.rules.text import MAX_TEXT_LENGTH, clean_text
from synapse_graph.rules.timeparse import to_micros

SOURCE_PREFIX = "graphiti: "
OPEN_SUFFIX = "open"
"""Appended to an ended edge's id for the record of the belief Graphiti held before it learned the end."""
_MAX_NAME_SHOWN = 150
_MIN_FACT_SHOWN = 200


class LeftOut(BaseModel):
    """A node, summary or edge of the Graphiti graph that was not imported, and why."""

    uuid: str
    kind: str
    """``entity``, ``summary`` or ``edge``."""
    reason: str


class GraphitiImport(BaseModel):
    """What an import of one Graphiti group brought, and what it left out (nothing silently)."""

    group_id: str
    scope: str
    nodes: int = 0
    """Entity nodes read."""
    entities: int = 0
    """Entities they are here (nodes of one name are one entity)."""
    entities_created: int = 0
    summaries: int = 0
    """Summaries kept as observations."""
    summaries_created: int = 0
    edges: int = 0
    """Entity edges read."""
    records: int = 0
    """Fact records they are here (an edge Graphiti ended is two)."""
    records_created: int = 0
    expired: int = 0
    """Edges Graphiti had expired."""
    without_valid_at: int = 0
    """Edges without ``valid_at``: valid from their episode's reference time, else from when recorded."""
    shortened: int = 0
    """Edges whose source (fact text, name, episodes) was cut to the 512 characters a source holds."""
    merged: dict[str, list[str]] = Field(default_factory=dict)
    """Entity names held by several Graphiti nodes, and those nodes' uuids: one entity each here."""
    renamed: dict[str, str] = Field(default_factory=dict)
    """Edge names that are not ``UPPER_SNAKE_CASE``, and the predicate each became."""
    left_out: list[LeftOut] = Field(default_factory=list)

    def __str__(self) -> str:
        return (f"Graphiti group {self.group_id!r} -> scope {self.scope!r}: "
                f"{render.plural(self.entities, 'entity', 'entities')} ({self.entities_created:,} new) from "
                f"{render.plural(self.nodes, 'node')}, {render.plural(self.summaries, 'summary', 'summaries')} "
                f"({self.summaries_created:,} new), {render.plural(self.records, 'fact record')} "
                f"({self.records_created:,} new) from {render.plural(self.edges, 'edge')}"
                + (f", {render.plural(len(self.left_out), 'item')} left out" if self.left_out else ""))


@dataclass
class Translation:
    """Export lines for ``Memory.import_``, what they hold, and the observations' ids."""

    lines: list[str]
    report: GraphitiImport
    observation_ids: list[str] = field(default_factory=list)


def translate(group: GraphitiGroup, ctx: Context) -> Translation:
    """The group as export lines for ``ctx.scope`` (secrets treated as ``ctx.secrets`` says)."""
    report = GraphitiImport(group_id=group.group_id, scope=ctx.scope, nodes=len(group.nodes), edges=len(group.edges))
    out = Translation([_json({"kind": "header", "format": EXPORT_FORMAT, "scope": ctx.scope})], report)
    keys = _entities(group.nodes, ctx, out)
    _summaries(group.nodes, keys, ctx, out)
    for edge in sorted(group.edges, key=lambda e: (e.created_at, e.uuid)):
        try:
            lines = _edge_lines(edge, keys, ctx, report)
        except InvalidInputError as exc:
            report.left_out.append(LeftOut(uuid=edge.uuid, kind="edge", reason=str(exc)))
            continue
        out.lines += [_json(line) for line in lines]
        report.records += len(lines)
        report.expired += edge.expired_at is not None
    return out


# -- entities and summaries -------------------------------------------------------------------------------


def _entities(nodes: Iterable[GraphitiNode], ctx: Context, out: Translation) -> dict[str, tuple[str, str]]:
    """Entity lines; returns each imported node's (key, display name) by uuid."""
    keys: dict[str, tuple[str, str]] = {}
    holders: dict[str, list[GraphitiNode]] = {}
    for node in sorted(nodes, key=lambda n: (n.created_at, n.uuid)):
        try:
            checked = name(ctx, node.name, "entity name")
        except InvalidInputError as exc:
            out.report.left_out.append(LeftOut(uuid=node.uuid, kind="entity", reason=str(exc)))
            continue
        keys[node.uuid] = (checked.key, checked.display)
        holders.setdefault(checked.key, []).append(node)
    for key, held in holders.items():
        first = held[0]
        display = keys[first.uuid][1]
        at = _iso(first.created_at, "created_at")  # the earliest: nodes are in order of creation
        out.lines.append(_json({"kind": "entity", "name": display, "key": key, "type": _type(first.labels, ctx),
                                "aliases": [], "created_at": at, "updated_at": at}))
        if len(held) > 1:
            out.report.merged[display] = [n.uuid for n in held]
    out.report.entities = len(holders)
    return keys


def _type(labels: tuple[str, ...], ctx: Context) -> str | None:
    """The node's labels other than ``Entity`` as the entity's type (as many as fit, in order)."""
    kept: list[str] = []
    for label in labels:
        if len(", ".join([*kept, label])) <= MAX_TYPE_LENGTH:
            kept.append(label)
    try:
        return text(ctx, ", ".join(kept), "entity type", MAX_TYPE_LENGTH) if kept else None
    except InvalidInputError:
        return None


def _summaries(nodes: Iterable[GraphitiNode], keys: Mapping[str, tuple[str, str]], ctx: Context, out: Translation
               ) -> None:
    """Each node's summary as an observation of its entity, recorded when the node was: the same lines each time
    (an import into a scope that holds part of them completes it)."""
    held: dict[str, set[str]] = {}
    for node in sorted(nodes, key=lambda n: (n.created_at, n.uuid)):
        if node.uuid not in keys or not node.summary.strip():
            continue
        key = keys[node.uuid][0]
        try:
            summary = text(ctx, node.summary, "summary", MAX_OBSERVATION_LENGTH)
        except InvalidInputError as exc:
            out.report.left_out.append(LeftOut(uuid=node.uuid, kind="summary", reason=str(exc)))
            continue
        if summary is None or summary in held.setdefault(key, set()):
            continue
        held[key].add(summary)
        observation_id = _digest("graphiti-summary", node.uuid, summary)
        out.observation_ids.append(observation_id)
        out.lines.append(_json({"kind": "observation", "id": observation_id, "entity": key, "text": summary,
                                "recorded_at": _iso(node.created_at, "created_at"), "expired_at": None,
                                "source": f"graphiti node {node.uuid}",
                                "client": ctx.client, "session": None}))
        out.report.summaries += 1


# -- edges --------------------------------------------------------------------------------------------------


def predicate_for(edge_name: str) -> str:
    """The predicate of a Graphiti edge name: itself if ``UPPER_SNAKE_CASE``, else mapped (``works at`` ->
    ``WORKS_AT``; ``SAME_AS``, which merges entities here, -> ``IS_SAME_AS``)."""
    try:
        return check_predicate(edge_name)
    except InvalidPredicateError:
        return predicate_of(edge_name)


def _edge_lines(edge: GraphitiEdge, keys: Mapping[str, tuple[str, str]], ctx: Context, report: GraphitiImport
                ) -> list[dict[str, object]]:
    for end, field_name in ((edge.source, "subject"), (edge.target, "object")):
        if end not in keys:
            raise InvalidInputError(f"its {field_name}, node {end}, was left out")
    predicate = predicate_for(edge.name)
    if predicate != edge.name:
        report.renamed[edge.name] = predicate
    source, cut = edge_source(edge, predicate, ctx)
    report.shortened += cut
    recorded = to_micros(edge.created_at, field="created_at")
    start = edge.valid_at or edge.reference_time
    report.without_valid_at += edge.valid_at is None
    valid = recorded if start is None else to_micros(start, field="valid_at")
    invalid = None if edge.invalid_at is None else to_micros(edge.invalid_at, field="invalid_at")
    expired = None if edge.expired_at is None else to_micros(edge.expired_at, field="expired_at")
    base: dict[str, object] = {
        "kind": "fact", "subject": keys[edge.source][0], "predicate": predicate, "object": keys[edge.target][0],
        "confidence": 1.0, "confirmations": 1, "source": source, "client": ctx.client, "model": None,
        "session": None, "status": "believed", "flag": None, "confirmed_at": None, "pinned": False}
    plain = _plain(edge.uuid)
    records: list[dict[str, object]] = []
    if expired is not None:
        if invalid is None:  # Graphiti stopped holding it, and learned no end
            return [_fact(base, plain, valid, None, recorded, expired)]
        if expired > recorded:  # the belief Graphiti held until it learned the end
            records.append(_fact(base, plain + OPEN_SUFFIX, valid, None, recorded, expired))
        recorded = max(recorded, expired)
    if invalid is None or invalid > valid:
        records.append(_fact(base, plain, valid, invalid, recorded, None))
    if not records:
        raise InvalidInputError(f"it never held: its invalid_at is not after its {_start_name(edge)}")
    return records


def _start_name(edge: GraphitiEdge) -> str:
    if edge.valid_at is not None:
        return "valid_at"
    return "reference_time (it has no valid_at)" if edge.reference_time is not None else \
        "created_at (it has no valid_at)"


def _fact(base: Mapping[str, object], record_id: str, valid: int, invalid: int | None, recorded: int,
          expired: int | None) -> dict[str, object]:
    if expired is not None and expired < recorded:
        raise InvalidInputError("it expired before it was recorded")
    return {**base, "id": record_id, "valid_at": to_iso(valid),
            "invalid_at": None if invalid is None else to_iso(invalid), "recorded_at": to_iso(recorded),
            "expired_at": None if expired is None else to_iso(expired)}


def edge_source(edge: GraphitiEdge, predicate: str, ctx: Context) -> tuple[str, bool]:
    """The source a fact of ``edge`` is written with (at most 512 characters), and whether it was cut."""
    fact = " ".join(edge.fact.split())
    label = "" if edge.name == predicate else " ".join(edge.name.split())
    cut = len(label) > _MAX_NAME_SHOWN
    named = f" [name: {label[:_MAX_NAME_SHOWN]}{'…' if cut else ''}]" if label else ""
    room = MAX_TEXT_LENGTH - len(SOURCE_PREFIX) - len(named)
    episodes = _episodes(list(edge.episodes), room - min(len(fact), _MIN_FACT_SHOWN))
    cut |= len(episodes) < len(" ".join(edge.episodes)) and bool(edge.episodes)
    if len(fact) > room - len(episodes):
        fact, cut = fact[:room - len(episodes) - 1] + "…", True
    value = clean_text(SOURCE_PREFIX + fact + named + episodes, field="source")
    assert value is not None  # the prefix is never empty
    return guard(value, ctx.secrets, field="source").text, cut


def _episodes(uuids: list[str], room: int) -> str:
    """`` [episodes: a, b, +3 more]`` within ``room`` characters (as many uuids as fit)."""
    if not uuids:
        return ""
    for shown in range(len(uuids), -1, -1):
        more = len(uuids) - shown
        part = f" [episodes: {', '.join(uuids[:shown])}{', ' if shown and more else ''}" \
               f"{f'+{more} more' if more else ''}]"
        if len(part) <= room:
            return part
    return ""


def _plain(uuid: str) -> str:
    """A uuid as a record id (letters and digits): its hex digits."""
    plain = "".join(c for c in uuid if c.isalnum()).lower()
    if not plain or len(plain) > 64 - len(OPEN_SUFFIX) or not plain.isascii():
        return _digest("graphiti-edge", uuid)
    return plain


def _iso(at: datetime, field_name: str) -> str:
    return to_iso(to_micros(at, field=field_name))


def _digest(*parts: str) -> str:
    return hashlib.sha256("\x00".join(parts).encode()).hexdigest()[:32]


def _json(item: Mapping[str, object]) -> str:
    return json.dumps(item, ensure_ascii=False)
