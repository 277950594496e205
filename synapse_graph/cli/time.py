"""Time as a question on the command line (issue 35): what the memory learned (changes), how the world differs
between two valid times (diff)."""

from __future__ import annotations

from typing import Annotated

import typer

from synapse_graph.cli.shell import AsJson, Db, Password, Scope, User, _emit, _open, command, say


@command()
def changes(
    since: Annotated[str, typer.Argument(help="From this recorded time (ISO-8601).")],
    until: Annotated[str | None, typer.Option(help="Up to this recorded time (default now).")] = None,
    entity: Annotated[str | None, typer.Option(help="Only changes about this entity.")] = None,
    predicate: Annotated[str | None, typer.Option(help="Only changes of this predicate.")] = None,
    limit: Annotated[int, typer.Option(min=1, help="At most this many.")] = 100,
    after: Annotated[str | None, typer.Option(help="The 'next' of the page before.")] = None,
    db: Db = None, scope: Scope = "default", as_json: AsJson = False, user: User = None, password: Password = None,
) -> None:
    """What the memory learned and unlearned since a time, oldest first."""
    with _open(db, scope, user, password, create=False) as memory:
        page = memory.changes(since, until, entity=entity, predicate=predicate, limit=limit, after=after)
        _emit(page, as_json, lambda p: say(str(p)))


@command()
def diff(
    a: Annotated[str, typer.Argument(help="From this valid time (ISO-8601), exclusive.")],
    b: Annotated[str, typer.Argument(help="To this valid time, inclusive.")],
    entity: Annotated[str | None, typer.Option(help="Only facts of this entity.")] = None,
    known_at: Annotated[str | None, typer.Option(help="As the store believed at this time (default now).")] = None,
    db: Db = None, scope: Scope = "default", as_json: AsJson = False, user: User = None, password: Password = None,
) -> None:
    """Facts that began and facts that ended between two valid times."""
    with _open(db, scope, user, password, create=False) as memory:
        _emit(memory.diff(a, b, entity=entity, known_at=known_at), as_json, lambda d: say(str(d)))
