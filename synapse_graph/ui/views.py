"""What each page of the inspector shows, as data: the pages render it, their ``.json`` twins return it.

Every value comes from the public :class:`~synapse_graph.AsyncMemory` API; nothing here queries the
database itself. The overview is a list of sections (:data:`OVERVIEW_SECTIONS`): a new one (say, what
changed since a time) is a loader and a template added there.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from pydantic import BaseModel, Field

from synapse_graph.aio import AsyncMemory
from synapse_graph.growth import Growth
from synapse_graph.instants import to_datetime
from synapse_graph.models import (
    AuditEntry,
    Changes,
    DuplicateProposal,
    Entity,
    EntityPage,
    Fact,
    Observation,
    Recall,
    Session,
    Stats,
    TimeInput,
)
from synapse_graph.rules.cursors import audit_cursor
from synapse_graph.rules.timeparse import to_micros
from synapse_graph.ui import duplicates
from synapse_graph.ui.duplicates import Merge
from synapse_graph.ui.params import Page

TIMELINE_RECORDS = 120
"""The most validity intervals an entity's timeline draws at once, oldest first; it pages through the rest (a
predicate chosen draws and pages its own)."""
GROWTH_STEPS = 48
LATEST_WRITES = 10
AUDIT_BRIEF = 6
"""The entities (and record ids) of each entry the audit page shows; it counts the rest (a bulk write touches
thousands)."""
CHANGES_SHOWN = 30
"""The overview's changes: at most this many, made by its latest writes."""
TIMED_SECONDS = 60.0
"""How long counts that depend on the time (facts valid now, the growth chart) are shown before they are
read again, when nothing was written meanwhile."""


@dataclass
class _Kept:
    written: datetime | None
    read_at: datetime
    value: Any
    refreshing: asyncio.Task[None] | None = None


class Aggregates:
    """Reads that walk the whole scope (its counts, its growth, the review lists), kept until the scope changes
    (:meth:`AsyncMemory.last_write` moves): each is exact for the instant it was read at, which the pages show.
    Those that depend on the time (facts valid now) are read again in the background once they are
    :data:`TIMED_SECONDS` old; a write makes the next page read them before it answers."""

    def __init__(self) -> None:
        self._kept: dict[str, _Kept] = {}
        self._reading: dict[str, asyncio.Task[None]] = {}

    async def read(self, memory: AsyncMemory, name: str, load: Callable[[], Awaitable[Any]], *,
                   timed: bool) -> tuple[Any, datetime]:
        """The value of ``load()`` and when it was read: kept, or read again if the scope changed since."""
        written = await memory.last_write()
        kept = self._kept.get(name)
        if (kept is None or kept.written != written) and name in self._reading:
            await asyncio.wait({self._reading[name]})  # the read a page started without waiting for it
            kept = self._kept.get(name)
        if kept is None or kept.written != written:
            return await self._load(name, load, written)
        old = (datetime.now(UTC) - kept.read_at).total_seconds() >= TIMED_SECONDS
        if timed and old and kept.refreshing is None:
            async def refresh() -> None:
                try:
                    await self._load(name, load, written)
                finally:
                    kept.refreshing = None
            kept.refreshing = asyncio.create_task(refresh())
        return kept.value, kept.read_at

    async def peek(self, memory: AsyncMemory, name: str, load: Callable[[], Awaitable[Any]]
                   ) -> tuple[Any, datetime] | None:
        """The kept value of ``load()`` if the scope has not changed since it was read; else None, and it is read
        again in the background (a page that must not wait for a walk of the scope shows it next time)."""
        written = await memory.last_write()
        kept = self._kept.get(name)
        if kept is not None and kept.written == written:
            return kept.value, kept.read_at
        if name not in self._reading:
            async def read() -> None:
                try:
                    await self._load(name, load, written)
                finally:
                    self._reading.pop(name, None)
            self._reading[name] = asyncio.create_task(read())
        return None

    async def _load(self, name: str, load: Callable[[], Awaitable[Any]], written: datetime | None
                    ) -> tuple[Any, datetime]:
        read_at = datetime.now(UTC)
        value = await load()
        self._kept[name] = _Kept(written, read_at, value)
        return value, read_at


