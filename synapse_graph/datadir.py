"""Where synapse-graph keeps its files by default: one folder in the user's data directory."""

from __future__ import annotations

import os
from pathlib import Path


def data_path(name: str, env: str | None = None) -> Path:
    """``$env`` when that variable is set (and not empty), else ``name`` in synapse-graph's user data directory."""
    configured = os.environ.get(env) if env else None
    if configured:
        return Path(configured)
    from platformdirs import user_data_dir  # imported late: most commands never need it

    return Path(user_data_dir("synapse-graph", appauthor=False)) / name
