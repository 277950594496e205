"""Install and uninstall the hooks in a Claude Code settings file, merging with what is there.

``{"hooks": {"Event": [{"matcher": "regex", "hooks": [{"type": "command", "command": "..."}]}]}}``.
Installing never touches other hooks or settings, and installing twice changes nothing;
uninstalling removes only the hooks whose command runs ``synapse-graph hook ...``.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from synapse_graph.errors import ConfigurationError

# Our hook commands: `synapse-graph hook <command>`, whatever path or quoting the executable has.
_OURS = re.compile(r"""(?:^|[\s/'"])synapse-graph['"]?\s+hook\s+(?:session-start|pre-compact|stop)\b""")


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
    return isinstance(hook, dict) and isinstance(hook.get("command"), str) and bool(_OURS.search(hook["command"]))


def _load(path: Path) -> dict[str, Any]:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    try:
        data = json.loads(text) if text.strip() else {}
    except ValueError as exc:
        raise ConfigurationError(f"{path} is not valid JSON ({exc}); fix it first, nothing was changed") from None
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
    group["hooks"] = [{"type": "command", "command": spec.command, "timeout": spec.timeout}]
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
    if after == before and path.exists():
        return False
    path.parent.mkdir(parents=True, exist_ok=True)
    mode = path.stat().st_mode & 0o777 if path.exists() else 0o644
    fd, temp = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(after, handle, indent=2, ensure_ascii=False)
            handle.write("\n")
        os.chmod(temp, mode)
        os.replace(temp, path)
    except BaseException:
        if os.path.exists(temp):
            os.unlink(temp)
        raise
    return True
