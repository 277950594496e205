"""A write step: one write, whole, as the facade hands it to :func:`~synapse_graph.engine.operations.write`.

Every write of the library (an upsert, a review, an alias, a session's registration, an import chunk) is a
:class:`WriteStep`: the context it writes in and its plan. The facade runs a step holding the lock of the
step's own scope, so the scope a step plans for and the scope it locks and writes cannot differ (a session's
facts cannot reach the durable scope by a context left out).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from synapse_graph.engine.context import Context
from synapse_graph.engine.io import Op
from synapse_graph.engine.view import Ahead, View
from synapse_graph.engine.writes import Mutation

type Planning[T] = Callable[[View], Op[tuple[Mutation | None, T]]]
"""A write's planning: given the view of the scope (read holding its lock), the mutation to apply (None:
nothing to write) and the write's result."""


@dataclass(frozen=True)
class WriteStep[T]:
    """One write: where it writes and what it plans."""

    ctx: Context
    """The context the write runs in: its scope (a session's own scope, or the durable one), who writes, and
    the session that must still be open."""
    plan: Planning[T]
    ahead: Callable[[int], Ahead | None] | None = None
    """What the plan will read (given the write's instant), so it comes back in one round trip with the
    scope's state; None: the state alone is read first."""
    then: Callable[[T], WriteStep[T] | None] | None = None
    """The write that follows this one, given its result, in a transaction of its own (a scope's purge, page by
    page); None, or None returned: this one's result is the write's."""

    @property
    def scope(self) -> str:
        """The scope whose lock the write holds, and that it writes."""
        return self.ctx.scope


def no_mutation[T](op: Op[T]) -> Op[tuple[Mutation | None, T]]:
    """The plan of a step that writes by statements of its own (an erasure): no mutation, and ``op``'s result."""
    return None, (yield from op)
