"""The one reader of ``scripts/neo4j-local``: start it, parse what ``env`` prints, ask for its pid.

Tests and benchmarks share it, so the script's output format has a single parser.
"""

from __future__ import annotations

import shlex
import subprocess
from pathlib import Path

SCRIPT = Path(__file__).resolve().parent.parent / "scripts" / "neo4j-local"


def run(command: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """``scripts/neo4j-local <command>``, output captured, never raising on a non-zero exit."""
    return subprocess.run([str(SCRIPT), command], capture_output=True, text=True, timeout=timeout, check=False)


def parse_env(printed: str) -> dict[str, str]:
    """The ``export KEY=VALUE`` lines of ``scripts/neo4j-local env`` as a dict (shell quoting undone)."""
    values: dict[str, str] = {}
    for line in printed.splitlines():
        words = shlex.split(line)
        if len(words) == 2 and words[0] == "export" and "=" in words[1]:
            key, value = words[1].split("=", 1)
            values[key] = value
    return values


def env() -> dict[str, str]:
    """What ``scripts/neo4j-local env`` prints, parsed (the server need not be running)."""
    return parse_env(run("env", timeout=60).stdout)


def start_and_env() -> dict[str, str]:
    """Start the local server (assembling it on first use) and return its ``SYNAPSE_NEO4J_*`` settings."""
    if not SCRIPT.exists():
        raise RuntimeError("scripts/neo4j-local is missing")
    started = run("start", timeout=900)
    if started.returncode != 0:
        raise RuntimeError(f"scripts/neo4j-local start failed:\n{started.stdout[-2000:]}\n{started.stderr[-2000:]}")
    return env()


def pid() -> int | None:
    """The running server's process id, or None."""
    printed = run("pid").stdout.strip()
    return int(printed) if printed.isdigit() else None
