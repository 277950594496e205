"""One error hierarchy for the whole library, rooted at :class:`SynapseError`.

Bad input is refused with an :class:`InvalidInputError` subclass before any query
runs; problems with the database are :class:`BackendError` subclasses that say
whether retrying could help.
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
    """An entity name is empty, too long, or holds characters the store refuses."""


class InvalidScopeError(InvalidInputError):
    """A scope is malformed, or an operation named a scope other than the memory's own."""


class SecretRejectedError(InvalidInputError):
    """A value contained a secret and the memory is configured to refuse secrets.

    The message names the kind of secret (``email``, ``api_key``...), never its value.
    """

    def __init__(self, message: str, kinds: tuple[str, ...] = ()) -> None:
        super().__init__(message)
        self.kinds = kinds


class QuotaExceededError(SynapseError):
    """A write would take a scope over its fact or entity quota; nothing was written."""


class BackendError(SynapseError):
    """The database refused or failed an operation."""

    retryable: bool = False

    def is_retryable(self) -> bool:
        """True when running the same call again may succeed."""
        return self.retryable


class BackendUnavailableError(BackendError):
    """The database could not be reached or started."""

    retryable = True


class ConcurrencyConflictError(BackendError):
    """Concurrent writers kept changing the scope; the batch was not applied."""

    retryable = True
