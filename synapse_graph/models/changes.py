"""Time as a question: what the memory learned and unlearned (:class:`Changes`), how the world differs between
two times (:class:`Diff`)."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from synapse_graph import render
from synapse_graph.models.entities import Observation
from synapse_graph.models.facts import Fact
from synapse_graph.models.readable import Readable

ChangeKind = Literal["added", "ended", "corrected", "removed", "approved", "rejected", "feedback", "observed",
                     "forgotten", "merged", "purged"]
"""What a change did: a fact record ``added`` (a new fact, or a new interval of one); a fact ``ended`` (its
validity closed: superseded by a new value, retracted); ``corrected`` (its validity reshaped otherwise: united
with an overlapping interval, ...); ``removed`` (a belief withdrawn with nothing in its place); a candidate
``approved`` or ``rejected``; ``feedback`` on a fact; an observation ``observed`` or ``forgotten``; two entities
``merged``; an entity ``purged`` (the change names nothing of it)."""


class Change(Readable, BaseModel):
    """One thing the memory learned or unlearned, when, who did it and why (:meth:`Memory.changes`)."""

    model_config = ConfigDict(frozen=True)

    at: datetime
    """When the memory changed (the recorded time of the write)."""
    kind: ChangeKind
    action: str
    """The write that made it, as the audit log names it (upsert, retract, alias, approve, reject, ...)."""
    fact: Fact | None = None
    """The fact record the change made (added, ended, corrected, approved), or the one it withdrew or judged."""
    before: list[Fact] = Field(default_factory=list)
    """What the memory believed of the same fact before, now expired (ended, corrected, approved)."""
    superseded_by: Fact | None = None
    """The new value of the same subject and predicate that ended it (``why == "superseded"``)."""
    why: str | None = None
    """``superseded``, ``retracted``, a rejection's reason, a feedback verdict."""
    observation: Observation | None = None
    entities: list[str] = Field(default_factory=list)
    """A merge's two entities, merged first (now an alias), then the one it was merged into."""
    client: str | None = None
    """Who made the change (the writing client; for a retraction, who retracted)."""
    source: str | None = None
    model: str | None = None
    session: str | None = None

    def __str__(self) -> str:
        """``2024-06-01 10:00  ended  Dana LIVES_IN Paris  [2019-01-01 → 2022-09-15)  superseded by London``."""
        what = ""
        if self.fact is not None:
            what = f"{self.fact.subject} {self.fact.predicate} {self.fact.object}  " + render.interval_text(
                self.fact.valid_at, self.fact.invalid_at)
        elif self.observation is not None:
            what = f"{self.observation.entity}: {self.observation.text}"
        elif self.entities:
            what = " into ".join(self.entities)
        why = self.why or ""
        if self.superseded_by is not None:
            why = f"superseded by {self.superseded_by.object} from {render.time_text(self.superseded_by.valid_at)}"
        by = f"by {self.client!r}" if self.client else ""
        return "  ".join(part for part in (render.time_text(self.at), self.kind, what, why, by) if part)


class Changes(Readable, BaseModel):
    """A page of what changed between two recorded times, oldest first (:meth:`Memory.changes`)."""

    since: datetime
    until: datetime | None = None
    """None: up to now."""
    changes: list[Change] = Field(default_factory=list)
    next: str | None = None
    """Pass as ``after`` for the next page; None when this page is the last."""

    def __str__(self) -> str:
        until = f" until {render.time_text(self.until)}" if self.until else ""
        span = f"since {render.time_text(self.since)}{until}"
        lines = [f"{render.plural(len(self.changes), 'change')} {span}", *(f"  {c}" for c in self.changes)]
        return "\n".join(lines + (["(more: pass next as after)"] if self.next else []))


class Diff(Readable, BaseModel):
    """How the world differs between two valid times, as the memory knows it (:meth:`Memory.diff`)."""

    a: datetime
    b: datetime
    known_at: datetime | None = None
    """The belief read (None: the current one)."""
    began: list[Fact] = Field(default_factory=list)
    """Facts whose validity began after ``a``, up to and including ``b``, earliest first."""
    ended: list[Fact] = Field(default_factory=list)
    """Facts whose validity ended after ``a``, up to and including ``b``, earliest first."""

    def __str__(self) -> str:
        head = f"from {render.time_text(self.a)} to {render.time_text(self.b)}"
        lines = [f"{head}: {render.plural(len(self.began), 'fact')} began, {len(self.ended):,} ended"]
        lines += [f"  + {render.time_text(f.valid_at)}  {f.subject} {f.predicate} {f.object}" for f in self.began]
        lines += [f"  - {render.time_text(f.invalid_at)}  {f.subject} {f.predicate} {f.object}" for f in self.ended]
        return "\n".join(lines)
