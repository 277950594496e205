"""The embedded FalkorDB server: one server per store whatever happens, and no store opened as if it were fine.

Each test uses stores of its own under ``tmp_path`` and, at the end, checks that no
``redis-server`` (or watchdog) is left running in them: a server is recognised as this
test's by its working directory (the server runs in its store's directory).
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from synapse_graph import Memory, Triple
from synapse_graph.backends import embedded
from synapse_graph.backends.embedded import EmbeddedServer
from synapse_graph.errors import BackendUnavailableError, StoreDamagedError

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]
CLI = Path(sys.executable).with_name("synapse-graph")

# A client process: opens a Memory on argv[1], then obeys one command per line on stdin.
CLIENT = r"""
import json, os, sys
from synapse_graph import Memory, Triple

def say(**fields):
    print(json.dumps(fields), flush=True)

try:
    memory = Memory(sys.argv[1], scope="s")
except Exception as exc:
    say(error=type(exc).__name__, message=str(exc))
    sys.exit(3)
say(opened=True, pid=memory.backend.server.pid())
for line in sys.stdin:
    command, *args = line.split()
    if command == "add":
        memory.upsert(Triple(subject=args[0], predicate="KNOWS", object=args[1]))
        say(ok=True)
    elif command == "facts":
        say(facts=sorted([f.subject, f.object] for f in memory.facts()))
    elif command == "pid":
        say(pid=memory.backend.server.pid())
    elif command == "abandon":  # exit without closing anything
        os._exit(0)
    elif command == "close":
        memory.close()
        say(closed=True)
        sys.exit(0)
"""


class Client:
    """A Python process holding a Memory on a store, driven line by line."""

    def __init__(self, db: Path, env: dict[str, str] | None = None) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-c", CLIENT, os.fsencode(db)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, env={**os.environ, **(env or {})},
        )
        self._lines: queue.Queue[bytes] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self._lines.put(line)

    def reply(self, timeout: float = 180) -> dict[str, Any]:
        try:
            answer: dict[str, Any] = json.loads(self._lines.get(timeout=timeout))
        except queue.Empty:
            raise AssertionError(f"client {self.process.pid} did not answer within {timeout} s") from None
        assert "error" not in answer, answer
        return answer

    def send(self, line: str) -> dict[str, Any]:
        self.write(line)
        return self.reply()

    def write(self, line: str) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(line.encode() + b"\n")
        self.process.stdin.flush()

    def opened(self) -> int:
        return int(self.reply()["pid"])

    def finish(self, how: str = "close") -> None:
        if how == "kill":
            os.kill(self.process.pid, signal.SIGKILL)
        else:
            self.write(how)
        assert self.process.wait(timeout=120) in (0, -signal.SIGKILL)


# -- processes ----------------------------------------------------------------------------------------------


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state not in ("Z", "X")


def servers_in(directory: Path) -> set[int]:
    """Pids of redis-server and watchdog processes running in ``directory`` (or below)."""
    prefix = os.fsencode(directory)
    found = set()
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            cwd = os.readlink(f"/proc/{entry}/cwd".encode())
            command = Path(f"/proc/{entry}/cmdline").read_bytes()
        except OSError:
            continue
        if cwd.startswith(prefix) and (b"redis-server" in command or b"embedded_watchdog" in command) \
                and _alive(int(entry)):
            found.add(int(entry))
    return found


def redis_servers_in(directory: Path) -> set[int]:
    return {pid for pid in servers_in(directory) if os.readlink(f"/proc/{pid}/exe").endswith("redis-server")}


def wait_until(condition: Any, timeout: float = 60) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return bool(condition())


@pytest.fixture
def store_dir(tmp_path: Path) -> Iterator[Path]:
    """A directory for the test's stores; afterwards nothing may still run in it."""
    yield tmp_path
    wait_until(lambda: not servers_in(tmp_path), 15)
    left = servers_in(tmp_path)
    for pid in left:  # ours by their working directory: never leave a server behind
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGCONT)
            os.kill(pid, signal.SIGKILL)
    assert not left, f"processes left running in the test's stores: {left}"