# -- overview -------------------------------------------------------------------------------------------


class Counts(BaseModel):
    """The overview's counts of the scope (``Memory.stats`` and ``Memory.sessions``)."""

    entities: int
    facts_valid_now: int
    superseded: int
    """Records no longer believed (replaced by a later write: history)."""
    candidates: int
    disputed: int
    observations: int
    sessions: int
    fact_records: int
    """Records currently believed or disputed, past validity intervals included."""
    read_at: datetime
    """The instant these counts are exact for (they are read again after any write, or a minute later)."""

    @classmethod
    def of(cls, stats: Stats, sessions: list[Session], read_at: datetime) -> Counts:
        return cls(entities=stats.entities, facts_valid_now=stats.valid_now, superseded=stats.expired_records,
                   candidates=stats.candidates, disputed=stats.disputed, observations=stats.observations,
                   sessions=len(sessions), fact_records=stats.facts, read_at=read_at)


class Reads:
    """What the overview's sections read, for one request: the store, the reads kept across requests, and the
    reads two sections share (the latest writes, which one lists and another asks what they changed), each
    made once."""

    def __init__(self, memory: AsyncMemory, kept: Aggregates) -> None:
        self.memory, self.kept = memory, kept
        self._latest: asyncio.Task[list[AuditEntry]] | None = None

    def latest(self) -> Awaitable[list[AuditEntry]]:
        """The scope's latest :data:`LATEST_WRITES` audit entries, newest first (read once per request)."""
        if self._latest is None:
            self._latest = asyncio.ensure_future(self.memory.audit(limit=LATEST_WRITES, brief=AUDIT_BRIEF))
        return self._latest


@dataclass(frozen=True)
class Section:
    """One part of the overview: its name (a key of the JSON twin), its template and its loader."""

    name: str
    template: str
    load: Callable[[Reads], Awaitable[BaseModel | list[Any] | None]]


async def _counts(reads: Reads) -> Counts:
    memory, kept = reads.memory, reads.kept

    async def read() -> tuple[Stats, list[Session]]:
        stats, sessions = await asyncio.gather(memory.stats(), memory.sessions())
        return stats, sessions

    (stats, sessions), read_at = await kept.read(memory, "counts", read, timed=True)
    return Counts.of(stats, sessions, read_at)


async def _growth(reads: Reads) -> Growth:
    memory = reads.memory
    growth, _ = await reads.kept.read(memory, "growth", lambda: memory.growth(steps=GROWTH_STEPS), timed=True)
    return growth  # type: ignore[no-any-return]


async def _latest(reads: Reads) -> list[AuditEntry]:
    return await reads.latest()


async def _changes(reads: Reads) -> Changes | None:
    """What the latest writes changed (``Memory.changes`` since the oldest of them): facts added, ended,
    corrected, judged; observations; merges. None while the scope has no write. The latest writes are the
    ones the overview lists (one read of the audit log for both)."""
    latest = await reads.latest()
    if not latest:
        return None
    return await reads.memory.changes(since=min(e.at for e in latest), limit=CHANGES_SHOWN)


OVERVIEW_SECTIONS: list[Section] = [
    Section("counts", "sections/counts.html", _counts),
    Section("growth", "sections/growth.html", _growth),
    Section("changes", "sections/changes.html", _changes),
    Section("latest_writes", "sections/latest.html", _latest),
]


class Overview(BaseModel):
    scope: str
    sections: dict[str, Any] = Field(default_factory=dict)


async def overview(memory: AsyncMemory, kept: Aggregates) -> Overview:
    reads = Reads(memory, kept)
    loaded = await asyncio.gather(*(section.load(reads) for section in OVERVIEW_SECTIONS))
    return Overview(scope=memory.scope, sections={s.name: value for s, value in zip(OVERVIEW_SECTIONS, loaded,
                                                                                   strict=True)})


