"""The ``reference-memory`` profile: the reference MCP memory server's nine tools, on our store.

``synapse-graph mcp --profile reference-memory`` offers the tools of
``@modelcontextprotocol/server-memory`` under the same names, with the same input schemas
(published exactly as that server publishes them; the three reads add an optional ``cursor``)
and the same observable behaviour: creating an existing entity or relation is skipped and only
the new ones come back; observations for a missing entity are an error and nothing is written;
deleting an entity removes its relations; search is case-insensitive over names, types and
observations; the relations touching a matched entity come back. So a user switches by changing
one line of configuration and keeps their prompts.

What the store adds (see :mod:`synapse_graph.mcp.reference_memory` for the mapping): a relation is a
fact valid from its creation, and deleting one closes it, so history and ``as_of`` keep working
through the native tools (``synapse-graph mcp`` on the same store and scope); observations keep
when they were recorded and are found by recall; ``add_observations`` takes one extension, an optional
``validAt`` per entity (when what the contents tell happened or held: :data:`VALID_AT`); reads come in
pages within the result budget instead of the whole graph at once. Deleting an entity erases it
(``Memory.purge``), as the reference does: its facts' history goes with it.
"""

from __future__ import annotations

import json
from collections.abc import AsyncGenerator, Awaitable, Callable, Sequence
from contextlib import aclosing
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from synapse_graph.errors import InvalidInputError, NotFoundError
from synapse_graph.mcp.calls import now_iso
from synapse_graph.mcp.formatting import (
    LIST_ENDS,
    Answer,
    Snapshot,
    cursor_at_most,
    decode_cursor,
    encode_cursor,
    size_at_most,
)
from synapse_graph.mcp.reference_memory import OneValue, identity, relation_source, relation_type_of
from synapse_graph.mcp.tools import ToolContext, ToolSpec
from synapse_graph.models import RECALL_NOTICE, EntityPage, Fact, Triple
from synapse_graph.rules.predicates import predicate_of

REFERENCE_INSTRUCTIONS = (
    "A knowledge graph memory (synapse-graph, with the tools of the reference memory server): entities with "
    "observations, and relations between them. Reads come in pages: when a result has nextCursor, call the same "
    "tool again with cursor set to it. " + RECALL_NOTICE
)
_ALL = 1_000_000
"""No limit on the facts and observations of one entity (a page shows an entity whole)."""
_SUCCESS = {"entities": "Entities deleted successfully", "observations": "Observations deleted successfully",
            "relations": "Relations deleted successfully"}

# -- input schemas: the reference server's, as it publishes them (draft-07, unknown fields ignored) -------

_DRAFT = "http://json-schema.org/draft-07/schema#"
_STRINGS: dict[str, Any] = {"type": "array", "items": {"type": "string"}}
_ENTITY: dict[str, Any] = {"type": "object", "properties": {
    "name": {"type": "string", "description": "The name of the entity"},
    "entityType": {"type": "string", "description": "The type of the entity"},
    "observations": {**_STRINGS, "description": "An array of observation contents associated with the entity"},
}, "required": ["name", "entityType", "observations"]}
_RELATION: dict[str, Any] = {"type": "object", "properties": {
    "from": {"type": "string", "description": "The name of the entity where the relation starts"},
    "to": {"type": "string", "description": "The name of the entity where the relation ends"},
    "relationType": {"type": "string", "description": "The type of the relation"},
}, "required": ["from", "to", "relationType"]}
VALID_AT = ("An extension of synapse-graph (optional): when what the contents tell happened or held, if known, "
            "e.g. 2023-05-08 or 2023-05-08T14:00:00Z (UTC when no offset is given); recall then finds them for "
            "questions about that time and 'when' questions.")
_CURSOR: dict[str, Any] = {"type": "string", "description": (
    "nextCursor of the previous page, to continue it (repeat the other arguments unchanged).")}


