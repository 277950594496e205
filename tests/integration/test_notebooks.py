"""The notebooks run top to bottom (their cells assert what they show)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import nbformat
import pytest
from nbclient import NotebookClient

NOTEBOOKS = Path(__file__).resolve().parents[2] / "notebooks"


def run_notebook(path: Path, env: dict[str, str] | None = None, monkeypatch: Any = None) -> Any:
    notebook = nbformat.read(path, as_version=4)
    if env and monkeypatch:
        for key, value in env.items():
            monkeypatch.setenv(key, value)
    NotebookClient(notebook, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}}
                   ).execute()
    return notebook


def test_quickstart_notebook_runs_on_embedded_falkordb(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    notebook = run_notebook(NOTEBOOKS / "01_quickstart.ipynb", {"SYNAPSE_DB": str(tmp_path / "m.db")}, monkeypatch)
    outputs = "".join(o.get("text", "") for c in notebook.cells if c.cell_type == "code" for o in c.get("outputs", []))
    assert "Dana LIVES_IN London" in outputs and "refused:" in outputs
