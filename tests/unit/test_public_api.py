"""The package's public names: what ``recall`` and ``audit`` return can be imported from ``synapse_graph``,
and every name ``__all__`` promises exists."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from types import ModuleType

import pytest
from pydantic import BaseModel

import synapse_graph
from synapse_graph import growth, models


@pytest.mark.parametrize("name", ["Recall", "RecalledFact", "RecalledObservation", "RecallReason", "RecallUsage",
                                  "EntryEntity", "AuditEntry"])
def test_the_result_models_of_recall_and_audit_are_exported(name: str) -> None:
    assert name in synapse_graph.__all__
    assert getattr(synapse_graph, name) is getattr(models, name)
    namespace: dict[str, object] = {}
    exec(f"from synapse_graph import {name}", namespace)
    assert namespace[name] is getattr(models, name)


def test_every_name_in_all_resolves_and_is_listed_once() -> None:
    missing = [name for name in synapse_graph.__all__ if not hasattr(synapse_graph, name)]
    assert missing == []
    assert len(set(synapse_graph.__all__)) == len(synapse_graph.__all__)
    namespace: dict[str, object] = {}
    exec("from synapse_graph import *", namespace)
    assert set(namespace) - {"__builtins__"} == set(synapse_graph.__all__)


def _topics(module: ModuleType) -> list[ModuleType]:
    """The module itself, or every module of a package."""
    if not hasattr(module, "__path__"):
        return [module]
    return [importlib.import_module(f"{module.__name__}.{sub.name}") for sub in pkgutil.iter_modules(module.__path__)]


@pytest.mark.parametrize(("module", "some"), [(models, {"Recall", "RecalledObservation", "AuditEntry"}),
                                              (growth, {"Growth", "GrowthPoint"})], ids=["models", "growth"])
def test_every_public_model_is_exported(module: ModuleType, some: set[str]) -> None:
    defined = {name for topic in _topics(module) for name, value in vars(topic).items()
               if inspect.isclass(value) and issubclass(value, BaseModel) and value.__module__ == topic.__name__
               and not name.startswith("_")}
    assert some <= defined  # the check below looks at the right module
    assert sorted(defined - set(synapse_graph.__all__)) == []
    assert sorted(name for name in defined if getattr(module, name, None) is not getattr(synapse_graph, name)) == []


def test_every_error_of_the_tree_is_exported() -> None:
    from synapse_graph import errors

    tree = {name for name, value in vars(errors).items() if inspect.isclass(value)
            and issubclass(value, errors.SynapseError) and value.__module__ == errors.__name__}
    assert "NotNeo4jError" in tree and "EmbedderUnavailableError" in tree
    missing = sorted(name for name in tree if getattr(synapse_graph, name, None) is not getattr(errors, name))
    assert not missing, f"errors not exported from synapse_graph: {missing}"
    assert tree <= set(synapse_graph.__all__)
