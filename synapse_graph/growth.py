"""How a scope grew over recorded time (:meth:`Memory.growth`): pure models, no I/O."""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, ConfigDict, Field

from synapse_graph import render


class GrowthPoint(BaseModel):
    """What the scope held at one instant of recorded (belief) time, as it believed it then."""

    model_config = ConfigDict(frozen=True)

    at: datetime
    facts: int
    """Fact records believed or disputed at ``at`` (history included, as :attr:`Stats.facts` counts them)."""
    candidates: int
    """Fact records waiting for review at ``at``."""
    entities: int
    """Entities created at or before ``at`` that the scope still holds (merged and purged ones are gone)."""
    observations: int
    """Observations held at ``at`` (not yet forgotten)."""


class Growth(BaseModel):
    """The answer of :meth:`Memory.growth`: the scope's counts at evenly spaced instants, oldest first.

    Each point counts what had been recorded at or before its instant and not expired by it, so the
    last point of a growth read up to now matches :meth:`Memory.stats`.
    """

    model_config = ConfigDict(frozen=True)

    scope: str
    since: datetime | None = None
    """The first point's instant (None: the scope has recorded nothing)."""
    until: datetime | None = None
    points: list[GrowthPoint] = Field(default_factory=list)

    def __str__(self) -> str:
        if not self.points:
            return f"scope {self.scope!r} has recorded nothing"
        last = self.points[-1]
        return (f"scope {self.scope!r} from {render.time_text(self.points[0].at)} to {render.time_text(last.at)}: "
                + render.counts_text([(last.facts, "fact"), (last.entities, "entity"),
                                      (last.observations, "observation")]) + " at the end")