# -- entities, search ---------------------------------------------------------------------------------


class EntityList(BaseModel):
    scope: str
    matching: str | None = None
    page: EntityPage


async def entity_list(memory: AsyncMemory, *, matching: str | None, after: str | None, size: int) -> EntityList:
    found = await memory.entities(after=after, limit=size, matching=matching)
    return EntityList(scope=memory.scope, matching=matching, page=found)


class Search(BaseModel):
    scope: str
    query: str | None = None
    as_of: str | None = None
    known_at: str | None = None
    hops: int = 1
    recall: Recall | None = None
    page: int = 1
    more: bool = False


async def search(memory: AsyncMemory, query: str | None, *, as_of: TimeInput | None, known_at: TimeInput | None,
                 hops: int, page: Page) -> Search:
    view = Search(scope=memory.scope, query=query, as_of=_shown(as_of), known_at=_shown(known_at), hops=hops,
                  page=page.number)
    if query:
        found = await memory.recall(query, as_of=as_of, known_at=known_at, hops=hops, limit=page.read)
        facts, view.more = page.cut(found.facts)
        view.recall = found.model_copy(update={"facts": facts})
    return view


def _shown(value: TimeInput | None) -> str | None:
    return None if value is None else str(value)


# -- an entity ----------------------------------------------------------------------------------------


class EntityView(BaseModel):
    """An entity as the memory held it: facts valid at ``as_of`` as believed at ``known_at``, its observations,
    and the validity intervals of its facts (the timeline)."""

    scope: str
    name: str
    entity: Entity | None = None
    as_of: datetime
    """The instant shown (now unless asked)."""
    known_at: datetime | None = None
    """None: as the memory believes now; else as it believed then."""
    predicate: str | None = None
    facts: list[Fact] = Field(default_factory=list)
    """Facts about the entity (it is their subject), every trust state, this page of them."""
    incoming: list[Fact] = Field(default_factory=list)
    """Facts naming the entity as their object, this page of them."""
    observations: list[Observation] = Field(default_factory=list)
    """Its observations held at ``known_at``, oldest recorded first, this page of them (a hub may have thousands)."""
    history: list[Fact] = Field(default_factory=list)
    """The validity intervals of its facts (believed), oldest first, this page of the timeline: what it draws."""
    history_complete: bool = True
    """The timeline draws every interval (one page of them)."""
    timeline_page: int = 1
    """Which page of the intervals the timeline draws (:data:`TIMELINE_RECORDS` a page)."""
    history_offset: int = 0
    """How many intervals the pages before this one drew."""
    history_more: bool = False
    """Later intervals follow on the next page of the timeline."""
    qualifiers: dict[str, list[str]] = Field(default_factory=dict)
    """Trust qualifiers of each fact shown, by id, at ``as_of``."""
    page: int = 1
    more: bool = False
    first: datetime | None = None
    """Where the as-of slider starts: the earliest validity or record of the entity's facts."""
    now: datetime
    duplicates: list[DuplicateProposal] = Field(default_factory=list)
    """The scope's duplicate proposals naming this entity, read at ``duplicates_read_at``."""
    duplicates_read_at: datetime | None = None
    """None: the scope changed since its proposals were last read; they are being read (shown next time)."""


