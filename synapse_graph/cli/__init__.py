"""The ``synapse-graph`` command: a thin shell over :class:`synapse_graph.Memory`.

Output is plain text for people (tables that do not wrap when piped) or JSON with
``--json``. Every error the command expects (bad input, a missing file, a database
that refuses, a usage error) exits with code 2 and one message, as JSON on stderr under ``--json``.
Names and values are printed as text, never interpreted as markup. The commands live
in the modules of this package, by what they act on; importing it registers them all.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

# Importing the modules registers their commands, in the order --help lists them.
# isort: off
from synapse_graph.cli import facts, review, duplicates, store, server, agents, ui  # noqa: F401
# isort: on
from synapse_graph.cli.shell import app
from synapse_graph.cli.usage import run

__all__ = ["app", "main"]

def main(argv: Sequence[str] | None = None) -> None:
    """Entry point of the ``synapse-graph`` command."""
    sys.exit(run(app, list(argv) if argv is not None else sys.argv[1:]))
