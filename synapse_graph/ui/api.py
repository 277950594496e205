"""The JSON HTTP API: the Python API's operations for applications in any language (OpenAPI at /api/openapi.json).

Each route is one :class:`~synapse_graph.AsyncMemory` call with the same arguments and the same answer
(the library's models); review and erasure exist only when the server was started with their flags.
Changes are recorded with the inspector as their client.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import StreamingResponse
from pydantic import BaseModel, ConfigDict, Field

from synapse_graph.aio import AsyncMemory
from synapse_graph.errors import NotFoundError
from synapse_graph.growth import Growth
from synapse_graph.models import (
    AliasResult,
    AuditEntry,
    DuplicateProposal,
    Entity,
    EntityPage,
    Fact,
    Observation,
    PurgeResult,
    Recall,
    Session,
    Stats,
    TimeInput,
    Triple,
    UnmergeResult,
    WriteResult,
)
from synapse_graph.rules.cursors import audit_cursor
from synapse_graph.ui.params import text, when
from synapse_graph.ui.settings import UiSettings

Time = str | int | float
"""A time in a request: ISO-8601 text (or another unambiguous form), or epoch seconds."""
TIME_HELP = "ISO-8601 (e.g. 2024-03-01 or 2024-03-01T09:30:00Z) or epoch seconds; empty: now"


class ErrorBody(BaseModel):
    """What a refused request gets: the kind of error and what to do about it."""

    error: str
    message: str


ERROR_RESPONSES: dict[int | str, dict[str, Any]] = {
    status: {"model": ErrorBody, "description": text}
    for status, text in ((400, "Bad input (nothing was changed)"), (401, "No bearer token or session"),
                         (403, "Refused: another site, or a change without the CSRF token"),
                         (404, "Not found"), (409, "Refused by the scope's rules or state (quota, session closed)"),
                         (421, "Host name not served (DNS-rebinding protection)"),
                         (503, "The database is busy or unreachable; retry"))
}


def memory_of(request: Request) -> AsyncMemory:
    memory: AsyncMemory = request.app.state.memory
    return memory


Memory = Annotated[AsyncMemory, Depends(memory_of)]


class Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


class UpsertBody(Body):
    triples: list[Triple] = Field(min_length=1, max_length=10_000)
    replace: bool = False
    valid_at: Time | None = Field(None, description=TIME_HELP)
    source: str | None = None
    model: str | None = Field(None, description="The model that extracted the facts (low confidence: candidates)")


class ObserveBody(Body):
    entity: str
    texts: list[str] = Field(max_length=1_000)
    source: str | None = None
    entity_type: str | None = None


class RetractBody(Body):
    subject: str
    predicate: str
    object: str | None = None
    at: Time | None = Field(None, description=TIME_HELP)


class Retracted(BaseModel):
    retracted: int
    """How many facts had their validity ended."""


class FeedbackBody(Body):
    fact: str = Field(description="The fact's id")
    verdict: Literal["helpful", "stale", "wrong"]


class FactBody(Body):
    fact: str = Field(description="The fact's id")


class RejectBody(FactBody):
    reason: str


class PairBody(Body):
    canonical: str = Field(description="The entity to keep (a proposal's canonical)")
    other: str = Field(description="The entity to merge into it (a proposal's other)")


class DistinctBody(PairBody):
    reason: str


class NameBody(Body):
    name: str = Field(description="The name of the entity merged away")


class EntityBody(Body):
    entity: str


class SessionBody(Body):
    session: str


class AuditPage(BaseModel):
    """A page of the audit log, newest first."""

    entries: list[AuditEntry]
    next: str | None = None
    """Pass as ``after`` for the next page (older entries); None: this page is the last."""


class Csrf(BaseModel):
    csrf_token: str
    """Send it as the X-CSRF-Token header of every change made with this session's cookie."""


def _when(value: Time | None) -> TimeInput | None:
    """A time from a request: text as a query parameter reads (digits are epoch seconds), numbers as given."""
    return when(value) if value is None or isinstance(value, str) else value


