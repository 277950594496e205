"""synapse-graph: a durable, temporal knowledge-graph memory for AI agents.

``Memory``, ``AsyncMemory`` and the models are imported when first used (PEP 562), so a
process that needs one part (a hook, a CLI command) does not pay for the others: the asyncio
twin alone pulls in asyncio and the async drivers.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from synapse_graph.errors import (
    AuthenticationError,
    BackendError,
    BackendUnavailableError,
    ConcurrencyConflictError,
    ConfigurationError,
    ConflictingValuesError,
    EmbedderMismatchError,
    EmbedderUnavailableError,
    InvalidImportError,
    InvalidInputError,
    InvalidNameError,
    InvalidPredicateError,
    InvalidScopeError,
    InvalidTimeError,
    MissingExtraError,
    ModelUnavailableError,
    NewerStoreFormatError,
    NotFoundError,
    NotNeo4jError,
    OffloadQueueFullError,
    QueryRefusedError,
    QuotaExceededError,
    ScopeBusyError,
    ScopeRulesConflictError,
    SecretRejectedError,
    SessionClosedError,
    StoreDamagedError,
    SynapseError,
)

if TYPE_CHECKING:
    from synapse_graph.aio import AsyncMemory
    from synapse_graph.exports import check_export
    from synapse_graph.growth import Growth, GrowthPoint
    from synapse_graph.memory import Memory
    from synapse_graph.models import (
        AliasResult,
        AuditEntry,
        Change,
        Changes,
        Diff,
        Digest,
        DuplicateProposal,
        Entity,
        EntityPage,
        EntryEntity,
        Evidence,
        ExportSummary,
        Fact,
        FactLink,
        Observation,
        PurgeResult,
        Recall,
        RecalledFact,
        RecalledObservation,
        RecallReason,
        RecallUsage,
        ScopeRules,
        Session,
        Stats,
        Triple,
        UnmergeResult,
        WriteResult,
    )

_LAZY = {"AsyncMemory": "synapse_graph.aio", "Memory": "synapse_graph.memory", "check_export": "synapse_graph.exports",
         **dict.fromkeys(("Growth", "GrowthPoint"), "synapse_graph.growth"), **dict.fromkeys((
             "AliasResult", "AuditEntry", "Change", "Changes", "Diff", "Digest", "DuplicateProposal", "Entity",
             "EntityPage", "EntryEntity", "Evidence", "ExportSummary", "Fact", "FactLink", "Observation", "PurgeResult",
             "Recall", "RecalledFact", "ScopeRules", "Session", "Stats", "Triple", "UnmergeResult", "WriteResult",
             "RecalledObservation", "RecallReason", "RecallUsage"), "synapse_graph.models")}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'synapse_graph' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


__version__ = "0.1.0"

__all__ = [
    "AliasResult",
    "AsyncMemory",
    "AuditEntry",
    "AuthenticationError",
    "BackendError",
    "BackendUnavailableError",
    "Change",
    "Changes",
    "ConcurrencyConflictError",
    "ConfigurationError",
    "ConflictingValuesError",
    "Diff",
    "Digest",
    "DuplicateProposal",
    "EmbedderMismatchError",
    "EmbedderUnavailableError",
    "Entity",
    "EntityPage",
    "EntryEntity",
    "Evidence",
    "ExportSummary",
    "Fact",
    "FactLink",
    "Growth",
    "GrowthPoint",
    "InvalidImportError",
    "InvalidInputError",
    "InvalidNameError",
    "InvalidPredicateError",
    "InvalidScopeError",
    "InvalidTimeError",
    "Memory",
    "MissingExtraError",
    "ModelUnavailableError",
    "NewerStoreFormatError",
    "NotFoundError",
    "NotNeo4jError",
    "Observation",
    "OffloadQueueFullError",
    "PurgeResult",
    "QueryRefusedError",
    "QuotaExceededError",
    "Recall",
    "RecallReason",
    "RecallUsage",
    "RecalledFact",
    "RecalledObservation",
    "ScopeBusyError",
    "ScopeRules",
    "ScopeRulesConflictError",
    "SecretRejectedError",
    "Session",
    "SessionClosedError",
    "Stats",
    "StoreDamagedError",
    "SynapseError",
    "Triple",
    "UnmergeResult",
    "WriteResult",
    "check_export",
]
