"""Duplicate entities: proposals with their evidence, merging one, recording two as distinct, undoing a merge."""

from __future__ import annotations

from typing import Annotated

import typer

from synapse_graph.cli.shell import AsJson, Db, Password, Scope, User, _emit, _open, _table, command, say
from synapse_graph.models import DuplicateProposal


@command()
def duplicates(
    limit: Annotated[int, typer.Option(help="At most this many proposals.")] = 100,
    threshold: Annotated[float | None, typer.Option(help="Only proposals scoring at least this (0 to 1; "
                                                          "default 0.8).")] = None,
    db: Db = None, scope: Scope = "default", as_json: AsJson = False, user: User = None, password: Password = None,
) -> None:
    """Pairs of entities that are probably one person or thing, best first, with the evidence for and against."""
    with _open(db, scope, user, password, create=False) as memory:
        found = memory.duplicates(limit=limit, threshold=threshold)

        def show(proposals: list[DuplicateProposal]) -> None:
            if not proposals:
                say("no duplicate proposed")
                return
            _table(["keep", "merge into it", "score", "evidence"],
                   [(p.canonical, p.other, f"{p.score:.2f}",
                     "; ".join(f"{e.text} ({e.weight:+.1f})" for e in p.evidence)) for p in proposals],
                   "probably one entity")
            say("merge one: synapse-graph merge-duplicate KEEP OTHER;  keep them apart: "
                "synapse-graph distinct A B --reason TEXT")

        _emit(found, as_json, show)


@command("merge-duplicate")
def merge_duplicate(
    keep: Annotated[str, typer.Argument(help="The entity to keep (a proposal's 'keep').")],
    other: Annotated[str, typer.Argument(help="The entity merged into it.")],
    db: Db = None, scope: Scope = "default", as_json: AsJson = False, user: User = None, password: Password = None,
) -> None:
    """Merge OTHER into KEEP (audited with the proposal's evidence); 'synapse-graph unmerge OTHER' undoes it."""
    with _open(db, scope, user, password, create=False) as memory:
        result = memory.approve_duplicate(keep, other)
        _emit(result, as_json, lambda r: say(str(r)))


@command()
def distinct(
    first: Annotated[str, typer.Argument(help="One entity.")],
    second: Annotated[str, typer.Argument(help="The other.")],
    reason: Annotated[str, typer.Option("--reason", help="Why they are two (kept in the audit log).")],
    db: Db = None, scope: Scope = "default", as_json: AsJson = False, user: User = None, password: Password = None,
) -> None:
    """Record two entities as distinct: never proposed as duplicates again (whatever either is merged with)."""
    with _open(db, scope, user, password, create=False) as memory:
        memory.reject_duplicate(first, second, reason=reason)
        _emit({"distinct": [first, second], "reason": reason}, as_json,
              lambda r: say(f"{first!r} and {second!r} are recorded as distinct"))


@command()
def unmerge(
    name: Annotated[str, typer.Argument(help="The name of the entity that was merged into another.")],
    db: Db = None, scope: Scope = "default", as_json: AsJson = False, user: User = None, password: Password = None,
) -> None:
    """Undo the latest merge of NAME: both entities as before it; writes made since stay on the kept entity."""
    with _open(db, scope, user, password, create=False) as memory:
        result = memory.unmerge(name)
        _emit(result, as_json, lambda r: say(str(r)))