async def entity(memory: AsyncMemory, name: str, *, as_of: TimeInput | None, known_then: bool,
                 predicate: str | None, page: Page, kept: Aggregates, timeline: int = 1) -> EntityView:
    now = datetime.now(UTC)
    found = await memory.entity(name)
    if found is None:
        return EntityView(scope=memory.scope, name=name, as_of=now, now=now)
    shown = _instant(as_of) or now
    known_at = as_of if known_then and as_of is not None else None
    drawn = Page(timeline, TIMELINE_RECORDS)
    out, incoming, notes, history, proposed = await asyncio.gather(
        memory.facts(found.name, predicate, as_of=as_of, known_at=known_at, limit=page.read, include_candidates=True,
                     include_disputed=True),
        memory.facts(None, predicate, found.name, as_of=as_of, known_at=known_at, limit=page.read,
                     include_candidates=True, include_disputed=True),
        memory.observations(found.name, known_at=known_at, limit=page.read),
        memory.facts(found.name, predicate, include_history=True, known_at=known_at, limit=drawn.read),
        duplicates.current_proposals(memory, kept),
    )
    facts, more_out = page.cut(out)
    incoming_page, more_in = page.cut(incoming)
    notes_page, more_notes = page.cut(notes)
    intervals, more_intervals = drawn.cut(history)
    moment = shown
    starts = [f.valid_at for f in history] + [f.recorded_at for f in history]
    return EntityView(
        scope=memory.scope, name=found.name, entity=found, as_of=moment,
        known_at=_instant(known_at) if known_at is not None else None, predicate=predicate, facts=facts,
        incoming=incoming_page, observations=notes_page, history=intervals, timeline_page=timeline,
        history_offset=drawn.offset, history_more=more_intervals, history_complete=timeline == 1 and not more_intervals,
        qualifiers={f.id: f.qualifiers(moment) for f in [*facts, *incoming_page]},
        page=page.number, more=more_out or more_in or more_notes, first=min(starts) if starts else found.created_at,
        now=now, duplicates=duplicates.involving(proposed, found) if proposed else [],
        duplicates_read_at=proposed.read_at if proposed else None)


def _instant(value: TimeInput | None) -> datetime | None:
    """The UTC instant of a time, read by the library's own rules (a bad one raises InvalidTimeError)."""
    return None if value is None else to_datetime(to_micros(value, field="as_of"))


# -- the graph ------------------------------------------------------------------------------------------


class GraphNode(BaseModel):
    id: str
    label: str
    centre: bool = False


class GraphEdge(BaseModel):
    id: str
    source: str
    target: str
    predicate: str
    valid_at: datetime
    invalid_at: datetime | None = None
    status: str


class GraphView(BaseModel):
    """The facts valid at ``as_of`` around an entity (``Memory.neighbourhood``), as nodes and edges."""

    scope: str
    name: str
    found: bool
    as_of: datetime
    known_at: datetime | None = None
    hops: int
    limit: int
    facts: list[Fact] = Field(default_factory=list)
    nodes: list[GraphNode] = Field(default_factory=list)
    edges: list[GraphEdge] = Field(default_factory=list)


async def graph(memory: AsyncMemory, name: str, *, as_of: TimeInput | None, known_then: bool, hops: int,
                limit: int) -> GraphView:
    now = datetime.now(UTC)
    found = await memory.entity(name)
    moment = _instant(as_of) or now
    known_at = as_of if known_then and as_of is not None else None
    view = GraphView(scope=memory.scope, name=found.name if found else name, found=found is not None, as_of=moment,
                     known_at=_instant(known_at), hops=hops, limit=limit)
    if found is None:
        return view
    view.facts = await memory.neighbourhood(found.name, hops, as_of=as_of, known_at=known_at, limit=limit)
    names = {found.name: True}
    for fact in view.facts:
        names.setdefault(fact.subject, False)
        names.setdefault(fact.object, False)
    view.nodes = [GraphNode(id=f"n{i}", label=n, centre=c) for i, (n, c) in enumerate(names.items())]
    ids = {node.label: node.id for node in view.nodes}
    view.edges = [GraphEdge(id=f.id, source=ids[f.subject], target=ids[f.object], predicate=f.predicate,
                            valid_at=f.valid_at, invalid_at=f.invalid_at, status=f.status) for f in view.facts]
    return view


# -- review, audit, sessions -----------------------------------------------------------------------------


