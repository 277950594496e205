"""Time as a question, on both facades: what the memory learned and unlearned between two recorded times,
and how the world differs between two valid times (the work is in :mod:`synapse_graph.engine.changes`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from synapse_graph.engine.changes import DEFAULT_PAGE, ask_changes, ask_diff
from synapse_graph.models import TimeInput
from synapse_graph.models.changes import Changes, Diff

if TYPE_CHECKING:
    from synapse_graph.engine.context import Context
    from synapse_graph.engine.io import Op


class TimeQuestions:
    """:meth:`changes` and :meth:`diff` of :class:`~synapse_graph.Memory`."""

    if TYPE_CHECKING:
        _ctx: Context

        def _read[T](self, op: Op[T]) -> T: ...

    def changes(self, since: TimeInput, until: TimeInput | None = None, *, entity: str | None = None,
                predicate: str | None = None, limit: int = DEFAULT_PAGE, after: str | None = None) -> Changes:
        """What the memory learned and unlearned from ``since`` up to ``until`` (recorded times; default now),
        oldest first, a page of at most ``limit`` (pass ``page.next`` as ``after`` for the next one).

        Facts added, ended (superseded by a new value, retracted) or corrected, candidates approved or
        rejected, feedback, observations recorded or forgotten, merges and purges: each with when, who
        (client, session, source) and why (``superseded_by`` the new value, ``retracted`` by its client).
        ``entity``/``predicate``: only the changes about them. A purged entity appears in no change."""
        return self._read(ask_changes(self._ctx, since, until, entity, predicate, limit, after))

    def diff(self, a: TimeInput, b: TimeInput, *, entity: str | None = None, known_at: TimeInput | None = None,
             limit: int | None = None) -> Diff:
        """How the world differs between valid times ``a`` and ``b``: the facts that began and the facts that
        ended after ``a``, up to and including ``b`` (of ``entity`` only, if given), as the memory believes
        now (or believed at ``known_at``); believed facts only, each with what it replaces and was replaced_by."""
        return self._read(ask_diff(self._ctx, a, b, entity, known_at, limit))


class AsyncTimeQuestions:
    """:meth:`changes` and :meth:`diff` of :class:`~synapse_graph.AsyncMemory`."""

    if TYPE_CHECKING:
        _ctx: Context

        async def _read[T](self, op: Op[T]) -> T: ...

    async def changes(self, since: TimeInput, until: TimeInput | None = None, *, entity: str | None = None,
                      predicate: str | None = None, limit: int = DEFAULT_PAGE, after: str | None = None) -> Changes:
        """See :meth:`Memory.changes`."""
        return await self._read(ask_changes(self._ctx, since, until, entity, predicate, limit, after))

    async def diff(self, a: TimeInput, b: TimeInput, *, entity: str | None = None, known_at: TimeInput | None = None,
                   limit: int | None = None) -> Diff:
        """See :meth:`Memory.diff`."""
        return await self._read(ask_diff(self._ctx, a, b, entity, known_at, limit))
