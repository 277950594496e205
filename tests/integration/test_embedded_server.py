"""The embedded FalkorDB server: one server per store whatever happens, and no store opened as if it were fine.

Each test uses stores of its own under ``tmp_path`` and, at the end, checks that no
``redis-server`` (or watchdog) is left running in them: a server is recognised as this
test's by its working directory (the server runs in its store's directory).
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import time
from pathlib import Path

import pytest

from synapse_graph import Memory, Triple
from synapse_graph.backends import embedded
from synapse_graph.backends.embedded import EmbeddedServer
from synapse_graph.errors import BackendUnavailableError
from tests.integration.embedded_processes import (
    CLI,
    Client,
    add,
    alive,
    facts_of,
    redis_servers_in,
    servers_in,
    start_client,
    stop_server,
    wait_until,
)

pytestmark = [pytest.mark.integration, pytest.mark.usefixtures("lingering")]  # every guarantee holds lingering


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
    assert wait_until(lambda: not alive(pid))
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
    stop_server(db)  # so that the next open starts one
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
    assert wait_until(lambda: not alive(pid), 60), "the server outlived its last client"
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
    assert alive(pid)
    second.send("add c d")
    assert second.send("facts")["facts"] == [["a", "b"], ["c", "d"]]
    assert second.send("pid")["pid"] == pid
    second.finish("abandon")
    assert wait_until(lambda: not alive(pid), 60), "the server outlived its last client"
    assert facts_of(db) == {("a", "b"), ("c", "d")}


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
