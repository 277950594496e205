"""Recall's kept embeddings stay within their byte budget across scopes (engine/recall_vectors.py): the least
recently recalled scopes are dropped first, the current one last."""

from __future__ import annotations

from collections import OrderedDict

import pytest

from synapse_graph.engine import recall_vectors


def kept(size: int) -> recall_vectors._Kept:
    k = recall_vectors._Kept("minilm")
    k.size = size
    return k


def test_the_least_recently_recalled_scopes_are_dropped_first(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(recall_vectors, "BUDGET", 100)
    scopes = OrderedDict([("a", kept(40)), ("b", kept(40)), ("c", kept(40))])
    recall_vectors._within_budget(scopes, "c")
    assert list(scopes) == ["b", "c"]


def test_the_current_scope_goes_last_and_only_when_alone_over_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(recall_vectors, "BUDGET", 100)
    scopes = OrderedDict([("c", kept(60)), ("a", kept(60))])
    recall_vectors._within_budget(scopes, "c")
    assert list(scopes) == ["c"]
    scopes = OrderedDict([("c", kept(160))])
    recall_vectors._within_budget(scopes, "c")
    assert list(scopes) == []