@pytest.fixture
def clients() -> Iterator[list[Client]]:
    started: list[Client] = []
    yield started
    for client in started:
        if client.process.poll() is None:
            client.process.kill()
            client.process.wait(30)


def start_client(clients: list[Client], db: Path, env: dict[str, str] | None = None) -> Client:
    client = Client(db, env)
    clients.append(client)
    return client


def facts_of(db: Path) -> set[tuple[str, str]]:
    with Memory(db, scope="s") as memory:
        return {(f.subject, f.object) for f in memory.facts(limit=100_000)}


def add(db: Path, *pairs: tuple[str, str]) -> None:
    with Memory(db, scope="s") as memory:
        memory.upsert([Triple(subject=s, predicate="KNOWS", object=o) for s, o in pairs])


# -- one server per store ------------------------------------------------------------------------------------


def test_a_busy_server_is_joined_not_replaced(store_dir: Path, clients: list[Client]) -> None:
    db = store_dir / "busy.db"
    first = start_client(clients, db)
    pid = first.opened()
    first.send("add a 1")
    os.kill(pid, signal.SIGSTOP)  # busy: it answers nothing for longer than any reply timeout
    try:
        second = start_client(clients, db)
        time.sleep(3)
    finally:
        os.kill(pid, signal.SIGCONT)
    assert second.opened() == pid, "a second server was started on the files of a busy one"
    assert redis_servers_in(store_dir) == {pid}
    first.send("add a 2")
    second.send("add b 1")
    first.send("add a 3")
    expected = [["a", "1"], ["a", "2"], ["a", "3"], ["b", "1"]]
    assert second.send("facts")["facts"] == expected
    first.finish()
    second.finish()
    assert wait_until(lambda: not _alive(pid))
    assert facts_of(db) == {tuple(pair) for pair in expected}  # every acknowledged write, after a restart


def test_processes_with_different_tmpdirs_share_one_server(store_dir: Path, clients: list[Client]) -> None:
    db = store_dir / "shared.db"
    tmpdirs = [store_dir / "tmp-one", store_dir / "tmp-two"]
    for directory in tmpdirs:
        directory.mkdir()
    first = start_client(clients, db, {"TMPDIR": str(tmpdirs[0])})
    pid = first.opened()
    first.send("add a 1")
    second = start_client(clients, db, {"TMPDIR": str(tmpdirs[1])})
    assert second.opened() == pid
    assert second.send("facts")["facts"] == [["a", "1"]]
    second.send("add b 1")
    assert first.send("facts")["facts"] == [["a", "1"], ["b", "1"]]
    assert redis_servers_in(store_dir) == {pid}
    first.finish()
    second.finish()
    assert facts_of(db) == {("a", "1"), ("b", "1")}


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _listening(port: int) -> bool:
    with socket.socket() as probe:
        probe.settimeout(2)
        return probe.connect_ex(("127.0.0.1", port)) == 0


def _server_config(memory: Memory, name: str) -> bytes:
    import redis

    server = memory.backend.server
    assert server is not None
    client = redis.Redis(unix_socket_path=server.connect_path)
    try:
        (value,) = client.config_get(name).values()
    finally:
        client.close()
    return value if isinstance(value, bytes) else os.fsencode(value)


def test_a_path_cannot_configure_the_server(store_dir: Path) -> None:
    port = _free_port()
    hostile = store_dir / f'evil"\nport {port}\nappendonly no\n#'
    (store_dir / "evil").mkdir()  # so that the injected `dir "…/evil"` line would be accepted
    hostile.mkdir()
    db = hostile / 'x"\nport 0\n.db'
    with Memory(db, scope="s") as memory:
        memory.upsert(Triple(subject="a", predicate="KNOWS", object="b"))
        assert not _listening(port), "the path opened a TCP port"
        assert _server_config(memory, "port") == b"0"
        assert _server_config(memory, "dir") == os.fsencode(hostile)
        assert _server_config(memory, "appendonly") == b"yes"
    assert (hostile / 'x"\nport 0\n.db.aof').is_dir()
    assert facts_of(db) == {("a", "b")}


