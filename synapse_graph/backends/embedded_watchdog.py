"""The watchdog of one embedded FalkorDB server: it runs the server, keeps its ledger, and stops it when idle.

``embedded.py`` runs this file as a script (standard library only, so it starts in
milliseconds and imports nothing of the package but ``aof_ledger.py``, also standard library)::

    python -I embedded_watchdog.py STATUS_FD STORE_DIR NAME SOCKET LINGER -- REDIS_ARGV...

In ``STORE_DIR`` it takes the owner lock (an exclusive ``flock`` on ``NAME.pid``) and
detaches from its launcher, starts ``redis-server`` as its child (the server inherits the
locked descriptor, so the lock is held as long as either process lives), writes into
``NAME.pid`` the server's pid, its own, the linger and its state (see :func:`pid_file_text`),
and reports one line on ``STATUS_FD``: ``ready PID``, ``exited CODE`` or ``timeout``.

Then it watches, every ``POLL_S``:

* it brings the ledger of the AOF files up to date (``aof_ledger.update_ledger``);
* when it can take ``NAME.lock`` (start/stop guard) and ``NAME.users`` (each client holds a
  shared lock on it) exclusively, no client is left. The server is *idle*: from then on (or
  from the last time a client left, which the client marks by touching ``NAME.users``) it
  lingers ``LINGER`` seconds, then the watchdog stops it, waits for it, records the ledger
  once more and releases the owner lock before the others. A client that joins meanwhile
  ends the idle period. When an idle period begins and the incr files have grown past a
  quarter of the base (at least ``COMPACT_MIN_BYTES``), it asks the server to fold them into
  a new base (``BGREWRITEAOF``), so that the next cold start loads a compact snapshot;
* when the server exits (stopped by a client, or crashed) it records the ledger, cleans up
  and exits.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

if __package__:
    from synapse_graph.backends import aof_ledger
else:  # run as a script (python -I): import only the ledger, which sits next to this file
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import aof_ledger  # type: ignore[import-not-found,no-redef]

POLL_S = 0.25  # how often the watchdog looks for clients; a stop takes at most this long to begin
START_TIMEOUT_S = 30.0  # for the server to listen on its socket (it does before it loads the AOF)
STOP_TIMEOUT_S = 120.0  # a graceful stop fsyncs the AOF; after this long the server is killed
COMPACT_MIN_BYTES = 1 << 20  # incr bytes below which an AOF rewrite is not worth its fork
COMPACT_SHARE = 0.25  # ... nor below this share of the base file
STATE_WIDTH = 40  # the state line of the pid file has a fixed width: it is rewritten in place


def pid_file_text(server: int, watchdog: int, linger: float, state: str) -> bytes:
    """The pid file: server pid, watchdog pid, linger in seconds, and ``busy`` or ``idle SINCE`` (epoch seconds)."""
    return f"{server}\n{watchdog}\n{linger:g}\n{state:<{STATE_WIDTH}}\n".encode()


@dataclass(frozen=True)
class Owner:
    """What the pid file says (:func:`pid_file_text`)."""

    pid: int  # 0 while the watchdog has not written it yet
    watchdog: int = 0
    linger: float = 0.0
    idle_since: float | None = None

    @classmethod
    def parse(cls, data: bytes) -> Owner:
        lines = [line.strip() for line in data.decode("ascii", "replace").split("\n")]
        if len(lines) < 4 or not lines[0].isdigit():
            return cls(int(lines[0]) if lines[0].isdigit() else 0)
        try:
            state = lines[3].split()
            idle = float(state[1]) if state[:1] == ["idle"] and len(state) > 1 else None
            return cls(int(lines[0]), int(lines[1]), float(lines[2]), idle)
        except ValueError:
            return cls(int(lines[0]))


def grown(aof_dir: Path) -> bool:
    """True if the incr files are worth folding into the base (an AOF rewrite)."""
    base, incr = aof_ledger.sizes(aof_dir)
    return incr >= max(COMPACT_MIN_BYTES, COMPACT_SHARE * base)


def call(path: str, *words: str, timeout: float = 30.0) -> bytes:
    """One command to the server at ``path``; its reply, raw (a status, an error or one bulk string)."""
    request = f"*{len(words)}\r\n".encode() + b"".join(
        f"${len(w.encode())}\r\n".encode() + w.encode() + b"\r\n" for w in words)
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(timeout)
        sock.connect(path)
        sock.sendall(request)
        reply = b""
        while not reply.endswith(b"\r\n") or (reply.startswith(b"$") and len(reply) < _bulk_length(reply)):
            chunk = sock.recv(65536)
            if not chunk:
                break
            reply += chunk
    return reply


def _bulk_length(reply: bytes) -> int:
    head = reply.split(b"\r\n", 1)[0]
    length = int(head[1:] or b"0")
    return len(head) + 2 + (length + 2 if length >= 0 else 0)


def rewriting(path: str) -> bool:
    """True while the server rewrites its AOF (or has one scheduled)."""
    info = call(path, "INFO", "persistence")
    return b"aof_rewrite_in_progress:1" in info or b"aof_rewrite_scheduled:1" in info


def compact(path: str, *, wait: bool, timeout: float = 600.0) -> None:
    """Fold the incr files into a new base (``BGREWRITEAOF``); with ``wait``, until it is done (or ``timeout``:
    a server stopped during a rewrite keeps its previous files, whole)."""
    call(path, "BGREWRITEAOF")
    deadline = time.monotonic() + timeout
    while wait and time.monotonic() < deadline and rewriting(path):
        time.sleep(0.05)


def _report(status_fd: int, line: str) -> None:
    with contextlib.suppress(OSError):  # the launcher is gone; nobody to tell
        os.write(status_fd, line.encode() + b"\n")


def _ping(path: str) -> bytes | None:
    """The server's reply to PING: None while it does not listen yet, b"" if it is busy."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        try:
            sock.connect(path)
        except OSError:
            return None
        try:
            sock.settimeout(1.0)
            sock.sendall(b"PING\r\n")
            return sock.recv(64)
        except OSError:
            return b""


