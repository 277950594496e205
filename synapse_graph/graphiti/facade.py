"""``Memory.import_graphiti`` and its ``AsyncMemory`` twin (mixed into the facades: their work is here)."""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable, Iterable
from typing import Any, Protocol

from synapse_graph import graphiti
from synapse_graph.engine.context import Context
from synapse_graph.engine.io import Op
from synapse_graph.graphiti.lines import GraphitiImport
from synapse_graph.models import WriteResult

Lines = Iterable[str] | str | os.PathLike[str]


class _Importer(Protocol):
    _ctx: Context

    def _read[T](self, op: Op[T]) -> T: ...

    def import_(self, lines: Lines, *, batch_size: int = ..., progress: Any = ...) -> WriteResult: ...


class _AsyncImporter(Protocol):
    _ctx: Context

    def _read[T](self, op: Op[T]) -> Awaitable[T]: ...

    def import_(self, lines: Lines, *, batch_size: int = ..., progress: Any = ...) -> Awaitable[WriteResult]: ...


class GraphitiImports:
    """The Graphiti import of :class:`~synapse_graph.Memory`."""

    def import_graphiti(self: _Importer, source: str, *, group_id: str | None = None,
                        auth: tuple[str, str] | None = None, database: str | None = None, batch_size: int = 2_000,
                        progress: Any = None) -> GraphitiImport:
        """Import a group of a Graphiti graph into this scope (read with graphiti-core: the ``graphiti`` extra).

        ``source``: the Neo4j (``bolt://``, ``neo4j://``) or FalkorDB (``falkordb://``, ``redis://``,
        ``unix://``) URL Graphiti writes to; ``group_id``: the group (needed when the graph holds several);
        ``auth``/``database``: Graphiti's Neo4j user and password, and database. Entity nodes become entities
        (their summaries observations), entity edges facts with Graphiti's times, loaded by :meth:`import_`:
        the same checks, redaction, quotas and audit entry. Ids come from Graphiti's uuids, so importing again
        adds nothing. The report says what was merged, renamed and left out (see
        :mod:`synapse_graph.graphiti.lines` for how each part maps).
        """
        found = graphiti.read_group(source, group_id, auth=auth, database=database)
        return import_group(self, found, batch_size=batch_size, progress=progress)


def import_group(memory: _Importer, group: graphiti.GraphitiGroup, *, batch_size: int = 2_000, progress: Any = None,
                 through: Callable[[list[str]], Iterable[str]] | None = None) -> GraphitiImport:
    """A group already read, imported into ``memory``'s scope; ``through`` sees the export lines on their way to
    ``import_`` (the CLI counts them and stops on Ctrl-C)."""
    translation = graphiti.translate(group, memory._ctx)
    held = memory._read(graphiti.held_observations(memory._ctx, translation.observation_ids))
    lines = translation.lines if through is None else through(translation.lines)
    written = memory.import_(lines, batch_size=batch_size, progress=progress)
    return graphiti.finished(translation, written, held)


class AsyncGraphitiImports:
    """The Graphiti import of :class:`~synapse_graph.aio.AsyncMemory`."""

    async def import_graphiti(self: _AsyncImporter, source: str, *, group_id: str | None = None,
                              auth: tuple[str, str] | None = None, database: str | None = None,
                              batch_size: int = 2_000, progress: Any = None) -> GraphitiImport:
        """See :meth:`Memory.import_graphiti`."""
        found = await graphiti.read_group_async(source, group_id, auth=auth, database=database)
        translation = graphiti.translate(found, self._ctx)
        held = await self._read(graphiti.held_observations(self._ctx, translation.observation_ids))
        written = await self.import_(translation.lines, batch_size=batch_size, progress=progress)
        return graphiti.finished(translation, written, held)