def _schema(properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {"$schema": _DRAFT, "type": "object", "properties": properties, **({"required": required}
                                                                                 if required else {})}


def _list_of(item: dict[str, Any], what: str | None = None) -> dict[str, Any]:
    return {"type": "array", "items": item, **({"description": what} if what else {})}


SCHEMAS: dict[str, dict[str, Any]] = {
    "create_entities": _schema({"entities": _list_of(_ENTITY)}, ["entities"]),
    "create_relations": _schema({"relations": _list_of(_RELATION)}, ["relations"]),
    "add_observations": _schema({"observations": _list_of({"type": "object", "properties": {
        "entityName": {"type": "string", "description": "The name of the entity to add the observations to"},
        "contents": {**_STRINGS, "description": "An array of observation contents to add"},
        "validAt": {"type": "string", "description": VALID_AT},
    }, "required": ["entityName", "contents"]})}, ["observations"]),
    "delete_entities": _schema({"entityNames": {**_STRINGS, "description": "An array of entity names to delete"}},
                               ["entityNames"]),
    "delete_observations": _schema({"deletions": _list_of({"type": "object", "properties": {
        "entityName": {"type": "string", "description": "The name of the entity containing the observations"},
        "observations": {**_STRINGS, "description": "An array of observations to delete"},
    }, "required": ["entityName", "observations"]})}, ["deletions"]),
    "delete_relations": _schema({"relations": _list_of(_RELATION, "An array of relations to delete")},
                                ["relations"]),
    "read_graph": _schema({"cursor": _CURSOR}, []),
    "search_nodes": _schema({"query": {"type": "string", "description": (
        "The search query to match against entity names, types, and observation content")}, "cursor": _CURSOR},
        ["query"]),
    "open_nodes": _schema({"names": {**_STRINGS, "description": "An array of entity names to retrieve"},
                           "cursor": _CURSOR}, ["names"]),
}


# -- arguments (checked against the schemas above first) ------------------------------------------------


class _Args(BaseModel):
    model_config = ConfigDict(extra="ignore", populate_by_name=True)  # as the reference: unknown fields ignored


class EntityArg(_Args):
    name: str
    entityType: str
    observations: list[str]


class RelationArg(_Args):
    source: str = Field(alias="from")
    to: str
    relationType: str


class CreateEntitiesArgs(_Args):
    entities: list[EntityArg]


class RelationsArgs(_Args):
    relations: list[RelationArg]


class ObservationsArg(_Args):
    entityName: str
    contents: list[str]
    validAt: str | None = None


class AddObservationsArgs(_Args):
    observations: list[ObservationsArg]


class DeleteEntitiesArgs(_Args):
    entityNames: list[str]


class DeletionArg(_Args):
    entityName: str
    observations: list[str]


class DeleteObservationsArgs(_Args):
    deletions: list[DeletionArg]


class ReadGraphArgs(_Args):
    cursor: str | None = None


class SearchNodesArgs(_Args):
    query: str
    cursor: str | None = None


class OpenNodesArgs(_Args):
    names: list[str]
    cursor: str | None = None


# -- results ---------------------------------------------------------------------------------------------


class _Out(BaseModel):
    model_config = ConfigDict(populate_by_name=True, serialize_by_alias=True)


class EntityOut(_Out):
    name: str = Field(description="The name of the entity")
    entityType: str = Field(description="The type of the entity")
    observations: list[str] = Field(description="An array of observation contents associated with the entity")


class RelationOut(_Out):
    source: str = Field(alias="from", description="The name of the entity where the relation starts")
    to: str = Field(description="The name of the entity where the relation ends")
    relationType: str = Field(description="The type of the relation")
    qualifiers: list[str] | None = Field(None, description=(
        "Warnings to weigh before asserting the relation (e.g. stored long ago); absent when none applies."))


def _relation(source: str, to: str, relation_type: str, qualifiers: Sequence[str] = ()) -> RelationOut:
    return RelationOut.model_validate({"from": source, "to": to, "relationType": relation_type,
                                       "qualifiers": list(qualifiers) or None})


class EntitiesOut(_Out):
    entities: list[EntityOut]


class RelationsOut(_Out):
    relations: list[RelationOut]


class AddedOut(_Out):
    entityName: str
    addedObservations: list[str]


class ResultsOut(_Out):
    results: list[AddedOut]


class SuccessOut(_Out):
    success: bool
    message: str


class GraphOut(_Out):
    entities: list[EntityOut]
    relations: list[RelationOut]
    nextCursor: str | None = Field(None, description=(
        "Present when more follows: call the same tool again with cursor set to it."))


def _json_answer(payload: Any, data: BaseModel) -> Answer:
    """The reference's text (its result as indented JSON) and its structured content."""
    shown = payload.model_dump(mode="json", exclude_none=True) if isinstance(payload, BaseModel) else payload
    return Answer(json.dumps(shown, indent=2, ensure_ascii=False), data)


def _dump(items: Sequence[BaseModel]) -> list[Any]:
    return [item.model_dump(mode="json", exclude_none=True) for item in items]


# -- writes ----------------------------------------------------------------------------------------------


async def create_entities(ctx: ToolContext, args: CreateEntitiesArgs) -> Answer:
    new: dict[str, tuple[str, EntityArg]] = {}
    for entity in args.entities:
        display, key = identity(entity.name)
        if key not in new and await ctx.calls.entity(entity.name) is None:
            new[key] = (display, entity)
    # One write for the whole call: an entity the store refuses (a name, a type, an observation) writes none.
    kept = await ctx.calls.observe_many([(display, e.observations, e.entityType) for display, e in new.values()]
                                        ) if new else []
    created = [EntityOut(name=display, entityType=entity.entityType, observations=[o.text for o in added])
               for (display, entity), added in zip(new.values(), kept, strict=True)]
    return _json_answer(_dump(created), EntitiesOut(entities=created))


async def create_relations(ctx: ToolContext, args: RelationsArgs) -> Answer:
    slots = [(identity(r.source, field="from")[1], predicate_of(r.relationType), identity(r.to, field="to")[1])
             for r in args.relations]
    await _one_value_each(ctx, args.relations, slots)
    new: dict[tuple[str, str, str], RelationArg] = {}
    for relation, slot in zip(args.relations, slots, strict=True):
        if slot not in new and not await _holding(ctx, relation.source, slot[1], relation.to):
            new[slot] = relation
    if new:  # one write for the whole call (all or nothing); each fact's source keeps its relation type's text
        await ctx.calls.upsert([Triple(subject=r.source, predicate=predicate_of(r.relationType), object=r.to,
                                       source=relation_source(r.relationType)) for r in new.values()],
                               replace=False, source=None)
    created = []
    for relation in new.values():
        for fact in await _holding(ctx, relation.source, predicate_of(relation.relationType), relation.to):
            created.append(_relation(fact.subject, fact.object, relation.relationType))
    return _json_answer(_dump(created), RelationsOut(relations=created))


async def _one_value_each(ctx: ToolContext, relations: Sequence[RelationArg],
                          slots: Sequence[tuple[str, str, str]]) -> None:
    """Refuse a call giving an entity two values of a single-valued relation (``works at`` Acme and Globex):
    the reference would keep both, but here one holds at a time, and both written at one instant would leave
    the first without a trace. The user's agent says which holds now; one value a call closes the earlier."""
    if len({(source, predicate) for source, predicate, _ in slots}) == len(set(slots)):
        return  # no entity is given two values of one relation: nothing to read
    values = OneValue[RelationArg]((await ctx.calls.rules()).single_valued)
    for relation, (source, predicate, target) in zip(relations, slots, strict=True):
        other = values.other(source, predicate, target, relation)
        if other is not None:
            raise InvalidInputError(
                f"{_quoted(relation.source)} is given two values of one relation in this call, "
                f"{_quoted(other.relationType)} {_quoted(other.to)} and {_quoted(relation.relationType)} "
                f"{_quoted(relation.to)}: {predicate} holds one value at a time in this memory (a single-valued "
                "relation of its scope), so written together one of them would be lost. Send the one that holds "
                "now (a later call with another value closes it, and history keeps both); nothing was written")


def _quoted(text: str) -> str:
    return json.dumps(text[:70], ensure_ascii=False)


async def _holding(ctx: ToolContext, subject: str, predicate: str, object: str) -> list[Fact]:
    return await ctx.calls.facts(subject, predicate, object, as_of=None, known_at=None, limit=1)


async def add_observations(ctx: ToolContext, args: AddObservationsArgs) -> Answer:
    for item in args.observations:  # all or nothing, as the reference: check every entity first
        if await ctx.calls.entity(item.entityName) is None:
            raise NotFoundError(f"Entity with name {item.entityName} not found")
    added = await ctx.calls.observe_many([(item.entityName, item.contents, None, item.validAt)
                                          for item in args.observations])
    results = [AddedOut(entityName=item.entityName, addedObservations=[o.text for o in new])
               for item, new in zip(args.observations, added, strict=True)]  # one write: all or nothing
    return _json_answer(_dump(results), ResultsOut(results=results))


async def delete_entities(ctx: ToolContext, args: DeleteEntitiesArgs) -> Answer:
    for name in args.entityNames:
        await ctx.calls.purge(name)  # erasure, as the reference: the entity, its relations and their history
    return _success("entities")


async def delete_observations(ctx: ToolContext, args: DeleteObservationsArgs) -> Answer:
    for item in args.deletions:
        if item.observations:
            await ctx.calls.unobserve(item.entityName, item.observations)  # they expire; history keeps them
    return _success("observations")


async def delete_relations(ctx: ToolContext, args: RelationsArgs) -> Answer:
    for relation in args.relations:  # closed now; history and as_of keep them
        await ctx.calls.retract(relation.source, predicate_of(relation.relationType), relation.to, at=None)
    return _success("relations")


def _success(what: str) -> Answer:
    return Answer(_SUCCESS[what], SuccessOut(success=True, message=_SUCCESS[what]))


# -- reads -----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Node:
    """An entity a read returns: its name, type and (when the listing had them) its observations."""

    name: str
    type: str | None
    created_at: datetime
    observations: list[str] | None = None
    """None: read them when the entity is shown."""
    facts: list[Fact] | None = None
    """The facts it shows (``EntityPage.facts``: its own, and those of subjects the read does not list);
    None: read them when the entity is shown."""

    @property
    def order(self) -> str:
        """Oldest first, as the reference lists them; the name breaks ties."""
        micros = (self.created_at - datetime(1970, 1, 1, tzinfo=UTC)) // timedelta(microseconds=1)
        return f"{micros:020d}:{self.name}"


_Listed = AsyncGenerator[tuple[_Node, str]]
"""Entities in the order they are shown, each with the cursor that continues right after it."""
_LISTING_PAGE = 50
"""Entities read from the library at a time (one query per library page) while a page of the answer fills."""


async def _listed(ctx: ToolContext, snap: Snapshot, matching: str | None) -> _Listed:
    """The scope's entities (those matching, if given) known at the snapshot's time, after its cursor,
    with the observations they held then, a library page at a time (``Memory.entities``)."""
    after = snap.after
    while True:
        page = await ctx.calls.entities(after=after, known_at=snap.known_at, matching=matching, limit=_LISTING_PAGE,
                                        with_facts=True)
        for e in page.entities:
            node = _Node(e.name, e.type, e.created_at, [o.text for o in page.observations.get(e.key, [])],
                         None if page.facts is None else page.facts.get(e.key, []))
            yield node, EntityPage.cursor_after(e)
        if page.next is None:
            return
        after = page.next


async def _in_order(snap: Snapshot, nodes: Sequence[_Node]) -> _Listed:
    for node in sorted(nodes, key=lambda n: n.order):
        if snap.after is None or node.order > snap.after:
            yield node, node.order


_Listing = Callable[[str], Awaitable[bool]]
"""Whether the read lists the entity of that name (on some page): then it shows the entity's own relations."""


async def _page(ctx: ToolContext, tool: str, args: ReadGraphArgs | SearchNodesArgs | OpenNodesArgs,
                snap: Snapshot, nodes: _Listed, listing: _Listing | None) -> Answer:
    """The entities of ``nodes``, as many as fit the budget, each with the relations it owns.

    A relation comes back with its subject if the read lists the subject (``listing``), else with its
    object: once in all pages, always beside an entity it touches. A node listed with its facts
    (``EntityPage.facts``) has them sorted that way already; ``listing`` None: read its own only.
    """
    at = snap.known_at
    assert at is not None  # pinned by the first page
    trust = ctx.trust()
    shown: list[tuple[str, EntityOut, list[RelationOut]]] = []
    at_most = _graph_answer(tool, args, snap, [], more=False).size() + LIST_ENDS
    async with aclosing(nodes):  # a page that fills up leaves the listing unfinished
        async for node, resume in nodes:
            observations = node.observations
            if observations is None:
                observations = [o.text for o in await ctx.calls.observations(node.name, known_at=at, limit=_ALL)]
            facts = node.facts
            if facts is None:
                facts = await ctx.calls.facts(node.name, None, None, as_of=at, known_at=at, limit=_ALL)
                if listing is not None:
                    facts += [f for f in await ctx.calls.facts(None, None, node.name, as_of=at, known_at=at,
                                                               limit=_ALL) if not await listing(f.subject)]
            relations = [_relation(f.subject, f.object, relation_type_of(f.predicate, f.source), trust.of(f))
                         for f in sorted(facts, key=lambda f: (f.recorded_at, f.id))]
            entity = EntityOut(name=node.name, entityType=node.type or "", observations=observations)
            at_most += sum(size_at_most(item) for item in (entity, *relations))
            # The answer is measured (serialised whole) only once this bound on its size could pass the budget:
            # serialising every longer candidate made a page cost the square of its entities.
            if shown and at_most + cursor_at_most(tool, args, snap, resume) > ctx.budget_chars and _graph_answer(
                    tool, args, snap, [*shown, (resume, entity, relations)], more=True).size() > ctx.budget_chars:
                return _graph_answer(tool, args, snap, shown, more=True)
            shown.append((resume, entity, relations))
    return _graph_answer(tool, args, snap, shown, more=False)



def _graph_answer(tool: str, args: ReadGraphArgs | SearchNodesArgs | OpenNodesArgs, snap: Snapshot,
                  shown: Sequence[tuple[str, EntityOut, list[RelationOut]]], *, more: bool) -> Answer:
    cursor = encode_cursor(tool, args, Snapshot(0, None, snap.known_at, after=shown[-1][0])) \
        if more and shown else None
    data = GraphOut(entities=[entity for _, entity, _ in shown],
                    relations=[r for _, _, relations in shown for r in relations], nextCursor=cursor)
    return _json_answer(data, data)


def _snapshot(tool: str, args: ReadGraphArgs | SearchNodesArgs | OpenNodesArgs) -> tuple[Snapshot, datetime]:
    snap = decode_cursor(tool, args, args.cursor) if args.cursor is not None else Snapshot(0, None, now_iso())
    assert snap.known_at is not None
    return snap, datetime.fromisoformat(snap.known_at)


async def read_graph(ctx: ToolContext, args: ReadGraphArgs) -> Answer:
    """Every entity, oldest first, read a library page at a time (the cursor carries the library's)."""
    snap, _ = _snapshot("read_graph", args)
    return await _page(ctx, "read_graph", args, snap, _listed(ctx, snap, None), listing=None)


async def search_nodes(ctx: ToolContext, args: SearchNodesArgs) -> Answer:
    """Case-insensitive substring of a name (or alias), a type or an observation, as the reference searches;
    the database finds them (``Memory.entities(matching=...)``) with the relations each shows, a page at a time."""
    snap, _ = _snapshot("search_nodes", args)
    return await _page(ctx, "search_nodes", args, snap, _listed(ctx, snap, args.query), listing=None)


async def open_nodes(ctx: ToolContext, args: OpenNodesArgs) -> Answer:
    snap, at = _snapshot("open_nodes", args)
    found: dict[str, _Node] = {}
    for name in args.names:
        try:
            entity = await ctx.calls.entity(name)
        except InvalidInputError:  # not a name the store could hold: no such entity, as for the reference
            continue
        if entity is not None and entity.created_at <= at:
            found[entity.key] = _Node(entity.name, entity.type, entity.created_at)
    names = {node.name for node in found.values()}

    async def listing(name: str) -> bool:
        return name in names

    return await _page(ctx, "open_nodes", args, snap, _in_order(snap, list(found.values())), listing=listing)


# -- the catalogue ---------------------------------------------------------------------------------------

_PAGES = (" Results come in pages within the result budget: when nextCursor is present, call again with cursor "
          "set to it.")


def _spec(name: str, title: str, description: str, arguments: type[BaseModel], result: type[BaseModel],
          handler: Any, *, read_only: bool = False, destructive: bool = False, idempotent: bool = False) -> ToolSpec:
    return ToolSpec(name, title, description, arguments, result, handler, read_only=read_only,
                    destructive=destructive, idempotent=idempotent, read_hints=True, input_schema=SCHEMAS[name])


REFERENCE_TOOLS: tuple[ToolSpec, ...] = (
    _spec("create_entities", "Create Entities", "Create multiple new entities in the knowledge graph",
          CreateEntitiesArgs, EntitiesOut, create_entities),
    _spec("create_relations", "Create Relations", "Create multiple new relations between entities in the knowledge "
          "graph. Relations should be in active voice", RelationsArgs, RelationsOut, create_relations),
    _spec("add_observations", "Add Observations", "Add new observations to existing entities in the knowledge graph",
          AddObservationsArgs, ResultsOut, add_observations),
    _spec("delete_entities", "Delete Entities", "Delete multiple entities and their associated relations from the "
          "knowledge graph", DeleteEntitiesArgs, SuccessOut, delete_entities, destructive=True, idempotent=True),
    _spec("delete_observations", "Delete Observations", "Delete specific observations from entities in the "
          "knowledge graph", DeleteObservationsArgs, SuccessOut, delete_observations, destructive=True,
          idempotent=True),
    _spec("delete_relations", "Delete Relations", "Delete multiple relations from the knowledge graph",
          RelationsArgs, SuccessOut, delete_relations, destructive=True, idempotent=True),
    _spec("read_graph", "Read Graph", "Read the entire knowledge graph." + _PAGES, ReadGraphArgs, GraphOut,
          read_graph, read_only=True, idempotent=True),
    _spec("search_nodes", "Search Nodes", "Search for nodes in the knowledge graph based on a query." + _PAGES,
          SearchNodesArgs, GraphOut, search_nodes, read_only=True, idempotent=True),
    _spec("open_nodes", "Open Nodes", "Open specific nodes in the knowledge graph by their names." + _PAGES,
          OpenNodesArgs, GraphOut, open_nodes, read_only=True, idempotent=True),
)
