"""Runs ``AsyncMemory`` under the synchronous integration tests (a test seam, not library code).

Every integration test takes a memory from ``make_memory``, which is parametrised over the
sync ``Memory`` and the ``AsyncMemory`` on both backends. For the latter, :class:`Blocking`
turns each awaited call into a blocking one: the coroutine runs on one event loop in a thread
of its own (the async clients stay bound to that loop), and its result or exception comes back.
"""

from __future__ import annotations

import asyncio
import inspect
import threading
from collections.abc import Callable, Coroutine, Iterator
from typing import Any


class EventLoopThread:
    """An event loop running in a daemon thread, for the whole test session."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self.loop.run_forever, name="async-memory-loop", daemon=True)
        self._thread.start()

    def run(self, coroutine: Coroutine[Any, Any, Any]) -> Any:
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result()

    def stop(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(timeout=10)


class Blocking:
    """A blocking view of an object whose methods are coroutines (``AsyncMemory``, its backend)."""

    def __init__(self, target: Any, runner: EventLoopThread) -> None:
        self._target = target
        self._runner = runner

    def __getattr__(self, name: str) -> Any:
        attribute = getattr(self._target, name)
        if inspect.iscoroutinefunction(attribute):
            return lambda *args, **kwargs: self._runner.run(attribute(*args, **kwargs))
        if name == "backend":
            return Blocking(attribute, self._runner)
        return attribute

    def awaited(self, make: Callable[[Any], Coroutine[Any, Any, Any]]) -> Any:
        """Runs ``make(target)`` (a coroutine on the wrapped object, e.g. a function taking an AsyncMemory) on
        the wrapped object's event loop, blocking until it is done."""
        return self._runner.run(make(self._target))

    def __enter__(self) -> Blocking:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __iter__(self) -> Iterator[Any]:
        return iter(self._target)

    def __repr__(self) -> str:
        return f"Blocking({self._target!r})"
