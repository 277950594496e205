"""Installing the hooks merges with a project's settings; uninstalling removes only ours."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from synapse_graph.errors import ConfigurationError
from synapse_graph.hooks.settings import install, is_ours, uninstall

THEIRS: dict[str, Any] = {
    "permissions": {"allow": ["Bash(npm run test:*)"], "deny": ["Read(./.env)"]},
    "env": {"NODE_ENV": "development"},
    "hooks": {
        "SessionStart": [{"matcher": "startup", "hooks": [{"type": "command", "command": "echo hello"}]}],
        "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "./scripts/check-bash.sh",
                                                       "timeout": 5}]}],
        "Stop": [{"hooks": [{"type": "command", "command": "notify-send done"}]}],
    },
}


def settings(project: Path, name: str = "settings.local.json") -> dict[str, Any]:
    return json.loads((project / ".claude" / name).read_text())


def commands(data: dict[str, Any], event: str) -> list[str]:
    return [h["command"] for g in data["hooks"].get(event, []) for h in g["hooks"]]


def test_install_into_a_fresh_project(tmp_path: Path) -> None:
    path, changed = install(tmp_path)
    assert changed and path == tmp_path / ".claude" / "settings.local.json"
    data = settings(tmp_path)
    assert set(data["hooks"]) == {"SessionStart", "PreCompact", "Stop"}
    [start] = data["hooks"]["SessionStart"]
    assert start["matcher"] == "startup|resume|compact"
    assert start["hooks"][0]["command"].endswith("synapse-graph hook session-start")
    assert start["hooks"][0]["type"] == "command" and start["hooks"][0]["timeout"] > 0
    assert data["hooks"]["PreCompact"][0]["hooks"][0]["command"].endswith("hook pre-compact")
    assert "matcher" not in data["hooks"]["Stop"][0]
    # Nothing secret on the command line: credentials come from the environment or the config file.
    assert all("password" not in c and "key" not in c for e in data["hooks"] for c in commands(data, e))


def test_install_merges_and_is_idempotent(tmp_path: Path) -> None:
    (tmp_path / ".claude").mkdir()
    target = tmp_path / ".claude" / "settings.json"
    target.write_text(json.dumps(THEIRS, indent=4))
    _, changed = install(tmp_path, shared=True)
    assert changed
    data = settings(tmp_path, "settings.json")
    assert data["permissions"] == THEIRS["permissions"] and data["env"] == THEIRS["env"]
    assert data["hooks"]["PreToolUse"] == THEIRS["hooks"]["PreToolUse"]
    assert commands(data, "SessionStart") == ["echo hello", "synapse-graph hook session-start"]
    assert commands(data, "Stop") == ["notify-send done", "synapse-graph hook stop"]
    first = target.read_bytes()
    _, again = install(tmp_path, shared=True)
    assert not again and target.read_bytes() == first  # re-running changes nothing


def test_reinstall_replaces_an_old_or_moved_command(tmp_path: Path) -> None:
    (tmp_path / ".claude").mkdir()
    old = {"hooks": {"SessionStart": [{"matcher": "startup", "hooks": [
        {"type": "command", "command": "echo mine"},
        {"type": "command", "command": "/old/venv/bin/synapse-graph hook session-start", "timeout": 5}]}]}}
    (tmp_path / ".claude" / "settings.local.json").write_text(json.dumps(old))
    install(tmp_path)
    data = settings(tmp_path)
    assert data["hooks"]["SessionStart"][0] == {"matcher": "startup", "hooks": [{"type": "command",
                                                                                 "command": "echo mine"}]}
    assert sum(is_ours(h) for g in data["hooks"]["SessionStart"] for h in g["hooks"]) == 1


def test_uninstall_removes_only_ours(tmp_path: Path) -> None:
    (tmp_path / ".claude").mkdir()
    target = tmp_path / ".claude" / "settings.local.json"
    target.write_text(json.dumps(THEIRS))
    install(tmp_path)
    _, changed = uninstall(tmp_path)
    assert changed and settings(tmp_path) == THEIRS
    _, again = uninstall(tmp_path)
    assert not again


def test_uninstall_of_ours_alone_leaves_no_empty_hooks(tmp_path: Path) -> None:
    install(tmp_path)
    uninstall(tmp_path)
    assert settings(tmp_path) == {}


def test_broken_settings_are_never_clobbered(tmp_path: Path) -> None:
    (tmp_path / ".claude").mkdir()
    target = tmp_path / ".claude" / "settings.local.json"
    target.write_text('{"hooks": {"Stop": [ }')
    with pytest.raises(ConfigurationError, match="not valid JSON"):
        install(tmp_path)
    assert target.read_text() == '{"hooks": {"Stop": [ }'


@pytest.mark.parametrize(("command", "ours"), [
    ("synapse-graph hook stop", True), ("/home/u/.venv/bin/synapse-graph hook pre-compact", True),
    ("'/path with space/synapse-graph' hook session-start", True), ("my-synapse-graph hook stop", False),
    ("echo synapse-graph", False), ("synapse-graph recall x", False), ("cd ~/w && synapse-graph hook stop", False),
    ("synapse-graph hook stop; notify-send x", False), ("synapse-graph hook stop --verbose", False),
    ("synapse-graph hook 'stop", False)])
def test_which_hooks_are_ours(command: str, ours: bool) -> None:
    assert is_ours({"type": "command", "command": command}) is ours


def test_cli_install_and_uninstall(tmp_path: Path) -> None:
    exe = str(Path(sys.executable).parent / "synapse-graph")
    run = subprocess.run([exe, "hooks", "install", str(tmp_path), "--json"], capture_output=True, text=True,
                         check=True)
    assert json.loads(run.stdout)["changed"] is True
    again = subprocess.run([exe, "hooks", "install", str(tmp_path)], capture_output=True, text=True, check=True)
    assert "already installed" in again.stdout
    assert json.loads(subprocess.run([exe, "hooks", "uninstall", str(tmp_path), "--json"], capture_output=True,
                                     text=True, check=True).stdout)["changed"] is True
    assert settings(tmp_path) == {}


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    exe = str(Path(sys.executable).parent / "synapse-graph")
    return subprocess.run([exe, "hooks", *args], capture_output=True, text=True, check=False, timeout=120)


def test_a_users_own_hook_that_runs_ours_among_other_things_is_theirs(tmp_path: Path) -> None:
    (tmp_path / ".claude").mkdir()
    target = tmp_path / ".claude" / "settings.local.json"
    theirs = {"hooks": {"Stop": [{"hooks": [
        {"type": "command", "command": "cd ~/work && synapse-graph hook stop >> ~/offload.log 2>&1"},
        {"type": "command", "command": "synapse-graph hook stop; notify-send 'offloaded'"},
        {"type": "command", "command": "SYNAPSE_SCOPE=acme/web synapse-graph hook stop"}]}]}}
    target.write_text(json.dumps(theirs))
    assert run_cli("install", str(tmp_path)).returncode == 0
    assert commands(settings(tmp_path), "Stop")[:3] == [h["command"] for h in theirs["hooks"]["Stop"][0]["hooks"]]
    assert sum(is_ours(h) for g in settings(tmp_path)["hooks"]["Stop"] for h in g["hooks"]) == 1
    assert run_cli("uninstall", str(tmp_path)).returncode == 0
    assert settings(tmp_path) == theirs


def test_install_writes_through_a_symlinked_settings_file(tmp_path: Path) -> None:
    shared = tmp_path / "dotfiles" / "claude-settings.json"
    shared.parent.mkdir()
    shared.write_text(json.dumps(THEIRS))
    (tmp_path / ".claude").mkdir()
    link = tmp_path / ".claude" / "settings.local.json"
    link.symlink_to(shared)
    assert run_cli("install", str(tmp_path)).returncode == 0
    assert link.is_symlink() and link.resolve() == shared.resolve()
    stop = commands(json.loads(shared.read_text()), "Stop")
    assert stop[0] == "notify-send done" and stop[1].endswith("synapse-graph hook stop")
    assert run_cli("uninstall", str(tmp_path)).returncode == 0
    assert link.is_symlink() and json.loads(shared.read_text()) == THEIRS


def test_install_keeps_numbers_as_written(tmp_path: Path) -> None:
    (tmp_path / ".claude").mkdir()
    target = tmp_path / ".claude" / "settings.local.json"
    target.write_text('{"env": {"BIG": 1e400, "PI": 3.14159265358979323846264338327950288, "N": 123456789012345678901'
                      '234567890, "NEG": -0.0, "E": 2E-3}, "hooks": {}}')
    assert run_cli("install", str(tmp_path)).returncode == 0
    text = target.read_text()
    for literal in ("1e400", "3.14159265358979323846264338327950288", "123456789012345678901234567890", "-0.0",
                    "2E-3"):
        assert f": {literal}" in text
    assert "Infinity" not in text
    assert commands(json.loads(text, parse_constant=lambda c: pytest.fail(f"not JSON: {c}")), "Stop")


def test_install_round_trips_a_lone_surrogate_escape(tmp_path: Path) -> None:
    (tmp_path / ".claude").mkdir()
    target = tmp_path / ".claude" / "settings.local.json"
    target.write_text('{"env": {"ODD": "a\\ud800b"}}')
    done = run_cli("install", str(tmp_path))
    assert done.returncode == 0, done.stderr
    assert '"a\\ud800b"' in target.read_text() and settings(tmp_path)["env"]["ODD"] == "a\ud800b"


@pytest.mark.parametrize("content", [
    b'{"env": {"A": "1", "A": "2"}}',  # two values for one key: one would be lost
    b'{"env": {"A": "caf\xe9"}}',  # not UTF-8
    b"[" * 100_000 + b"]" * 100_000,  # nested too deeply to read
])
def test_install_refuses_what_it_cannot_round_trip_with_one_line_and_no_change(tmp_path: Path,
                                                                                content: bytes) -> None:
    (tmp_path / ".claude").mkdir()
    target = tmp_path / ".claude" / "settings.local.json"
    target.write_bytes(content)
    for command in ("install", "uninstall"):
        done = run_cli(command, str(tmp_path))
        assert done.returncode != 0 and done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
        assert "nothing was changed" in done.stderr
        assert target.read_bytes() == content
