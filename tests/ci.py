"""Skips that cannot hide a gap in CI (not a test module).

Outside CI a test whose dependency or server is missing skips; under CI (``CI`` set, as
``.ci/run`` sets it) the same test fails, because CI installs every extra and runs every server.
The same rule as ``_unavailable`` in ``tests/conftest.py``.
"""

from __future__ import annotations

import importlib
import os
from types import ModuleType
from typing import NoReturn

import pytest

IN_CI = bool(os.environ.get("CI"))


def unavailable(reason: str) -> NoReturn:
    """Skip the test, or fail it under CI."""
    if IN_CI:
        pytest.fail(f"{reason} (CI must run this test)", pytrace=False)
    pytest.skip(reason)


def require(module: str) -> ModuleType:
    """``pytest.importorskip(module)``, except that under CI a missing module fails the test."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        unavailable(f"{module} is not installed ({exc}); install the test extras: scripts/dev setup")
