"""``synapse-graph server status|stop``: the embedded store's server, which stays up a while after its last client."""


from __future__ import annotations

import dataclasses
import time
from typing import Annotated, Any

import typer

from synapse_graph.cli.shell import AsJson, Db, _emit, app, command, say

server_app = typer.Typer(help="The embedded store's server: it stays up (lingers) a while after its last client, so "
                              "the next command joins it instead of loading the store again.", no_args_is_help=True)
app.add_typer(server_app, name="server")

Force = Annotated[bool, typer.Option("--force", help="Stop it even while a client uses it (their acknowledged "
                                                     "writes are kept; their next requests fail).")]


def _server(db: str | None) -> Any:
    from synapse_graph.backends import embedded_store
    from synapse_graph.backends.embedded import EmbeddedServer
    from synapse_graph.errors import ConfigurationError

    store = embedded_store(db)
    if store is None:
        raise ConfigurationError(f"{db!r} is the URL of a server, which synapse-graph does not run: only an "
                                 "embedded store (a file path) has a server of its own to show or stop")
    return EmbeddedServer(store)


def _megabytes(size: int | None) -> str:
    if size is None:
        return "?"
    return f"{size / 1_000_000:.1f} MB" if size >= 100_000 else f"{size / 1_000:.1f} kB"


@command("status", app=server_app)
def server_status(db: Db = None, as_json: AsJson = False) -> None:
    """Show whether the store's server runs, whether a client uses it, and when an idle one stops."""
    status = _server(db).status()
    found = {**dataclasses.asdict(status), "running": status.pid is not None, "stops_in_s": status.stops_in()}

    def show(_: Any) -> None:
        files = f"files: base {_megabytes(status.base_bytes)}, incr {_megabytes(status.incr_bytes)}"
        if status.pid is None:
            say(f"no server runs for {status.store} ({files})")
            return
        if status.idle_since is None:
            state = "in use by a client"
        else:
            state = (f"idle for {time.time() - status.idle_since:.0f} s, stops in {status.stops_in():.0f} s unless a "
                     "client comes")
        say(f"the server of {status.store} runs (pid {status.pid}): {state}; linger {status.linger_s:g} s")
        say(f"  memory {_megabytes(status.memory_bytes)}; {files}")

    _emit(found, as_json, show)


@command("stop", app=server_app)
def server_stop(db: Db = None, force: Force = False, as_json: AsJson = False) -> None:
    """Stop the store's server now, rather than after its linger (refused while a client uses it, unless --force)."""
    server = _server(db)
    pid = server.pid()
    stopped = server.shut_down(force=force)
    _emit({"store": str(server.db_file), "stopped": stopped, "pid": pid if stopped else None}, as_json,
          lambda r: say(f"stopped the server of {r['store']} (pid {r['pid']})" if stopped
                        else f"no server runs for {r['store']}"))
