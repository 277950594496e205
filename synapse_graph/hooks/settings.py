"""Install and uninstall the hooks in a Claude Code settings file, merging with what is there.

``{"hooks": {"Event": [{"matcher": "regex", "hooks": [{"type": "command", "command": "..."}]}]}}``.
Installing never touches other hooks or settings, and installing twice changes nothing;
uninstalling removes only the hooks that are exactly ours: ``synapse-graph hook <command>``
(whatever path or quoting the executable has), not a user's command that runs it among others.

The file is rewritten as it was read, but for our hooks: through a symbolic link (the link
stays), numbers exactly as written (``1e400`` is not ``Infinity``), strings that are no
UTF-8 (a lone surrogate escape) escaped again. What cannot be written back as it was read
(a key given twice, bytes that are not UTF-8, nesting too deep) is refused, and the file
is left unchanged.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from synapse_graph.errors import ConfigurationError

_COMMANDS = ("session-start", "pre-compact", "stop")


@dataclass(frozen=True)
class HookSpec:
    event: str
    matcher: str | None
    command: str
    timeout: int


def executable(shared: bool) -> str:
    """How settings call us: the bare name in a shared (committed) file, else this installation's own path."""
    if shared:
        return "synapse-graph"
    beside = Path(sys.executable).parent / "synapse-graph"
    found = str(beside) if beside.exists() else shutil.which("synapse-graph")
    return shlex.quote(found) if found else "synapse-graph"


def our_hooks(shared: bool) -> list[HookSpec]:
    exe = executable(shared)
    return [
        HookSpec("SessionStart", "startup|resume|compact", f"{exe} hook session-start", 30),
        HookSpec("PreCompact", "manual|auto", f"{exe} hook pre-compact", 300),
        HookSpec("Stop", None, f"{exe} hook stop", 30),
    ]


def settings_file(project: str | os.PathLike[str], shared: bool) -> Path:
    """``.claude/settings.json`` (shared with the team) or ``.claude/settings.local.json`` (yours alone)."""
    return Path(project) / ".claude" / ("settings.json" if shared else "settings.local.json")


def is_ours(hook: Any) -> bool:
    """Exactly ``<path>/synapse-graph hook <command>``: a user's command that runs ours among others is theirs."""
    if not isinstance(hook, dict) or not isinstance(hook.get("command"), str):
        return False
    try:
        words = shlex.split(hook["command"])
    except ValueError:  # unbalanced quotes: not a command we wrote
        return False
    return len(words) == 3 and Path(words[0]).name == "synapse-graph" and words[1:2] == ["hook"] and \
        words[2] in _COMMANDS


@dataclass(frozen=True)
class Number:
    """A JSON number as the file writes it, written back the same (``1e400``, ``0.10000000000000000001``)."""

    text: str


def _unique(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    data = dict(pairs)
    if len(data) != len(pairs):
        twice = next(k for i, (k, _) in enumerate(pairs) if k in dict(pairs[:i]))
        raise ValueError(f"the key {twice!r} is given twice in one object (one of its values would be lost)")
    return data


def parse(text: str) -> Any:
    """JSON with numbers kept as written and a key given twice refused (ValueError, RecursionError)."""
    return json.loads(text, object_pairs_hook=_unique, parse_float=Number, parse_int=Number,
                      parse_constant=Number)


def dump(value: Any, level: int = 0) -> str:
    """JSON text of what :func:`parse` read, indented by two spaces (``json.dumps(indent=2)``'s layout)."""
    if isinstance(value, Number):
        return value.text
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:  # a lone surrogate: only its escape can be written
            return json.dumps(value)
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, bool | int | float) or value is None:
        return json.dumps(value)
    inner, outer = "  " * (level + 1), "  " * level
    if isinstance(value, dict):
        if not value:
            return "{}"
        items = [f"{inner}{dump(str(k))}: {dump(v, level + 1)}" for k, v in value.items()]
        return "{\n" + ",\n".join(items) + f"\n{outer}}}"
    if isinstance(value, list):
        if not value:
            return "[]"
        return "[\n" + ",\n".join(f"{inner}{dump(v, level + 1)}" for v in value) + f"\n{outer}]"
    raise TypeError(f"cannot write a {type(value).__name__} as JSON")


