"""``synapse-graph import --format graphiti --from URL``: a Graphiti graph, group by group, into scopes."""

from __future__ import annotations

import logging
from typing import Any

from synapse_graph import render
from synapse_graph.cli.shell import _emit, _open, say
from synapse_graph.graphiti import GraphitiImport, default_group, graphiti_groups
from synapse_graph.rules.text import check_scope

SHOWN = 5
"""Items of a list (left out, renamed, merged) printed before '... and N more (--json lists all)'."""


def scope_of(group: str, base: str, source: str) -> str:
    """The scope a group goes to when every group is imported: ``BASE/GROUP``, Graphiti's default group
    (``""`` on Neo4j, ``"_"`` on FalkorDB) into ``BASE`` itself."""
    return base if group == default_group(source) else check_scope(f"{base}/{group}")


def import_graphiti(source: str, group_id: str | None, db: str | None, scope: str, as_json: bool,
                    user: str | None, password: str | None, from_auth: tuple[str, str] | None,
                    **options: Any) -> None:
    """Import one group into ``scope``, or (no ``group_id``) every group into a scope of its own under it."""
    # graphiti-core logs each failed query with its text; the command says what failed, once.
    logging.getLogger("graphiti_core").addHandler(logging.NullHandler())
    logging.getLogger("graphiti_core").propagate = False
    if group_id is not None:
        plan = [(group_id, scope)]
    else:
        plan = [(group, scope_of(group, scope, source)) for group in graphiti_groups(source, auth=from_auth)]
    reports: list[GraphitiImport] = []
    for group, target in plan:
        with _open(db, target, user, password, **options) as memory:
            report = memory.import_graphiti(source, group_id=group, auth=from_auth)
        reports.append(report)
        if not as_json:
            show(report)
    if as_json:
        _emit(reports, True)


def show(report: GraphitiImport) -> None:
    """The report of one group for people: what came, and every way it was not one to one."""
    say(f"imported {report}")
    if report.renamed:
        say("edge names mapped to predicates (each original kept in its facts' source): "
            + _listed([f"{name} -> {predicate}" for name, predicate in report.renamed.items()]))
    if report.merged:
        say("nodes of one name, one entity here (each summary kept): "
            + _listed([f"{name} ({len(nodes)} nodes)" for name, nodes in report.merged.items()]))
    if report.without_valid_at:
        say(f"edges without valid_at ({report.without_valid_at}): each valid from its episode's reference time, "
            "else from when Graphiti recorded it")
    if report.shortened:
        say(f"sources cut to 512 characters ({report.shortened}): fact text, edge name and episodes did not fit")
    if report.left_out:
        say(f"left out {render.plural(len(report.left_out), 'item')}: "
            + _listed([f"{item.kind} {item.uuid}: {item.reason}" for item in report.left_out], sep="; "))


def _listed(items: list[str], sep: str = ", ") -> str:
    more = len(items) - SHOWN
    return sep.join(items[:SHOWN]) + (f"{sep}... and {more} more (--json lists all)" if more > 0 else "")
