"""What writes and reviews return: the counts of a write, an alias merge, a purge and an unmerge, proposed
duplicate entities with their evidence, and a scope's counts."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from synapse_graph import render
from synapse_graph.models.entities import Observation
from synapse_graph.models.readable import Readable


class Evidence(BaseModel):
    """One reason for (``weight`` > 0) or against (< 0) two entities being one."""

    model_config = ConfigDict(frozen=True)

    kind: str
    """``name``, ``shared neighbour``, ``same type``, ``rare name``, ``only match``, and against: ``different
    types``, ``conflicting values``, ``linked to each other``, ``different qualifiers``, ``ambiguous name``..."""
    weight: float
    """Log-odds it adds to the score."""
    text: str
    """What it says, for a person."""
    detail: dict[str, Any] = Field(default_factory=dict)
    """The same, structured (the predicate, the shared entity, how the names agree)."""


class DuplicateProposal(Readable, BaseModel):
    """Two entities that are probably one, with the score and the evidence (``Memory.duplicates``)."""

    model_config = ConfigDict(frozen=True)

    canonical: str
    """The name of the entity to keep (the fuller name, the one with more facts)."""
    other: str
    """The name of the entity to merge into it."""
    canonical_key: str
    other_key: str
    score: float
    """From 0 to 1: the evidence for and against added up as log-odds (see docs/duplicates.md)."""
    evidence: list[Evidence] = Field(default_factory=list)

    @property
    def merge_call(self) -> str:
        """The call that merges them (what ``approve_duplicate`` does, audited)."""
        return f"alias({self.canonical!r}, {self.other!r})"

    def __str__(self) -> str:
        reasons = "; ".join(f"{e.text} ({e.weight:+.1f})" for e in self.evidence)
        return f"{self.other!r} may be {self.canonical!r}  score {self.score:.2f}: {reasons}"


class Observed(list[Observation]):
    """The observations an ``observe`` call recorded (a list, as before), with what else the call found."""

    def __init__(self, made: Iterable[Observation] = (), possible_duplicates: Iterable[DuplicateProposal] = (),
                 confirmed: Iterable[Observation] = ()) -> None:
        super().__init__(made)
        self.possible_duplicates: list[DuplicateProposal] = list(possible_duplicates)
        """The entity this call created strongly matches these existing ones (score >= 0.95)."""
        self.confirmed: list[Observation] = list(confirmed)
        """Observations the entity held already, near-identical to texts of this call: confirmed, not stored
        twice."""


class UnmergeResult(Readable, BaseModel):
    """What ``unmerge`` restored, and where the writes made since the merge stayed."""

    model_config = ConfigDict(frozen=True)

    restored: str
    """The name of the entity brought back."""
    kept: str
    """The name of the entity it had been merged into."""
    merged_at: str
    """When the merge was made (ISO-8601), by the audit log."""
    facts_restored: int = 0
    """Fact records of the restored entity, history included, as they were before the merge."""
    observations_restored: int = 0
    aliases_restored: int = 0
    later_facts: list[str] = Field(default_factory=list)
    """Ids of fact records written to the merged entity after the merge: they stay on the kept entity."""
    later_observations: list[str] = Field(default_factory=list)
    """Ids of observations recorded about the merged entity after the merge: they stay on the kept entity."""
    changed_since: list[str] = Field(default_factory=list)
    """Ids of records the merge moved or changed that later writes changed again: restored as they were before
    the merge (on the restored entity), the later change kept as history where it expired them."""

    def __str__(self) -> str:
        later = len(self.later_facts) + len(self.later_observations)
        stayed = f"; {render.plural(later, 'later write')} stayed on {self.kept!r}" if later else ""
        return (f"{self.restored!r} restored from {self.kept!r} (merged {self.merged_at}): "
                f"{render.plural(self.facts_restored, 'fact record')}, "
                f"{render.plural(self.observations_restored, 'observation')}, "
                f"{render.plural(self.aliases_restored, 'alias', 'aliases')}{stayed}")


class WriteResult(Readable, BaseModel):
    """What one ``upsert`` changed."""

    created: int = 0
    """New FACT records (new facts and new intervals)."""
    confirmed: int = 0
    """Existing records confirmed again (confirmations bumped)."""
    closed: int = 0
    """Records whose validity was ended or reshaped (their old version is expired, kept in history)."""
    entities_created: int = 0
    aliases_merged: int = 0
    possible_duplicates: list[DuplicateProposal] = Field(default_factory=list)
    """Entities this write created that strongly match an existing one (score >= 0.95): merge them with
    ``approve_duplicate`` (or ``alias``), or record them as distinct with ``reject_duplicate``."""

    def __str__(self) -> str:
        return (f"created {render.plural(self.created, 'fact record')}, confirmed {self.confirmed}, "
                f"closed {self.closed}; {render.plural(self.entities_created, 'new entity', 'new entities')}"
                + (f", {render.plural(self.aliases_merged, 'alias', 'aliases')} merged" if self.aliases_merged else "")
                + "".join(f"\n  possible duplicate: {p}" for p in self.possible_duplicates))


class AliasResult(Readable, BaseModel):
    """What ``alias`` changed."""

    canonical: str
    """The canonical name, as asked."""
    alias: str
    """The other name, as asked."""
    changed: bool
    """False if the alias already named the canonical entity (nothing was written)."""
    merged: bool = False
    """True if the alias named an entity of its own, now merged into the canonical one."""
    facts_moved: int = 0
    """Fact records (validity intervals, closed ones included) the merged entity held, now the canonical
    entity's; earlier beliefs (history) move with them."""

    def __str__(self) -> str:
        if not self.changed:
            return f"nothing changed: {self.alias!r} already names {self.canonical!r}"
        merged = f" (entities merged: {render.plural(self.facts_moved, 'fact record')} moved)" if self.merged else ""
        return f"{self.alias!r} is now an alias of {self.canonical!r}{merged}"


