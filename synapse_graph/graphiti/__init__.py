"""Switching from Graphiti: a Graphiti graph (``graphiti-core``, on Neo4j or FalkorDB) imported into a scope.

``Memory.import_graphiti(url, group_id=...)`` reads one group through graphiti-core's own drivers and models
(:mod:`~synapse_graph.graphiti.source`), turns it into export lines (:mod:`~synapse_graph.graphiti.lines`,
which says how every node, edge and time maps) and loads them with ``Memory.import_``: the same checks,
redaction, quotas and audit entry (action ``import``) as any import, times kept to the microsecond, and
ids taken from Graphiti's uuids, so importing again adds nothing.
"""

from __future__ import annotations

from collections.abc import Iterable

from synapse_graph.catalogue import Q
from synapse_graph.engine.context import Context
from synapse_graph.engine.io import Op, read
from synapse_graph.graphiti.lines import GraphitiImport, LeftOut, Translation, predicate_for, translate
from synapse_graph.graphiti.source import (
    GraphitiEdge,
    GraphitiGroup,
    GraphitiNode,
    default_group,
    graphiti_groups_async,
    read_group_async,
    run_sync,
)
from synapse_graph.models import WriteResult

__all__ = [
    "GraphitiEdge",
    "GraphitiGroup",
    "GraphitiImport",
    "GraphitiNode",
    "LeftOut",
    "default_group",
    "graphiti_groups",
    "graphiti_groups_async",
    "predicate_for",
    "read_group",
    "read_group_async",
    "translate",
]


def graphiti_groups(source: str, *, auth: tuple[str, str] | None = None, database: str | None = None) -> list[str]:
    """The group ids of the Graphiti graph at ``source`` (sorted; the default group is ``""`` on Neo4j,
    ``"_"`` on FalkorDB)."""
    return run_sync(lambda: graphiti_groups_async(source, auth=auth, database=database))


def read_group(source: str, group_id: str | None = None, *, auth: tuple[str, str] | None = None,
               database: str | None = None) -> GraphitiGroup:
    """One group of the Graphiti graph at ``source`` (see :func:`read_group_async`)."""
    return run_sync(lambda: read_group_async(source, group_id, auth=auth, database=database))


def held_observations(ctx: Context, ids: Iterable[str]) -> Op[set[str]]:
    """Which of these observation ids the scope holds already."""
    asked = list(ids)
    if not asked:
        return set()
    rows = yield from read(Q.EXISTING_OBSERVATIONS, {"scope": ctx.scope, "ids": asked})
    return {str(row["id"]) for row in rows}


def finished(translation: Translation, written: WriteResult, held: set[str]) -> GraphitiImport:
    """The import's report, with what it created."""
    return translation.report.model_copy(update={
        "entities_created": written.entities_created, "records_created": written.created,
        "summaries_created": sum(1 for i in translation.observation_ids if i not in held)})