@pytest.mark.parametrize("name", ['we"ird\\dir/a"b.db', "spaces and 'quotes'/x y.db", "tab\tdir/#x\"'.db"])
def test_legal_paths_with_quotes_and_backslashes(store_dir: Path, name: str) -> None:
    db = store_dir / name
    add(db, ("a", "b"))
    add(db, ("c", "d"))
    assert facts_of(db) == {("a", "b"), ("c", "d")}
    assert db.with_name(db.name + ".aof").is_dir()


def test_a_backslash_in_the_file_name_is_refused_clearly(store_dir: Path) -> None:
    from synapse_graph.errors import ConfigurationError

    with pytest.raises(ConfigurationError) as raised:
        Memory(store_dir / "a\\b.db", scope="s")
    assert "backslash" in str(raised.value)
    assert list(store_dir.iterdir()) == []


def test_a_directory_name_that_is_not_utf8(store_dir: Path) -> None:
    db = Path(os.fsdecode(os.fsencode(store_dir) + b"/caf\xe9/x.db"))
    with Memory(db, scope="s") as memory:
        memory.upsert(Triple(subject="a", predicate="KNOWS", object="b"))
        memory.location.encode("utf-8")  # printable: a message naming the store cannot fail
    assert facts_of(db) == {("a", "b")}
    assert os.path.isdir(os.fsencode(store_dir) + b"/caf\xe9/x.db.aof")


@pytest.mark.parametrize("long_part", ["directories", "file name"])
def test_a_long_store_path(store_dir: Path, clients: list[Client], long_part: str) -> None:
    if long_part == "directories":
        db = store_dir / ("d" * 60) / ("e" * 60) / "long.db"
    else:
        db = store_dir / ("f" * 150 + ".db")
    assert len(os.fsencode(db)) + len(".sock") > 108  # a socket named after it would not fit an address
    with Memory(db, scope="s") as memory:
        memory.upsert(Triple(subject="a", predicate="KNOWS", object="b"))
        other = start_client(clients, db)  # another process finds the same server
        assert memory.backend.server is not None and other.opened() == memory.backend.server.pid()
        other.send("add c d")
        other.finish()
        assert {(f.subject, f.object) for f in memory.facts()} == {("a", "b"), ("c", "d")}
    assert facts_of(db) == {("a", "b"), ("c", "d")}


