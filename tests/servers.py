"""Embedded servers the tests started: none may linger after its test, whatever environment started it.

Most tests inherit ``SYNAPSE_FALKORDB_LINGER=0`` (tests/conftest.py), but a process started with an
environment of its own (a docs page, an MCP client's minimal environment, a clean ``env=``) gets the
library's default linger of minutes. After each test, the servers of stores under pytest's temporary
folder that no client uses are stopped; one in use (a session's shared store) is left alone.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

from synapse_graph.backends.embedded import EmbeddedServer
from synapse_graph.errors import BackendUnavailableError

WATCHDOG = b"embedded_watchdog.py"


def served_stores(base: Path) -> set[Path]:
    """The stores under ``base`` whose embedded server (its watchdog) runs."""
    prefix = os.fspath(base.resolve()) + os.sep
    found = set()
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            args = Path(f"/proc/{entry}/cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        at = next((i for i, arg in enumerate(args[:4]) if arg.endswith(WATCHDOG)), None)
        if at is None or len(args) < at + 4:
            continue
        directory, name = os.fsdecode(args[at + 2]), os.fsdecode(args[at + 3])  # STATUS_FD STORE_DIR NAME
        if (directory + os.sep).startswith(prefix):
            found.add(Path(directory) / name)
    return found


def stop_idle_servers(base: Path) -> set[Path]:
    """Stop the servers of the stores under ``base`` that no client uses; returns their stores."""
    stopped = set()
    for store in served_stores(base):
        with contextlib.suppress(BackendUnavailableError, OSError):  # in use: its test's fixture keeps it
            if EmbeddedServer(store).shut_down():
                stopped.add(store)
    return stopped
