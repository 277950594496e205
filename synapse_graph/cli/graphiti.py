"""``synapse-graph import --format graphiti --from URL``: a Graphiti graph, group by group, into scopes."""

from __future__ import annotations

import logging
import sys
from collections.abc import Iterable
from contextlib import ExitStack
from typing import Any

import typer
from rich.console import Console

from synapse_graph import render
from synapse_graph.cli.progress import INTERRUPTED_EXIT, ImportProgress, Interrupted, interrupted_exit
from synapse_graph.cli.shell import _console, _emit, _open, say
from synapse_graph.graphiti import GraphitiGroup, GraphitiImport, default_group, graphiti_groups, read_group
from synapse_graph.graphiti.facade import import_group
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
    console = _console(sys.stderr)
    reports: list[GraphitiImport] = []
    try:
        if group_id is not None:
            plan = [(group_id, scope)]
        else:
            plan = [(group, scope_of(group, scope, source)) for group in graphiti_groups(source, auth=from_auth)]
        for group, target in plan:
            found = read_group(source, group, auth=from_auth)
            reports.append(_import(found, target, db, user, password, as_json, console, **options))
            if not as_json:
                show(reports[-1])
    except KeyboardInterrupt:
        interrupted_exit(f"interrupted while reading the Graphiti graph: {_done(reports)}", as_json, console)
        raise typer.Exit(INTERRUPTED_EXIT) from None
    if as_json:
        _emit(reports, True)


def _import(found: GraphitiGroup, target: str, db: str | None, user: str | None, password: str | None,
            as_json: bool, console: Console, **options: Any) -> GraphitiImport:
    """One group read, written with progress; Ctrl-C stops it between two writes, saying what was imported."""
    watching: list[ImportProgress] = []
    with ExitStack() as stack:
        def through(lines: list[str]) -> Iterable[str]:
            progress = ImportProgress(lines, sum('"kind": "entity"' in line for line in lines),
                                      sum('"kind": "fact"' in line for line in lines), console,
                                      show=not as_json and sys.stderr.isatty())  # piped: no stray blank line
            watching.append(stack.enter_context(progress))
            return progress.lines()

        try:
            with _open(db, target, user, password, **options) as memory:
                return import_group(memory, found, through=through, progress=lambda n: watching[0].written(n))
        except Interrupted:
            interrupted_exit(watching[0].said(f"Graphiti group {found.group_id!r}", target), as_json, console)
            raise typer.Exit(INTERRUPTED_EXIT) from None


def _done(reports: list[GraphitiImport]) -> str:
    if not reports:
        return "nothing was imported"
    return ("imported " + ", ".join(f"group {r.group_id!r} into scope {r.scope!r}" for r in reports)
            + "; run the same import again to finish it (what is already there is skipped)")


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