def _die_with_parent(parent: int) -> None:
    # Linux: the server gets SIGTERM (a graceful stop) if the watchdog is killed.
    if sys.platform.startswith("linux"):
        import ctypes

        ctypes.CDLL(None).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    if os.getppid() != parent:
        os._exit(1)


def _try_lock(path: str) -> int | None:
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        return None
    return fd


def _stop(server: subprocess.Popen[bytes]) -> None:
    server.send_signal(signal.SIGTERM)  # redis: fsync the AOF, remove the socket, exit
    try:
        server.wait(STOP_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        server.kill()
        server.wait()


def main(argv: list[str]) -> int:
    status_fd, store_dir, name, sock, linger = int(argv[1]), argv[2], argv[3], argv[4], float(argv[5])
    server_argv = argv[argv.index("--") + 1 :]
    os.chdir(store_dir)
    owner = _try_lock(name + ".pid")
    if owner is None:
        _report(status_fd, "error another server already owns these files")
        return 1
    if os.fork() > 0:  # the launcher reaps this parent at once; the watchdog lives on, adopted by init
        os._exit(0)
    os.setsid()
    with open(name + ".log", "ab") as log:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(sock)  # left by a server that was killed
        parent = os.getpid()
        server = subprocess.Popen(  # noqa: S603 - argv built by embedded.py from fixed settings
            server_argv, stdin=subprocess.DEVNULL, stdout=log, stderr=log, pass_fds=(owner,),
            preexec_fn=lambda: _die_with_parent(parent),  # this process has one thread
        )
    os.ftruncate(owner, 0)
    os.pwrite(owner, pid_file_text(server.pid, os.getpid(), linger, "busy"), 0)

    deadline = time.monotonic() + START_TIMEOUT_S
    while True:
        if server.poll() is not None:
            _clean_up(owner, sock)  # the owner lock is free before anyone hears of it
            _report(status_fd, f"exited {server.returncode}")
            return 0
        reply = _ping(sock)
        if reply is not None and reply.startswith(b"+PONG"):
            break
        if reply is not None:  # it listens (LOADING, or busy): alive, however long loading takes
            deadline = float("inf")
        elif time.monotonic() > deadline:
            _stop(server)
            _clean_up(owner, sock)
            _report(status_fd, "timeout")
            return 0
        time.sleep(0.02)
    _report(status_fd, f"ready {server.pid}")
    os.close(status_fd)
    return _Watch(server, owner, name, sock, linger).run()


class _Watch:
    """The watchdog's life once the server answers: the ledger, the clients, the linger."""

    def __init__(self, server: subprocess.Popen[bytes], owner: int, name: str, sock: str, linger: float) -> None:
        self.server, self.owner, self.name, self.sock, self.linger = server, owner, name, sock, linger
        self.aof_dir = Path(name + ".aof")
        self.idle_since: float | None = None  # monotonic time the server became idle, or a client last left
        self.last_left = 0  # mtime (ns) of the users file: a leaving client touches it

    def run(self) -> int:
        while True:
            try:
                self.server.wait(POLL_S)
                return self._finish()  # it stopped (SHUTDOWN by the last client, or `server stop`) or crashed
            except subprocess.TimeoutExpired:
                pass
            self._record()
            try:
                if self._idle_long_enough():
                    return 0
            except OSError as exc:  # the store's directory is gone or unusable: stop rather than linger blind
                print(f"synapse-graph watchdog: stopping the server: {exc}", flush=True)
                _stop(self.server)
                return self._finish()

    def _idle_long_enough(self) -> bool:
        """Look for clients; stop the server and return True once it has been idle for its linger."""
        guard = _try_lock(self.name + ".lock")
        if guard is None:
            self._busy()  # a client is starting, joining or leaving
            return False
        users = _try_lock(self.name + ".users")
        if users is None:
            os.close(guard)
            self._busy()
            return False
        try:
            left = os.stat(users).st_mtime_ns
            since, began = self.idle_since, self.idle_since is None
            if since is None or left != self.last_left:
                since = self.idle_since = time.monotonic()
                self.last_left = left
                self._state(f"idle {time.time():.3f}")
            if time.monotonic() - since >= self.linger and not self._rewriting():
                _stop(self.server)  # no client left, none can join while the guard is held
                self._finish()  # the owner lock goes first: a client that gets the guard next starts afresh
                return True
        finally:
            with contextlib.suppress(OSError):
                os.close(users)
            os.close(guard)
        if began and self._grown():
            with contextlib.suppress(OSError):
                compact(self.sock, wait=False)  # the server keeps answering while a child rewrites
        return False

    def _busy(self) -> None:
        if self.idle_since is not None:
            self.idle_since = None
            self._state("busy")

    def _state(self, state: str) -> None:
        with contextlib.suppress(OSError):
            os.pwrite(self.owner, f"{state:<{STATE_WIDTH}}\n".encode(), self._state_offset())

    def _state_offset(self) -> int:
        return len(pid_file_text(self.server.pid, os.getpid(), self.linger, "")) - STATE_WIDTH - 1

    def _rewriting(self) -> bool:
        try:
            return self.linger > 0 and rewriting(self.sock)  # a rewrite stopped half way is wasted work
        except OSError:
            return False

    def _grown(self) -> bool:
        try:
            return grown(self.aof_dir)
        except OSError:
            return False

    def _record(self) -> None:
        try:
            aof_ledger.update_ledger(self.aof_dir)
        except (OSError, ValueError) as exc:  # never a reason to stop serving; the next poll tries again
            print(f"synapse-graph watchdog: the AOF ledger was not updated: {exc}", flush=True)

    def _finish(self) -> int:
        self._record()  # the server is gone: the files are final
        return _clean_up(self.owner, self.sock)


def _clean_up(owner: int, sock: str) -> int:
    with contextlib.suppress(FileNotFoundError):
        os.unlink(sock)
    os.ftruncate(owner, 0)
    os.close(owner)  # the server, its only other holder, is gone: the lock is free
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