def _load(path: Path) -> dict[str, Any]:
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return {}
    try:
        text = raw.decode("utf-8")
        data = parse(text) if text.strip() else {}
    except UnicodeDecodeError as exc:
        raise ConfigurationError(f"{path} is not UTF-8 text (byte 0x{raw[exc.start]:02x} at offset {exc.start}); "
                                 "fix it first, nothing was changed") from None
    except ValueError as exc:
        raise ConfigurationError(f"{path} is not valid JSON ({exc}); fix it first, nothing was changed") from None
    except RecursionError:
        raise ConfigurationError(f"{path} is nested too deeply to read; fix it first, nothing was changed") from None
    if not isinstance(data, dict) or not isinstance(data.get("hooks", {}), dict):
        raise ConfigurationError(f"{path} is not a settings object with a 'hooks' object; nothing was changed")
    return data


def _without_ours(groups: Any) -> list[Any]:
    """The event's matcher groups with our hooks taken out (groups left empty by that are dropped)."""
    kept: list[Any] = []
    for group in groups if isinstance(groups, list) else []:
        if not isinstance(group, dict) or not isinstance(group.get("hooks"), list):
            kept.append(group)
            continue
        hooks = [h for h in group["hooks"] if not is_ours(h)]
        if hooks or not group["hooks"]:
            kept.append({**group, "hooks": hooks} if len(hooks) != len(group["hooks"]) else group)
    return kept


def _group(spec: HookSpec) -> dict[str, Any]:
    group: dict[str, Any] = {} if spec.matcher is None else {"matcher": spec.matcher}
    group["hooks"] = [{"type": "command", "command": spec.command, "timeout": Number(str(spec.timeout))}]
    return group


def install(project: str | os.PathLike[str], *, shared: bool = False) -> tuple[Path, bool]:
    """Merge our hooks into the project's settings; returns the file and whether it changed."""
    path = settings_file(project, shared)
    data = _load(path)
    hooks: dict[str, Any] = dict(data.get("hooks", {}))
    for spec in our_hooks(shared):
        groups = hooks.get(spec.event, [])
        if isinstance(groups, list) and _group(spec) in groups and \
                sum(is_ours(h) for g in groups if isinstance(g, dict) for h in g.get("hooks", [])) == 1:
            continue  # already installed exactly so
        hooks[spec.event] = [*_without_ours(groups), _group(spec)]
    updated = {**data, "hooks": hooks}
    return path, _write(path, data, updated)


def uninstall(project: str | os.PathLike[str], *, shared: bool = False) -> tuple[Path, bool]:
    """Remove our hooks (and only ours) from the project's settings; returns the file and whether it changed."""
    path = settings_file(project, shared)
    data = _load(path)
    if "hooks" not in data:
        return path, False
    hooks: dict[str, Any] = {}
    for event, groups in data["hooks"].items():
        kept = _without_ours(groups) if isinstance(groups, list) else groups
        if kept or not groups:
            hooks[event] = kept
    updated = {**data, "hooks": hooks}
    if not hooks and data["hooks"]:
        del updated["hooks"]  # we emptied it
    return path, _write(path, data, updated)


def _write(path: Path, before: dict[str, Any], after: dict[str, Any]) -> bool:
    """Write ``after`` atomically to the file ``path`` names (through a symbolic link), unless it is unchanged."""
    if after == before and path.exists():
        return False
    try:
        text = dump(after) + "\n"
        same = parse(text) == after
    except RecursionError:
        raise ConfigurationError(f"{path} is nested too deeply to write back; nothing was changed") from None
    if not same:
        raise ConfigurationError(f"{path} cannot be written back as it was read; nothing was changed")
    target = Path(os.path.realpath(path))  # a link stays a link: its target is what changes
    target.parent.mkdir(parents=True, exist_ok=True)
    mode = target.stat().st_mode & 0o777 if target.exists() else 0o644
    fd, temp = tempfile.mkstemp(dir=target.parent, prefix=target.name, suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(text.encode("utf-8"))
        os.chmod(temp, mode)
        os.replace(temp, target)
    except BaseException:
        if os.path.exists(temp):
            os.unlink(temp)
        raise
    return True
