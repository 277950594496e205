"""``Memory`` and ``AsyncMemory`` stay twins: the same public calls, parameters and defaults, each documented."""

from __future__ import annotations

import inspect
from collections.abc import Callable

import pytest

from synapse_graph import AsyncMemory, Memory


def _public(cls: type) -> dict[str, object]:
    return {name: inspect.getattr_static(cls, name) for name in dir(cls) if not name.startswith("_")}


MEMORY = _public(Memory)
ASYNC = _public(AsyncMemory)
METHODS = sorted(name for name, value in MEMORY.items() if inspect.isfunction(value))


def test_the_twins_are_compared_on_every_public_call() -> None:
    assert {"upsert", "recall", "rules", "import_", "offload"} <= set(METHODS)
    assert not isinstance(MEMORY["rules"], property)  # reading the rules is a query: a method on both


def test_every_public_name_of_memory_exists_on_the_async_memory() -> None:
    assert sorted(set(MEMORY) - set(ASYNC)) == []
    properties = sorted(name for name, value in MEMORY.items() if isinstance(value, property))
    assert [name for name in properties if not isinstance(ASYNC[name], property)] == []


@pytest.mark.parametrize("name", METHODS)
def test_each_method_is_a_coroutine_with_the_same_parameters(name: str) -> None:
    sync, twin = getattr(Memory, name), getattr(AsyncMemory, name)
    assert inspect.iscoroutinefunction(twin), f"AsyncMemory.{name} must be a coroutine function"
    assert _without_self(twin) == _without_self(sync), f"AsyncMemory.{name} differs from Memory.{name}"


def _without_self(method: Callable[..., object]) -> inspect.Signature:
    """The signature a caller sees (a mixin's ``self`` may be annotated with its own protocol)."""
    signature = inspect.signature(method)
    return signature.replace(parameters=list(signature.parameters.values())[1:])


@pytest.mark.parametrize("name", sorted({*MEMORY, *ASYNC}))
def test_each_public_name_is_documented_on_both(name: str) -> None:
    for cls, names in ((Memory, MEMORY), (AsyncMemory, ASYNC)):
        if isinstance(names.get(name), property) or inspect.isfunction(names.get(name)):
            assert inspect.getdoc(getattr(cls, name)), f"{cls.__name__}.{name} has no docstring"
    if inspect.isfunction(MEMORY.get(name)) and name in vars(AsyncMemory):
        doc = inspect.getdoc(getattr(AsyncMemory, name)) or ""
        assert doc == inspect.getdoc(getattr(Memory, name)) or f"Memory.{name}`" in doc, (
            f"AsyncMemory.{name}: say 'See :meth:`Memory.{name}`' (or repeat its docstring)")