def router(settings: UiSettings) -> APIRouter:
    """The API's routes for these settings (review and erasure only when allowed)."""
    api = APIRouter(prefix="/api", responses=ERROR_RESPONSES)

    @api.get("/csrf", tags=["session"])
    async def csrf(request: Request) -> Csrf:
        """The CSRF token of this client's session cookie (set on this answer if it had none)."""
        return Csrf(csrf_token=request.state.csrf_token)

    @api.post("/upsert", tags=["write"])
    async def upsert(body: UpsertBody, memory: Memory) -> WriteResult:
        """``Memory.upsert``: write facts in one transaction (all or nothing)."""
        return await memory.upsert(body.triples, replace=body.replace, valid_at=_when(body.valid_at),
                                   source=body.source, model=body.model)

    @api.post("/observe", tags=["write"])
    async def observe(body: ObserveBody, memory: Memory) -> list[Observation]:
        """``Memory.observe``: record free-text observations about an entity; returns the new ones."""
        return await memory.observe(body.entity, body.texts, source=body.source, entity_type=body.entity_type)

    @api.post("/retract", tags=["write"])
    async def retract(body: RetractBody, memory: Memory) -> Retracted:
        """``Memory.retract``: end the validity of matching facts at ``at`` (default now); history keeps them."""
        return Retracted(retracted=await memory.retract(body.subject, body.predicate, body.object,
                                                        at=_when(body.at)))

    @api.post("/feedback", tags=["write"])
    async def feedback(body: FeedbackBody, memory: Memory) -> Fact:
        """``Memory.feedback``: helpful raises a fact's confidence; stale or wrong lower it and dispute it."""
        return await memory.feedback(body.fact, body.verdict)

    @api.get("/facts", tags=["read"])
    async def facts(memory: Memory, subject: str | None = None, predicate: str | None = None,
                    object: str | None = None, as_of: Annotated[str | None, Query(description=TIME_HELP)] = None,
                    known_at: Annotated[str | None, Query(description=TIME_HELP)] = None,
                    include_history: bool = False, limit: Annotated[int | None, Query(ge=1)] = None,
                    include_candidates: bool = False, include_disputed: bool = False) -> list[Fact]:
        """``Memory.facts``: facts valid at ``as_of`` as believed at ``known_at``."""
        return await memory.facts(text(subject), text(predicate), text(object), as_of=_when(as_of),
                                  known_at=_when(known_at), include_history=include_history, limit=limit,
                                  include_candidates=include_candidates, include_disputed=include_disputed)

    @api.get("/history", tags=["read"])
    async def history(memory: Memory, subject: str, predicate: str | None = None,
                      known_at: Annotated[str | None, Query(description=TIME_HELP)] = None) -> list[Fact]:
        """``Memory.history``: every validity interval of the subject's facts, oldest first."""
        return await memory.history(subject, text(predicate), known_at=_when(known_at))

    @api.get("/recall", tags=["read"])
    async def recall(memory: Memory, query: str, as_of: Annotated[str | None, Query(description=TIME_HELP)] = None,
                     known_at: Annotated[str | None, Query(description=TIME_HELP)] = None,
                     hops: Annotated[int, Query(ge=1, le=2)] = 1, limit: Annotated[int, Query(ge=1)] = 25,
                     min_score: Annotated[float | None, Query(ge=0, le=1)] = None) -> Recall:
        """``Memory.recall``: facts that answer a question in words, most relevant first, with why."""
        return await memory.recall(query, as_of=_when(as_of), known_at=_when(known_at), hops=hops, limit=limit,
                                   min_score=min_score)

    @api.get("/neighbourhood", tags=["read"])
    async def neighbourhood(memory: Memory, entity: str, hops: Annotated[int, Query(ge=1, le=2)] = 1,
                            as_of: Annotated[str | None, Query(description=TIME_HELP)] = None,
                            known_at: Annotated[str | None, Query(description=TIME_HELP)] = None,
                            limit: Annotated[int, Query(ge=1, le=10_000)] = 200) -> list[Fact]:
        """``Memory.neighbourhood``: facts valid at ``as_of`` around an entity (1 or 2 hops)."""
        return await memory.neighbourhood(entity, hops, as_of=_when(as_of), known_at=_when(known_at), limit=limit)

    @api.get("/entity", tags=["read"])
    async def entity(memory: Memory, name: str) -> Entity:
        """``Memory.entity``: the entity a name or alias refers to (404 if unknown)."""
        found = await memory.entity(name)
        if found is None:
            raise NotFoundError(f"no entity named {name!r} in scope {memory.scope!r}")
        return found

    @api.get("/entities", tags=["read"])
    async def entities(memory: Memory, after: str | None = None, limit: Annotated[int, Query(ge=1, le=1_000)] = 100,
                       known_at: Annotated[str | None, Query(description=TIME_HELP)] = None,
                       matching: str | None = None) -> EntityPage:
        """``Memory.entities``: a page of the scope's entities, oldest first (``next`` continues)."""
        return await memory.entities(after=text(after), limit=limit, known_at=_when(known_at), matching=text(matching))

    @api.get("/observations", tags=["read"])
    async def observations(memory: Memory, entity: str | None = None,
                           known_at: Annotated[str | None, Query(description=TIME_HELP)] = None,
                           include_history: bool = False,
                           limit: Annotated[int | None, Query(ge=1)] = None) -> list[Observation]:
        """``Memory.observations``: observations about an entity (or every entity), oldest first."""
        return await memory.observations(text(entity), known_at=_when(known_at), include_history=include_history,
                                         limit=limit)

    @api.get("/stats", tags=["read"])
    async def stats(memory: Memory) -> Stats:
        """``Memory.stats``: counts of the scope."""
        return await memory.stats()

    @api.get("/growth", tags=["read"])
    async def growth(memory: Memory, steps: Annotated[int, Query(ge=2, le=1_000)] = 60,
                     since: Annotated[str | None, Query(description=TIME_HELP)] = None,
                     until: Annotated[str | None, Query(description=TIME_HELP)] = None) -> Growth:
        """``Memory.growth``: the scope's counts at evenly spaced instants of recorded time."""
        return await memory.growth(steps=steps, since=_when(since), until=_when(until))

    @api.get("/audit", tags=["read"])
    async def audit(memory: Memory, entity: str | None = None, limit: Annotated[int, Query(ge=1, le=1_000)] = 100,
                    action: str | None = None, client: str | None = None, session: str | None = None,
                    since: Annotated[str | None, Query(description=TIME_HELP)] = None,
                    until: Annotated[str | None, Query(description=TIME_HELP)] = None,
                    after: str | None = None, brief: Annotated[int | None, Query(ge=1, le=1_000)] = None) -> AuditPage:
        """``Memory.audit``: the audit log, newest first, filtered; ``next`` continues with older entries;
        ``brief=n``: each entry's first n entities and records, and their counts."""
        filters: dict[str, Any] = {k: v for k, v in {
            "action": text(action), "client": text(client), "session": text(session), "since": _when(since),
            "until": _when(until), "after": text(after)}.items() if v is not None}
        found = await memory.audit(text(entity), limit=limit + 1, brief=brief, **filters)
        shown = found[:limit]
        return AuditPage(entries=shown, next=audit_cursor(shown[-1].at, shown[-1].id) if len(found) > limit else None)

    @api.get("/sessions", tags=["read"])
    async def sessions(memory: Memory) -> list[Session]:
        """``Memory.sessions``: the sessions this scope registered, oldest first."""
        return await memory.sessions()

    @api.get("/export", tags=["read"], response_class=StreamingResponse,
             responses={200: {"content": {"application/x-ndjson": {}}, "description": "JSON Lines"}})
    async def export(memory: Memory) -> StreamingResponse:
        """``Memory.export``: the scope as JSON Lines (what ``synapse-graph import`` reads)."""
        return export_response(await memory.export(), memory.scope)

    if settings.allow_review:
        @api.get("/pending", tags=["review"])
        async def pending(memory: Memory, limit: Annotated[int | None, Query(ge=1)] = None,
                          include_disputed: bool = False) -> list[Fact]:
            """``Memory.pending``: candidates waiting for review (and disputed facts, if asked), oldest first."""
            return await memory.pending(limit=limit, include_disputed=include_disputed)

        @api.post("/approve", tags=["review"])
        async def approve(body: FactBody, memory: Memory) -> FactBody:
            """``Memory.approve``: believe a candidate."""
            await memory.approve(body.fact)
            return body

        @api.post("/reject", tags=["review"])
        async def reject(body: RejectBody, memory: Memory) -> RejectBody:
            """``Memory.reject``: refuse a candidate, with the reason shown if it is written again."""
            await memory.reject(body.fact, body.reason)
            return body

        @api.get("/duplicates", tags=["review"])
        async def duplicates(memory: Memory, limit: Annotated[int, Query(ge=1, le=10_000)] = 100,
                             threshold: Annotated[float | None, Query(ge=0.0, le=1.0)] = None
                             ) -> list[DuplicateProposal]:
            """``Memory.duplicates``: pairs of entities that are probably one, best first, with the evidence."""
            return await memory.duplicates(limit=limit, threshold=threshold)

        @api.post("/approve_duplicate", tags=["review"])
        async def approve_duplicate(body: PairBody, memory: Memory) -> AliasResult:
            """``Memory.approve_duplicate``: merge ``other`` into ``canonical`` (audited with the proposal)."""
            return await memory.approve_duplicate(body.canonical, body.other)

        @api.post("/reject_duplicate", tags=["review"])
        async def reject_duplicate(body: DistinctBody, memory: Memory) -> DistinctBody:
            """``Memory.reject_duplicate``: record the two as distinct, never proposed again."""
            await memory.reject_duplicate(body.canonical, body.other, reason=body.reason)
            return body

        @api.post("/unmerge", tags=["review"])
        async def unmerge(body: NameBody, memory: Memory) -> UnmergeResult:
            """``Memory.unmerge``: undo the latest merge of the entity once called ``name``."""
            return await memory.unmerge(body.name)

    if settings.allow_erasure:
        @api.post("/purge", tags=["erasure"])
        async def purge(body: EntityBody, memory: Memory) -> PurgeResult:
            """``Memory.purge``: hard-delete an entity with its facts, aliases, observations and log entries."""
            return await memory.purge(body.entity)

        @api.post("/sessions/revoke", tags=["erasure"])
        async def revoke(body: SessionBody, memory: Memory) -> PurgeResult:
            """``Memory.revoke_session``: block a session's writes and erase its memory."""
            return await memory.revoke_session(body.session)

    return api


def export_response(lines: Any, scope: str) -> StreamingResponse:
    """A JSON Lines download of an export."""
    async def body() -> AsyncIterator[bytes]:
        for line in lines:
            yield (line + "\n").encode()

    safe = "".join(c if c.isalnum() or c in "-_" else "-" for c in scope)[:80] or "scope"
    return StreamingResponse(body(), media_type="application/x-ndjson",
                             headers={"content-disposition": f'attachment; filename="memory-{safe}.jsonl"'})
