"""One error hierarchy for the whole library, rooted at :class:`SynapseError`.

::

    SynapseError
    ├── InvalidInputError          bad input, refused before any query runs; nothing was written
    │   ├── InvalidTimeError, InvalidPredicateError, InvalidNameError, InvalidScopeError
    │   ├── SecretRejectedError    a secret where secrets are refused
    │   └── InvalidImportError     an import line that could make the store lie (names the line)
    ├── NotFoundError              a fact id, entity, session or store that does not exist
    ├── QuotaExceededError         a write would take a scope over one of its stored quotas
    ├── ScopeRulesConflictError    a Memory opened with rules other than those stored with the scope
    ├── SessionClosedError         a write to a session that expired or was revoked
    ├── ModelUnavailableError      the offload model could not be reached or failed (retryable as it says)
    ├── OffloadQueueFullError      too many offload jobs wait already (retryable)
    ├── ConfigurationError         a malformed location, option or missing extra (not retryable)
    │   ├── NotNeo4jError
    │   ├── NewerStoreFormatError  a scope written by a newer synapse-graph: upgrade the library
    │   ├── MissingExtraError      an optional dependency is not installed (the message names the extra)
    │   ├── EmbedderUnavailableError
    │   └── EmbedderMismatchError  an embedder other than the one whose vectors the scope holds
    ├── StoreDamagedError          the store's files are damaged: it is not opened as if it were fine
    └── BackendError               the database refused or failed; ``is_retryable()`` says if retrying helps
        ├── BackendUnavailableError    could not connect or start (retryable)
        ├── AuthenticationError        wrong credentials (not retryable)
        ├── QueryRefusedError          the server refused a statement
        ├── ConcurrencyConflictError   concurrent writers kept changing the scope (retryable)
        └── ScopeBusyError             the scope's write lock was not had in time (retryable)
"""

from __future__ import annotations


class SynapseError(Exception):
    """Base class of every error synapse-graph raises on purpose."""


class InvalidInputError(SynapseError, ValueError):
    """A value given to the API is malformed; nothing was written."""


class InvalidTimeError(InvalidInputError):
    """A time could not be parsed, is ambiguous, or is out of range."""


class InvalidPredicateError(InvalidInputError):
    """A predicate is not ``UPPER_SNAKE_CASE`` (1-64 chars) or is reserved."""


class InvalidNameError(InvalidInputError):
    """An entity name is empty, too long, a secret, or holds characters the store refuses."""


class InvalidScopeError(InvalidInputError):
    """A scope is malformed, or an operation named a scope other than the memory's own."""


class SecretRejectedError(InvalidInputError):
    """A value contained a secret and the memory is configured to refuse secrets.

    The message names the kind of secret (``email``, ``api_key``...), never its value.
    """

    def __init__(self, message: str, kinds: tuple[str, ...] = ()) -> None:
        super().__init__(message)
        self.kinds = kinds


class InvalidImportError(InvalidInputError):
    """An import line is not a valid export line, or would make the store inconsistent.

    ``line`` is the 1-based line number (``None`` when the problem spans the file).
    """

    def __init__(self, message: str, line: int | None = None) -> None:
        super().__init__(message if line is None else f"import line {line}: {message}")
        self.line = line


class ConflictingValuesError(InvalidInputError):
    """One write gave an entity two values of a single-valued predicate from the same instant: written
    together one of them would hold for no time, so the whole write is refused and nothing is written.

    ``indexes``: the positions (in the caller's list) of every triple in such a conflict.
    """

    def __init__(self, message: str, indexes: tuple[int, ...] = ()) -> None:
        super().__init__(message)
        self.indexes = indexes


class NotFoundError(SynapseError, LookupError):
    """What a call named does not exist (a fact id, a session, a store to read)."""


class QuotaExceededError(SynapseError):
    """A write would take a scope over one of its quotas; nothing was written."""


class ScopeRulesConflictError(SynapseError):
    """A ``Memory`` was opened with rules (quotas, single-valued predicates...) that differ from
    the rules stored with its scope. Every client enforces the stored rules; change them
    explicitly with ``Memory.set_rules``."""


class SessionClosedError(SynapseError):
    """A write went to a session that expired or was revoked; nothing was written."""


class ConfigurationError(SynapseError, ValueError):
    """A location, option or installation is wrong; retrying the same call cannot help."""

    def is_retryable(self) -> bool:
        return False


class NewerStoreFormatError(ConfigurationError):
    """The scope was written by a newer synapse-graph than this one: upgrade the library to use it."""


class NotNeo4jError(ConfigurationError):
    """The database is not a Neo4j server, so Neo4j Browser cannot show it."""


class MissingExtraError(ConfigurationError, ImportError):
    """An optional dependency is not installed; the message names the package's extra that brings it."""


class EmbedderUnavailableError(ConfigurationError, ImportError):
    """The optional ``vector`` extra, or the model files it provides, is missing."""


class EmbedderMismatchError(ConfigurationError):
    """The memory's embedder is not the one whose vectors the scope holds (another model, or dimension): its
    recall and writes are refused until the scope's memories are embedded again (``reindex_embeddings``)."""


class StoreDamagedError(SynapseError):
    """The store's files are damaged; it was not opened. The message says what and how to repair."""


class BackendError(SynapseError):
    """The database refused or failed an operation."""

    retryable: bool = False

    def is_retryable(self) -> bool:
        """True when running the same call again may succeed."""
        return self.retryable


class BackendUnavailableError(BackendError):
    """The database could not be reached or started."""

    retryable = True


class AuthenticationError(BackendError):
    """The database refused the credentials."""

    retryable = False


class QueryRefusedError(BackendError):
    """The database refused a statement (``retryable`` as the server said)."""


class ConcurrencyConflictError(BackendError):
    """Concurrent writers kept changing the scope; the batch was not applied."""

    retryable = True


class ScopeBusyError(BackendError):
    """The scope's write lock could not be had within the configured timeout; nothing was written."""

    retryable = True


# -- offload (the extraction model and its job queue) ----------------------------------------------


class ModelUnavailableError(SynapseError):
    """The extraction model's endpoint could not be reached, timed out, or answered with an error."""

    def __init__(self, message: str, *, retryable: bool = True) -> None:
        super().__init__(message)
        self.retryable = retryable
        self.refused_response_format = False
        """The endpoint refused the requested ``response_format`` (a simpler one may work)."""

    def is_retryable(self) -> bool:
        return self.retryable


class OffloadQueueFullError(SynapseError):
    """The offload queue is full; nothing was queued. Wait for running jobs, then offload again."""

    def is_retryable(self) -> bool:
        return True
