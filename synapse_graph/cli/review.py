"""Review and audit: candidates waiting, approve, reject, the audit log."""


from __future__ import annotations

from typing import Annotated

import typer

from synapse_graph import render
from synapse_graph.cli.shell import (
    AsJson,
    Db,
    Password,
    Scope,
    User,
    _emit,
    _open,
    _table,
    command,
    say,
)
from synapse_graph.models import AuditEntry, Fact


@command()
def pending(
    limit: Annotated[int | None, typer.Option(help="At most this many.")] = None,
    db: Db = None, scope: Scope = "default", as_json: AsJson = False, user: User = None, password: Password = None,
) -> None:
    """Candidate facts waiting for review (recorded, not believed), oldest first; approve or reject them by id."""
    with _open(db, scope, user, password, create=False) as memory:
        found = memory.pending(limit=limit)

        def show(candidates: list[Fact]) -> None:
            if not candidates:
                say("no candidate waits for review")
                return
            _table(["id", *render.FACT_COLUMNS[:6], "flag"],
                   [(f.id, *render.fact_cells(f)[:6], f.flag or "") for f in candidates], "waiting for review",
                   line=lambda number: f"{candidates[number].id}  {render.fact_text(candidates[number])}")
            say("approve one: synapse-graph approve ID;  reject one: synapse-graph reject ID --reason TEXT")

        _emit(found, as_json, show)

@command()
def approve(
    fact_id: Annotated[str, typer.Argument(metavar="FACT_ID", help="Id of a candidate (see 'pending').")],
    db: Db = None, scope: Scope = "default", as_json: AsJson = False, user: User = None, password: Password = None,
) -> None:
    """Believe a candidate fact: it joins its timeline as if written now."""
    with _open(db, scope, user, password) as memory:
        memory.approve(fact_id)
        _emit({"approved": fact_id}, as_json, lambda r: say(f"approved {fact_id}"))

@command()
def reject(
    fact_id: Annotated[str, typer.Argument(metavar="FACT_ID", help="Id of a candidate (see 'pending').")],
    reason: Annotated[str, typer.Option("--reason", help="Why (kept, and shown if the fact is written again).")],
    db: Db = None, scope: Scope = "default", as_json: AsJson = False, user: User = None, password: Password = None,
) -> None:
    """Refuse a candidate fact; written again later, it comes back as a candidate flagged with the reason."""
    with _open(db, scope, user, password) as memory:
        memory.reject(fact_id, reason)
        _emit({"rejected": fact_id, "reason": reason}, as_json, lambda r: say(f"rejected {fact_id}: {reason}"))

@command()
def audit(
    entity: Annotated[str | None, typer.Argument(help="Only the entries that touched this entity.")] = None,
    limit: Annotated[int, typer.Option(help="At most this many entries.")] = 100,
    db: Db = None, scope: Scope = "default", as_json: AsJson = False, user: User = None, password: Password = None,
) -> None:
    """The scope's audit log of changes, newest first: who changed what, when."""
    with _open(db, scope, user, password, create=False) as memory:
        found = memory.audit(entity, limit=limit)

        def show(entries: list[AuditEntry]) -> None:
            if not entries:
                say("no audit entry" + (f" touches {entity!r}" if entity else ""))
                return
            _table(["at (UTC)", "action", "client", "source", "entities", "fact records", "secrets redacted"], [
                (render.time_text(e.at), e.action, e.client or "", e.source or "", ", ".join(e.entities),
                 str(len(e.facts)), ", ".join(e.secrets)) for e in entries],
                   optional=("secrets redacted", "fact records", "source", "client"))

        _emit(found, as_json, show)
