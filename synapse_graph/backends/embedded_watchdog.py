"""The watchdog of one embedded FalkorDB server: it runs the server and stops it when no client is left.

``embedded.py`` runs this file as a script (standard library only, so it starts in
milliseconds and imports nothing of the package)::

    python -I embedded_watchdog.py STATUS_FD STORE_DIR NAME SOCKET -- REDIS_ARGV...

In ``STORE_DIR`` it takes the owner lock (an exclusive ``flock`` on ``NAME.pid``) and
detaches from its launcher, starts ``redis-server`` as its child (the server inherits the
locked descriptor, so the lock is held as long as either process lives), writes the
server's pid into ``NAME.pid`` and reports one line on ``STATUS_FD``: ``ready PID``,
``exited CODE`` or ``timeout``. Then it watches: when the server exits it cleans up and
exits; when it can take ``NAME.lock`` (start/stop guard) and ``NAME.users`` (each client
holds a shared lock on it) exclusively, no client is left, so it stops the server, waits
for it, and releases the owner lock before the others.
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

POLL_S = 0.25  # how often the watchdog looks for clients; a stop takes at most this long to begin
START_TIMEOUT_S = 30.0  # for the server to listen on its socket (it does before it loads the AOF)
STOP_TIMEOUT_S = 120.0  # a graceful stop fsyncs the AOF; after this long the server is killed


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
    status_fd, store_dir, name, sock = int(argv[1]), argv[2], argv[3], argv[4]
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
    os.pwrite(owner, f"{server.pid}\n{os.getpid()}\n".encode(), 0)

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

    while True:
        try:
            server.wait(POLL_S)
            return _clean_up(owner, sock)  # it stopped (SHUTDOWN by the last client) or crashed
        except subprocess.TimeoutExpired:
            pass
        guard = _try_lock(name + ".lock")
        if guard is None:
            continue  # a client is starting, joining or leaving
        users = _try_lock(name + ".users")
        if users is None:
            os.close(guard)
            continue
        _stop(server)  # no client left, none can join while the guard is held
        _clean_up(owner, sock)  # the owner lock goes first: a client that gets the guard next starts afresh
        os.close(users)
        os.close(guard)
        return 0


def _clean_up(owner: int, sock: str) -> int:
    with contextlib.suppress(FileNotFoundError):
        os.unlink(sock)
    os.ftruncate(owner, 0)
    os.close(owner)  # the server, its only other holder, is gone: the lock is free
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
