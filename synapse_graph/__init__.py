"""synapse-graph: a durable, temporal knowledge-graph memory for AI agents."""

from synapse_graph.errors import (
    BackendError,
    BackendUnavailableError,
    ConcurrencyConflictError,
    InvalidInputError,
    InvalidNameError,
    InvalidPredicateError,
    InvalidScopeError,
    InvalidTimeError,
    QuotaExceededError,
    SecretRejectedError,
    SynapseError,
)
from synapse_graph.memory import Memory
from synapse_graph.models import Entity, Fact, PurgeResult, Stats, Triple, WriteResult

__version__ = "0.1.0"

__all__ = [
    "BackendError",
    "BackendUnavailableError",
    "ConcurrencyConflictError",
    "Entity",
    "Fact",
    "InvalidInputError",
    "InvalidNameError",
    "InvalidPredicateError",
    "InvalidScopeError",
    "InvalidTimeError",
    "Memory",
    "PurgeResult",
    "QuotaExceededError",
    "SecretRejectedError",
    "Stats",
    "SynapseError",
    "Triple",
    "WriteResult",
]