class ExportSummary(Readable, BaseModel):
    """What an export holds, checked whole (:func:`~synapse_graph.check_export`)."""

    entities: int = 0
    facts: int = 0
    """Fact records, history and earlier beliefs included."""
    observations: int = 0
    rejections: int = 0
    audit_entries: int = 0
    sessions: int = 0

    def __str__(self) -> str:
        return (f"{render.plural(self.entities, 'entity', 'entities')}, {render.plural(self.facts, 'fact record')}, "
                f"{render.plural(self.observations, 'observation')}, {render.plural(self.rejections, 'rejection')}, "
                f"{render.plural(self.audit_entries, 'audit entry', 'audit entries')}, "
                f"{render.plural(self.sessions, 'session')}")


class PurgeResult(Readable, BaseModel):
    """What a purge removed for good."""

    entities: int
    facts: int
    """Distinct facts (subject, predicate, object) removed, whatever their history."""
    records: int = 0
    """Stored records removed: every validity interval and every earlier belief of those facts."""
    aliases: int

    def __str__(self) -> str:
        return "removed " + render.counts_text(
            [(self.entities, "entity"), (self.facts, "fact"), (self.records, "stored record"),
             (self.aliases, "alias")])


class Stats(Readable, BaseModel):
    """Counts for one scope."""

    scope: str
    entities: int
    aliases: int
    facts: int
    """Records currently believed or disputed (history included, corrections excluded). ``max_facts`` counts
    them and the current observations; candidates are counted apart."""
    valid_now: int
    expired_records: int
    candidates: int = 0
    """Current records waiting for review (not believed)."""
    disputed: int = 0
    observations: int = 0
    """Current observations (``Memory.observe``)."""

    def __str__(self) -> str:
        return (f"scope {self.scope!r}: " + render.counts_text([(self.entities, "entity"), (self.aliases, "alias"),
                                                             (self.facts, "fact")])
                + f" ({self.valid_now:,} valid now), " + render.counts_text([
                    (self.expired_records, "superseded record"), (self.candidates, "candidate")])
                + f", {self.disputed:,} disputed")
