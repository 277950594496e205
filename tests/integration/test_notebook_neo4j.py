"""notebooks/02_neo4j.ipynb runs top to bottom on a live Neo4j (its cells assert what they show)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import nbformat
import pytest
from nbclient import NotebookClient

NOTEBOOK = Path(__file__).resolve().parents[2] / "notebooks" / "02_neo4j.ipynb"


def test_neo4j_notebook_runs(neo4j_settings: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> None:
    user, password = neo4j_settings["auth"]
    # The kernel inherits this process's environment: the notebook connects with these.
    monkeypatch.setenv("SYNAPSE_NEO4J_URL", neo4j_settings["location"])
    monkeypatch.setenv("SYNAPSE_NEO4J_USER", user)
    monkeypatch.setenv("SYNAPSE_NEO4J_PASSWORD", password)
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    NotebookClient(notebook, timeout=300, kernel_name="python3",
                   resources={"metadata": {"path": str(NOTEBOOK.parent)}}).execute()
    outputs = "".join(o.get("text", "") for c in notebook.cells if c.cell_type == "code" for o in c.get("outputs", []))
    assert "Dana Reyes LIVES_IN London" in outputs
    assert "?connectURL=" in outputs and ":param key => 'dana'" in outputs and ":config autoComplete: false" in outputs
    assert "ZONED DATETIME" in outputs and "purged:" in outputs
