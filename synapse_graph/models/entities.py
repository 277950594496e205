"""Entities, the pages that list them, and the observations held about them."""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, ConfigDict, Field

from synapse_graph import render
from synapse_graph.models.facts import Fact
from synapse_graph.models.readable import Readable
from synapse_graph.rules.cursors import entity_cursor


class Observation(Readable, BaseModel):
    """Free text about an entity, kept with when it was recorded (``Memory.observe``)."""

    model_config = ConfigDict(frozen=True)

    id: str
    entity: str
    """The entity's name."""
    text: str
    valid_at: datetime | None = None
    """When what it tells happened or held (``Memory.observe(..., valid_at=...)``), if the writer said."""
    recorded_at: datetime
    expired_at: datetime | None = None
    """When it was forgotten (``Memory.unobserve``): history keeps it."""
    source: str | None = None
    client: str | None = None
    session: str | None = None

    def __str__(self) -> str:
        when = "" if self.valid_at is None else f"{render.time_text(self.valid_at)}, "
        return f"{self.entity}: {self.text}  ({when}recorded {render.time_text(self.recorded_at)})"


class Entity(Readable, BaseModel):
    """An entity of the memory with its aliases."""

    model_config = ConfigDict(frozen=True)

    name: str
    key: str
    aliases: list[str] = Field(default_factory=list)
    type: str | None = None
    created_at: datetime
    updated_at: datetime

    def __str__(self) -> str:
        kind = f", a {self.type}" if self.type else ""
        return f"{self.name}  (aliases: {', '.join(self.aliases) or 'none'}{kind})"


class EntityPage(Readable, BaseModel):
    """One page of ``Memory.entities``: entities oldest first, with the observations each held."""

    model_config = ConfigDict(frozen=True)

    entities: list[Entity] = Field(default_factory=list)
    observations: dict[str, list[Observation]] = Field(default_factory=dict)
    """Each listed entity's observations (by entity key) as believed at the listing's ``known_at``, oldest first."""
    facts: dict[str, list[Fact]] | None = None
    """``with_facts``: each listed entity's facts (by entity key), believed and valid at the listing's
    ``known_at`` (now if None), without supersession links: those it is the subject of and, for a listing
    ``matching`` a text, those it is the object of whose subject that listing leaves out (so that every fact
    between listed entities is on one page, beside its subject). None: not read."""
    next: str | None = None
    """Pass as ``after`` for the next page; None when this page is the last."""

    @staticmethod
    def cursor_after(entity: Entity) -> str:
        """The cursor that continues a listing right after ``entity`` (``next`` is the one after the last)."""
        return entity_cursor(entity.created_at, entity.key)

    def __str__(self) -> str:
        lines = [str(e) for e in self.entities]
        return "\n".join(lines + (["(more: pass next as after)"] if self.next else [])) or "no entities"
