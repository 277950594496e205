"""Pure data models of the public API (pydantic, no I/O), one module per topic; every name is importable
from here (``from synapse_graph.models import Fact``)."""

from synapse_graph.models.audit import AuditEntry
from synapse_graph.models.changes import Change, Changes, Diff
from synapse_graph.models.entities import Entity, EntityPage, Observation
from synapse_graph.models.facts import Fact, FactLink, Period, TimeInput, Triple, TrustState
from synapse_graph.models.recall import (
    RECALL_NOTICE,
    Digest,
    EntryEntity,
    Recall,
    RecalledFact,
    RecalledObservation,
    RecallReason,
    RecallUsage,
)
from synapse_graph.models.results import (
    AliasResult,
    DuplicateProposal,
    Evidence,
    ExportSummary,
    Observed,
    PurgeResult,
    Stats,
    UnmergeResult,
    WriteResult,
)
from synapse_graph.models.scope_rules import DEFAULT_SINGLE_VALUED, ScopeRules
from synapse_graph.models.sessions import MemoryScope, Session

__all__ = [
    "DEFAULT_SINGLE_VALUED",
    "RECALL_NOTICE",
    "AliasResult",
    "AuditEntry",
    "Change",
    "Changes",
    "Diff",
    "Digest",
    "DuplicateProposal",
    "Entity",
    "EntityPage",
    "EntryEntity",
    "Evidence",
    "ExportSummary",
    "Fact",
    "FactLink",
    "MemoryScope",
    "Observation",
    "Observed",
    "Period",
    "PurgeResult",
    "Recall",
    "RecallReason",
    "RecallUsage",
    "RecalledFact",
    "RecalledObservation",
    "ScopeRules",
    "Session",
    "Stats",
    "TimeInput",
    "Triple",
    "TrustState",
    "UnmergeResult",
    "WriteResult",
]
