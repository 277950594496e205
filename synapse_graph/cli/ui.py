"""``synapse-graph ui``: the web inspector and JSON HTTP API over a store (the ``ui`` extra)."""


from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from synapse_graph.cli.shell import Db, Password, Scope, User, _auth, _console, command


@command("ui")
def ui_command(
    db: Db = None, scope: Scope = "default", user: User = None, password: Password = None,
    port: Annotated[int, typer.Option("--port", help="Port to serve on.")] = 8766,
    host: Annotated[str, typer.Option(
        "--host", help="Address to listen on: loopback by default; any other needs the bearer token.")]
    = "127.0.0.1",
    allowed_host: Annotated[list[str] | None, typer.Option(
        "--allowed-host", help="Another name browsers reach the server by (DNS-rebinding check); repeatable.")]
    = None,
    token_file: Annotated[Path | None, typer.Option(
        "--token-file", dir_okay=False,
        help="File (mode 0600) holding the bearer token; else $SYNAPSE_UI_TOKEN. Required off loopback.")] = None,
    allow_review: Annotated[bool, typer.Option(
        "--allow-review", help="Offer review: approve and reject candidates (each recorded in the audit log).")]
    = False,
    allow_erasure: Annotated[bool, typer.Option(
        "--allow-erasure", help="Offer erasure: purge an entity, revoke and erase a session (each confirmed).")]
    = False,
) -> None:
    """Serve the web inspector and its JSON API: see and fix what the memory holds, in a browser."""
    from synapse_graph.aio import AsyncMemory
    from synapse_graph.ui import CLIENT, UiSettings, serve  # MissingExtraError without the ui extra
    settings = UiSettings.resolve(host, port, token_file=token_file, allowed_hosts=allowed_host or (),
                                  allow_review=allow_review, allow_erasure=allow_erasure)
    memory = AsyncMemory(db, scope=scope, client=CLIENT, auth=_auth(user, password), create=False)

    def ready(url: str) -> None:
        _console(sys.stderr).print(f"synapse-graph inspector at {url} (scope {scope!r}); Ctrl+C stops it",
                                   highlight=False, soft_wrap=True)

    serve(memory, settings, ready=ready)
