"""The ``synapse-graph`` command: a thin shell over :class:`synapse_graph.Memory`.

Output is plain text for people (tables that do not wrap when piped) or JSON with
``--json``. Every error the command expects (bad input, a missing file, a database
that refuses, a usage error) exits with code 2 and one message, as JSON on stderr under ``--json``.
Names and values are printed as text, never interpreted as markup. The commands live
in the modules of this package, by what they act on; importing ``app`` registers them all.

``synapse-graph hook COMMAND`` (what Claude Code runs at every session start, compaction and
turn) goes straight to :mod:`synapse_graph.hooks.commands`, without the command-line
machinery (typer, rich and every command's module), which it does not use.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import typer

__all__ = ["app", "main"]

HOOK_COMMANDS = ("session-start", "pre-compact", "stop")


def _app() -> typer.Typer:
    # Importing the modules registers their commands, in the order --help lists them.
    # isort: off
    from synapse_graph.cli import facts, time, review, duplicates, store, embeddings, server, agents, ui  # noqa: F401
    # isort: on
    from synapse_graph.cli.shell import app

    return app


def __getattr__(name: str) -> Any:
    if name == "app":
        return _app()
    raise AttributeError(f"module 'synapse_graph.cli' has no attribute {name!r}")


def main(argv: Sequence[str] | None = None) -> None:
    """Entry point of the ``synapse-graph`` command."""
    args = list(argv) if argv is not None else sys.argv[1:]
    if len(args) == 2 and args[0] == "hook" and args[1] in HOOK_COMMANDS:
        from synapse_graph.hooks.commands import run as run_hook

        code = run_hook(args[1], sys.stdin, sys.stdout, sys.stderr)
        if argv is None:  # the hook's own process: its memory is closed and its output written
            sys.stdout.flush()
            sys.stderr.flush()
            # Python's teardown of the modules it loaded is skipped: 0.5-1.5 s of the hook's wall time on a busy
            # machine (2 cores, load average 11; measured: benchmarks/README.md, issue 34).
            os._exit(code)
        sys.exit(code)
    from synapse_graph.cli.usage import run

    sys.exit(run(_app(), args))
