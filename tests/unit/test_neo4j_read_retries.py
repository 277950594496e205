"""The attempts of a Neo4j read (sync and async share them): a retryable failure waits 0.1, 0.2, 0.4 ... s (2 s at
most) while READ_RETRY_SECONDS allows; any other raises as the library's error."""

from __future__ import annotations

import pytest
from neo4j import exceptions as neo4j_errors

from synapse_graph.backends import neo4j as backend
from synapse_graph.errors import BackendError, BackendUnavailableError


def test_a_retryable_failure_waits_longer_each_time_up_to_two_seconds() -> None:
    retries = backend._ReadRetries("bolt://example")
    waits = [retries.wait(neo4j_errors.SessionExpired("lost")) for _ in range(6)]
    assert waits == pytest.approx([0.1, 0.2, 0.4, 0.8, 1.6, 2.0])


def test_a_failure_the_driver_does_not_call_retryable_raises_at_once() -> None:
    with pytest.raises(BackendError):
        backend._ReadRetries("bolt://example").wait(neo4j_errors.ConfigurationError("bad"))


def test_a_retryable_failure_raises_once_the_retry_time_would_pass(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(backend, "READ_RETRY_SECONDS", 0.15)  # the time passed (~0 here) and the next wait
    retries = backend._ReadRetries("bolt://example")
    assert retries.wait(neo4j_errors.SessionExpired("lost")) == pytest.approx(0.1)  # 0.1 <= 0.15
    with pytest.raises(BackendUnavailableError):  # 0.2 > 0.15
        retries.wait(neo4j_errors.SessionExpired("lost"))
