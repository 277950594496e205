"""notebooks/02_neo4j.ipynb runs top to bottom on a live Neo4j (its cells assert what they show), and is committed
with the outputs a fresh run shows (see tests/integration/notebooks.py)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.integration.notebooks import NOTEBOOKS, assert_committed_as_run, run_notebook
from tests.integration.test_notebooks import check_committed

NOTEBOOK = NOTEBOOKS / "02_neo4j.ipynb"


def _check(notebook: Any) -> None:
    outputs = "".join(o.get("text", "") for c in notebook.cells if c.cell_type == "code" for o in c.get("outputs", []))
    assert "Dana Reyes LIVES_IN London" in outputs
    assert "?connectURL=" in outputs and ":param key => 'dana'" in outputs and ":config autoComplete: false" in outputs
    assert "ZONED DATETIME" in outputs and "purged:" in outputs


def test_neo4j_notebook_runs_and_shows_what_is_committed(neo4j_settings: dict[str, Any],
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    user, password = neo4j_settings["auth"]
    # The kernel inherits this process's environment: the notebook connects with these.
    monkeypatch.setenv("SYNAPSE_NEO4J_URL", neo4j_settings["location"])
    monkeypatch.setenv("SYNAPSE_NEO4J_USER", user)
    monkeypatch.setenv("SYNAPSE_NEO4J_PASSWORD", password)
    fresh = run_notebook(NOTEBOOK)
    _check(fresh)
    assert_committed_as_run(NOTEBOOK, fresh)


def test_neo4j_notebook_is_committed_with_its_outputs() -> None:
    _check(check_committed(NOTEBOOK))
