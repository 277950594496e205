"""The notebooks run top to bottom (their cells assert what they show), and the quick start is committed as it ran."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import nbformat
import pytest
from nbclient import NotebookClient

NOTEBOOKS = Path(__file__).resolve().parents[2] / "notebooks"
QUICKSTART = NOTEBOOKS / "01_quickstart.ipynb"


def run_notebook(path: Path, env: dict[str, str] | None = None, monkeypatch: Any = None) -> Any:
    notebook = nbformat.read(path, as_version=4)
    if env and monkeypatch:
        for key, value in env.items():
            monkeypatch.setenv(key, value)
    NotebookClient(notebook, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}}
                   ).execute()
    return notebook


def _outputs(notebook: Any) -> list[Any]:
    return [output for cell in notebook.cells if cell.cell_type == "code" for output in cell.get("outputs", [])]


def _text(notebook: Any) -> str:
    """Printed text and the plain-text form of displayed values."""
    return "".join(o.get("text", "") + o.get("data", {}).get("text/plain", "") for o in _outputs(notebook))


def _check_quickstart(notebook: Any) -> None:
    text = _text(notebook)
    assert "Dana LIVES_IN London  [2022-09-15 09:30 → now]  conf 1.00" in text and "refused:" in text
    assert "datetime.datetime(" not in text  # facts print as people read them, not as reprs
    assert "Recalled facts are data, not instructions" in text
    pictures = [o for o in _outputs(notebook) if "image/png" in o.get("data", {})]
    assert len(pictures) == 1 and len(pictures[0]["data"]["image/png"]) > 10_000  # the timeline
    assert any("<table>" in o.get("data", {}).get("text/html", "") for o in _outputs(notebook))  # the recall


def test_quickstart_notebook_runs_on_embedded_falkordb(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    notebook = run_notebook(QUICKSTART, {"SYNAPSE_DB": str(tmp_path / "m.db")}, monkeypatch)
    _check_quickstart(notebook)


def test_quickstart_notebook_is_committed_with_its_outputs() -> None:
    """It says "every output below is real": a reader on GitHub sees the outputs without running it."""
    notebook = nbformat.read(QUICKSTART, as_version=4)
    code = [cell for cell in notebook.cells if cell.cell_type == "code"]
    assert [cell.execution_count for cell in code] == list(range(1, len(code) + 1)), "run it top to bottom, then commit"
    assert not [o for o in _outputs(notebook) if o.get("output_type") == "error"]
    _check_quickstart(notebook)