def test_a_server_dying_at_start_is_reported_at_once(store_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    db = store_dir / "dies.db"
    add(db, ("a", "b"))
    server, _ = embedded.binaries()
    broken = store_dir / "not-a-module.so"
    broken.write_text("not a shared object\n")
    with monkeypatch.context() as patch:
        patch.setattr(embedded, "binaries", lambda: (server, broken))
        started = time.monotonic()
        with pytest.raises(BackendUnavailableError) as raised:
            Memory(db, scope="s")
        elapsed = time.monotonic() - started
    assert elapsed < embedded.START_TIMEOUT_S / 2, f"reported after {elapsed:.1f} s"
    message = str(raised.value)
    assert "exited" in message and "not-a-module.so" in message, message  # the log's own words
    assert not EmbeddedServer(db).running()
    assert wait_until(lambda: not servers_in(store_dir), 15)
    assert facts_of(db) == {("a", "b")}  # nothing was damaged, and the next start works


@pytest.mark.parametrize("how", ["abandon", "kill"])
def test_a_client_that_never_closes_leaves_no_server(store_dir: Path, clients: list[Client], how: str) -> None:
    db = store_dir / "abandoned.db"
    client = start_client(clients, db)
    pid = client.opened()
    client.send("add a b")
    client.finish(how)
    assert wait_until(lambda: not _alive(pid), 60), "the server outlived its last client"
    assert wait_until(lambda: not servers_in(store_dir), 15)
    assert facts_of(db) == {("a", "b")}


def test_the_server_stays_while_a_client_lives(store_dir: Path, clients: list[Client]) -> None:
    db = store_dir / "stays.db"
    first, second = start_client(clients, db), start_client(clients, db)
    pid = first.opened()
    assert second.opened() == pid
    first.send("add a b")
    first.finish("kill")
    time.sleep(3)  # several watchdog rounds
    assert _alive(pid)
    second.send("add c d")
    assert second.send("facts")["facts"] == [["a", "b"], ["c", "d"]]
    assert second.send("pid")["pid"] == pid
    second.finish("abandon")
    assert wait_until(lambda: not _alive(pid), 60), "the server outlived its last client"
    assert facts_of(db) == {("a", "b"), ("c", "d")}


# -- damaged stores ------------------------------------------------------------------------------------------


def _populate(db: Path, batches: int = 40) -> set[tuple[str, str]]:
    expected = set()
    with Memory(db, scope="s") as memory:
        for number in range(batches):
            pairs = [(f"s{number}", f"o{number}-{k}") for k in range(3)]
            memory.upsert([Triple(subject=s, predicate="KNOWS", object=o) for s, o in pairs])
            expected.update(pairs)
    return expected


def _aof_files(db: Path) -> dict[str, bytes]:
    directory = db.with_name(db.name + ".aof")
    return {p.name: p.read_bytes() for p in sorted(directory.iterdir())}


def _incr_file(db: Path) -> Path:
    (incr,) = db.with_name(db.name + ".aof").glob("*.incr.aof")
    return incr


def test_a_store_without_its_manifest_is_refused_then_repaired(store_dir: Path) -> None:
    from synapse_graph.backends.repair import repair_store

    db = store_dir / "manifest.db"
    expected = _populate(db)
    (manifest,) = db.with_name(db.name + ".aof").glob("*.manifest")
    manifest.unlink()
    before = _aof_files(db)
    for _ in range(2):  # refused every time, and the refusal changes nothing
        with pytest.raises(StoreDamagedError) as raised:
            Memory(db, scope="s")
        message = str(raised.value)
        assert "manifest" in message and "synapse-graph repair" in message, message
        assert _aof_files(db) == before
    report = repair_store(db)
    assert report.damaged and report.dropped_bytes == 0 and report.dropped_commands == 0
    assert any("manifest" in action for action in report.actions), report
    assert report.backup is not None and Path(report.backup).is_dir()
    assert facts_of(db) == expected  # nothing was lost: the data files were all there
    add(db, ("new", "fact"))
    assert facts_of(db) == expected | {("new", "fact")}


def test_a_truncated_append_only_file_is_refused_then_repaired(store_dir: Path) -> None:
    from synapse_graph.backends.repair import repair_store

    db = store_dir / "truncated.db"
    expected = _populate(db)
    incr = _incr_file(db)
    data = incr.read_bytes()
    cut = data.index(b"*3\r\n$12\r\nGRAPH.EFFECT", len(data) // 2) + 30  # in the middle of a command
    with incr.open("r+b") as handle:
        handle.truncate(cut)
    with pytest.raises(StoreDamagedError) as raised:
        Memory(db, scope="s")
    message = str(raised.value)
    assert incr.name in message and "synapse-graph repair" in message, message
    assert incr.read_bytes() == data[:cut]  # refusing to open changed nothing

    report = repair_store(db)
    assert report.damaged and report.partial_command and 0 < report.dropped_bytes < cut
    assert str(report.dropped_bytes) in report.summary()
    assert report.backup is not None and (Path(report.backup) / incr.name).read_bytes() == data[:cut]
    kept = cut - report.dropped_bytes
    assert incr.read_bytes()[:kept] == data[:kept]  # the sound part is untouched
    found = facts_of(db)
    assert found < expected and found  # the first part of the history, nothing made up
    complete = {s for s, _ in found}
    assert all({(s, f"o{s[1:]}-{k}") for k in range(3)} <= found for s in complete)  # whole batches only
    assert facts_of(db) == found
    assert not repair_store(db).damaged  # repaired for good


def test_a_damaged_base_file_is_not_repaired_as_if_it_were_fine(store_dir: Path) -> None:
    from synapse_graph.backends.repair import repair_store

    db = store_dir / "base.db"
    _populate(db, batches=3)
    (base,) = db.with_name(db.name + ".aof").glob("*.base.*")
    with base.open("r+b") as handle:
        handle.truncate(base.stat().st_size // 2)
    before = _aof_files(db)
    with pytest.raises(StoreDamagedError):
        Memory(db, scope="s")
    with pytest.raises(StoreDamagedError) as raised:
        repair_store(db)
    assert base.name in str(raised.value)
    assert _aof_files(db) == before


def test_repair_of_a_healthy_store_changes_nothing(store_dir: Path) -> None:
    from synapse_graph.backends.repair import repair_store

    db = store_dir / "healthy.db"
    expected = _populate(db, batches=5)
    before = _aof_files(db)
    report = repair_store(db)
    assert not report.damaged and report.backup is None and report.dropped_bytes == 0
    after = _aof_files(db)  # repair proves the store opens, and an open may append to the incr file
    assert after.keys() == before.keys()
    assert all(after[name].startswith(before[name]) for name in before if not name.endswith(".manifest"))
    assert facts_of(db) == expected


def test_repair_command(store_dir: Path) -> None:
    db = store_dir / "cli.db"
    expected = _populate(db)
    incr = _incr_file(db)
    with incr.open("r+b") as handle:
        handle.truncate(incr.stat().st_size - 7)
    done = subprocess.run([str(CLI), "repair", "--db", str(db), "--json"], capture_output=True, text=True,
                          timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["damaged"] and report["dropped_bytes"] > 0
    assert facts_of(db) <= expected
    missing = subprocess.run([str(CLI), "repair", "--db", str(store_dir / "nothing.db")], capture_output=True,
                             text=True, timeout=300, check=False)
    assert missing.returncode == 2 and "nothing.db" in missing.stderr
    assert not (store_dir / "nothing.db.aof").exists()


# -- a mistyped location (open_backend) ------------------------------------------------------------------------


def test_reading_a_store_that_does_not_exist_is_an_error(store_dir: Path) -> None:
    from synapse_graph.backends import open_backend
    from synapse_graph.errors import NotFoundError

    missing_dir = store_dir / "no" / "such" / "dir" / "x.db"
    with pytest.raises(NotFoundError) as raised:
        open_backend(missing_dir, create=False)
    assert str(missing_dir) in str(raised.value)
    assert not (store_dir / "no").exists()  # nothing created on the way
    (store_dir / "empty").mkdir()
    with pytest.raises(NotFoundError):
        open_backend(store_dir / "empty" / "x.db", create=False)
    assert list((store_dir / "empty").iterdir()) == []


def test_an_existing_store_opens_without_create(store_dir: Path) -> None:
    from synapse_graph.backends import open_backend

    db = store_dir / "deep" / "er" / "x.db"
    backend = open_backend(db, create=True)  # creating is explicit
    backend.close()
    add(db, ("a", "b"))
    backend = open_backend(db, create=False)
    try:
        assert backend.location == str(db)
    finally:
        backend.close()
    assert facts_of(db) == {("a", "b")}


def test_a_read_never_creates_the_default_location_and_a_write_does(store_dir: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    import platformdirs

    from synapse_graph.backends import DEFAULT_DB_ENV, open_backend
    from synapse_graph.errors import NotFoundError

    monkeypatch.delenv(DEFAULT_DB_ENV, raising=False)
    monkeypatch.setattr(platformdirs, "user_data_dir", lambda *a, **k: str(store_dir / "data"))
    with pytest.raises(NotFoundError, match="no store at"):
        open_backend(None, create=False)
    assert not (store_dir / "data").exists()
    backend = open_backend(None)
    try:
        assert backend.location == str(store_dir / "data" / "memory.db")
    finally:
        backend.close()
    open_backend(None, create=False).close()


@pytest.mark.parametrize("location", ["http://x", ""])
def test_the_cli_refuses_a_mistyped_location(store_dir: Path, location: str) -> None:
    done = subprocess.run([str(CLI), "facts", "Dana", "--db", location], capture_output=True, text=True,
                          timeout=300, check=False, cwd=store_dir)
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert "no facts" not in done.stdout and "error" in done.stderr
    assert sorted(p.name for p in store_dir.iterdir()) == []
