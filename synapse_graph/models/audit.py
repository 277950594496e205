"""The append-only audit log of a scope."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

from synapse_graph import render
from synapse_graph.models.readable import Readable


class AuditEntry(Readable, BaseModel):
    """One mutation in the append-only audit log of a scope."""

    model_config = ConfigDict(frozen=True)

    id: str
    at: datetime
    action: str
    """upsert, retract, alias, approve, reject, feedback, import or purge."""
    client: str | None = None
    source: str | None = None
    model: str | None = None
    session: str | None = None
    entities: list[str] = Field(default_factory=list)
    """Keys of the entities it touched."""
    facts: list[str] = Field(default_factory=list)
    """Ids of the fact records it created, expired or updated."""
    detail: dict[str, Any] = Field(default_factory=dict)
    """Ids of the records created and expired, and before/after of updated ones (confidence,
    confirmations, state), plus what else the action did (entities created, aliases, rejections)."""
    secrets: list[str] = Field(default_factory=list)
    """Kinds of secrets redacted from the input (never their values)."""
    entity_count: int = 0
    """How many entities it touched (``entities`` holds them all unless ``brief``)."""
    fact_count: int = 0
    """How many fact records it created, expired or updated (``facts`` holds them all unless ``brief``)."""
    brief: bool = False
    """Read in brief (``Memory.audit(brief=n)``): ``entities`` and ``facts`` are the first n only, ``detail`` is
    empty; the whole entry is read without ``brief``."""

    @model_validator(mode="before")
    @classmethod
    def _counted(cls, data: Any) -> Any:
        """A whole entry counts its own lists."""
        if isinstance(data, dict) and not data.get("brief"):
            data = {**data, "entity_count": len(data.get("entities") or []), "fact_count": len(data.get("facts") or [])}
        return data

    def __str__(self) -> str:
        who = " ".join(f"{label} {value!r}" for label, value in (
            ("by", self.client), ("source", self.source), ("model", self.model), ("session", self.session)) if value)
        touched = render.counts_text([(self.entity_count, "entity"), (self.fact_count, "fact record")])
        shown = ", ".join(self.entities[:5]) + (", ..." if self.entity_count > 5 else "")
        line = f"{render.time_text(self.at)}  {self.action}  {who}  {touched}" + (f" ({shown})" if shown else "")
        return line + (f"  secrets redacted: {', '.join(self.secrets)}" if self.secrets else "")
