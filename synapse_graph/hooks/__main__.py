"""``python -m synapse_graph.hooks COMMAND``: a hook command reading JSON from stdin (runs detached offloads)."""

import sys

from synapse_graph.hooks.commands import run

sys.exit(run(sys.argv[1] if len(sys.argv) > 1 else "", sys.stdin, sys.stdout, sys.stderr))
