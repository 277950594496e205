"""Settings of the hook commands: the environment first, then a private (0600) JSON config file.

Credentials (the Neo4j password, the model's API key) never come from the command line:
hook commands are visible to every process on the machine through ``ps``.
"""

from __future__ import annotations

import json
import os
import stat
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

from synapse_graph.errors import ConfigurationError

CONFIG_ENV = "SYNAPSE_CONFIG"
_ENV = {
    "db": "SYNAPSE_DB",
    "scope": "SYNAPSE_SCOPE",
    "neo4j_user": "SYNAPSE_NEO4J_USER",
    "neo4j_password": "SYNAPSE_NEO4J_PASSWORD",
    "model_url": "SYNAPSE_OFFLOAD_URL",
    "model": "SYNAPSE_OFFLOAD_MODEL",
    "api_key": "SYNAPSE_OFFLOAD_API_KEY",
    "allow_remote": "SYNAPSE_OFFLOAD_ALLOW_REMOTE",
    "response_format": "SYNAPSE_OFFLOAD_RESPONSE_FORMAT",
    "keep_exchanges": "SYNAPSE_HOOK_KEEP_EXCHANGES",
    "recall_limit": "SYNAPSE_HOOK_RECALL_LIMIT",
    "timeout": "SYNAPSE_OFFLOAD_TIMEOUT",
}
_SECRETS = ("neo4j_password", "api_key")


@dataclass(frozen=True)
class HookConfig:
    """Where the memory is, which model extracts, and how much of a conversation stays unoffloaded."""

    db: str | None = None
    scope: str = "default"
    neo4j_user: str | None = None
    neo4j_password: str | None = None
    model_url: str | None = None
    model: str | None = None
    api_key: str | None = None
    allow_remote: bool = False
    response_format: str = "json_schema"
    keep_exchanges: int = 10
    """The last N exchanges (a user prompt and everything until the next) are not offloaded yet."""
    recall_limit: int = 25
    timeout: float = 120.0

    @property
    def auth(self) -> tuple[str, str] | None:
        return None if self.neo4j_password is None else (self.neo4j_user or "neo4j", self.neo4j_password)


def default_config_path() -> Path:
    configured = os.environ.get(CONFIG_ENV)
    if configured:
        return Path(configured)
    from platformdirs import user_config_dir

    return Path(user_config_dir("synapse-graph", appauthor=False)) / "config.json"


def _from_file(path: Path) -> dict[str, Any]:
    try:
        info = path.stat()
    except FileNotFoundError:
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ConfigurationError(f"config file {path} is not readable JSON: {exc}") from None
    if not isinstance(data, dict):
        raise ConfigurationError(f"config file {path} must hold a JSON object")
    unknown = sorted(set(data) - {f.name for f in fields(HookConfig)})
    if unknown:
        raise ConfigurationError(f"config file {path} has unknown keys {unknown}; known: {sorted(_ENV)}")
    if any(k in data for k in _SECRETS) and info.st_mode & (stat.S_IRWXG | stat.S_IRWXO):
        raise ConfigurationError(
            f"config file {path} holds credentials but others can read it; run: chmod 600 {path}")
    return data


def load_config(path: str | os.PathLike[str] | None = None, environ: dict[str, str] | None = None) -> HookConfig:
    """The settings from the environment, else the config file, else the defaults."""
    env = os.environ if environ is None else environ
    values: dict[str, Any] = _from_file(Path(path) if path is not None else default_config_path())
    for name, variable in _ENV.items():
        if env.get(variable):
            values[name] = env[variable]
    try:
        if "allow_remote" in values and isinstance(values["allow_remote"], str):
            values["allow_remote"] = values["allow_remote"].strip().lower() in ("1", "true", "yes", "on")
        for name, kind in (("keep_exchanges", int), ("recall_limit", int), ("timeout", float)):
            if name in values:
                values[name] = kind(values[name])
    except ValueError as exc:
        raise ConfigurationError(f"bad hook setting: {exc}") from None
    if values.get("keep_exchanges", 10) < 0:
        raise ConfigurationError("keep_exchanges must be 0 or more")
    return HookConfig(**values)