class ReviewView(BaseModel):
    scope: str
    candidates: list[Fact] = Field(default_factory=list)
    disputed: list[Fact] = Field(default_factory=list)
    duplicates: list[DuplicateProposal] = Field(default_factory=list)
    """This page of the scope's duplicate-entity proposals (``Memory.duplicates``), best first."""
    duplicates_read_at: datetime | None = None
    merges: list[Merge] = Field(default_factory=list)
    """The latest merges (by review or ``alias``), each undone by ``unmerge`` while it holds."""
    page: int = 1
    more: bool = False
    read_at: datetime | None = None


async def review(memory: AsyncMemory, page: Page, kept: Aggregates) -> ReviewView:
    (waiting, read_at), found, merges = await asyncio.gather(
        kept.read(memory, f"pending:{page.read}", lambda: memory.pending(limit=page.read, include_disputed=True),
                  timed=False),
        duplicates.proposals(memory, kept), duplicates.latest_merges(memory))
    shown, more = page.cut(waiting)
    proposed, more_proposed = page.cut(found.proposals)
    return ReviewView(scope=memory.scope, candidates=[f for f in shown if f.status == "candidate"],
                      disputed=[f for f in shown if f.status == "disputed"], duplicates=proposed,
                      duplicates_read_at=found.read_at, merges=merges, page=page.number, more=more or more_proposed,
                      read_at=read_at)


class AuditView(BaseModel):
    """A page of the audit log, each entry in brief (its first :data:`AUDIT_BRIEF` entities and records, counted):
    the JSON API's ``/api/audit`` reads entries whole."""

    scope: str
    filters: dict[str, str] = Field(default_factory=dict)
    entries: list[AuditEntry] = Field(default_factory=list)
    next: str | None = None
    """Pass as ``after`` for the next page (older entries); None: this page is the last."""


async def audit(memory: AsyncMemory, *, entity: str | None, filters: dict[str, Any], after: str | None,
                size: int) -> AuditView:
    given = {k: v for k, v in filters.items() if v is not None}
    paged = {"after": after} if after else {}
    found = await memory.audit(entity, limit=size + 1, brief=AUDIT_BRIEF, **given, **paged)
    shown = found[:size]
    shown_filters = {k: str(v) for k, v in {"entity": entity, **given}.items() if v is not None}
    return AuditView(scope=memory.scope, filters=shown_filters, entries=shown,
                     next=audit_cursor(shown[-1].at, shown[-1].id) if len(found) > size else None)


class SessionsView(BaseModel):
    scope: str
    now: datetime
    sessions: list[Session] = Field(default_factory=list)
    status: dict[str, str] = Field(default_factory=dict)
    """Each session's status now (active, expired, revoked), by id."""
    page: int = 1
    more: bool = False


async def sessions(memory: AsyncMemory, page: Page) -> SessionsView:
    now = datetime.now(UTC)
    every = await memory.sessions()
    shown, more = page.cut(every)
    return SessionsView(scope=memory.scope, now=now, sessions=shown, status={s.id: s.status(now) for s in shown},
                        page=page.number, more=more)


# -- erasure ---------------------------------------------------------------------------------------------


class PurgePreview(BaseModel):
    """What purging an entity would remove, named before anyone confirms it."""

    scope: str
    name: str
    entity: Entity | None = None
    fact_intervals: int = 0
    """Validity intervals of facts naming the entity (as subject or object); earlier beliefs of them go too."""
    observations: int = 0
    aliases: list[str] = Field(default_factory=list)


async def purge_preview(memory: AsyncMemory, name: str) -> PurgePreview:
    found = await memory.entity(name)
    if found is None:
        return PurgePreview(scope=memory.scope, name=name)
    out, incoming, notes = await asyncio.gather(
        memory.facts(found.name, include_history=True, include_candidates=True, include_disputed=True),
        memory.facts(None, None, found.name, include_history=True, include_candidates=True, include_disputed=True),
        memory.observations(found.name))
    return PurgePreview(scope=memory.scope, name=found.name, entity=found,
                        fact_intervals=len({f.id for f in [*out, *incoming]}), observations=len(notes),
                        aliases=found.aliases)
