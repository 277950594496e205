"""Run the notebooks, and compare what they show with what is committed (not a test module).

A notebook says "every output below is real": CI runs it afresh and compares each code cell's
outputs with the committed ones after normalising what changes from run to run and means nothing
(times of the run itself, generated ids and scope names, server addresses, the bytes of a picture).
Any other difference fails: the committed notebook no longer shows what the code does.

Refresh the committed outputs (Neo4j from ``SYNAPSE_NEO4J_*`` or ``scripts/neo4j-local env``)::

    .venv/bin/python -m tests.integration.notebooks notebooks/01_quickstart.ipynb notebooks/02_neo4j.ipynb
"""

from __future__ import annotations

import difflib
import re
import sys
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import nbformat
from nbclient import NotebookClient

NOTEBOOKS = Path(__file__).resolve().parents[2] / "notebooks"

_TIME = re.compile(r"\b(\d{4}-\d\d-\d\d)(?:[T ](\d\d:\d\d(?::\d\d(?:\.\d{1,6})?)?)(Z|[+-]\d\d:\d\d)?)?")
_IDS = (
    (re.compile(r"\b(?=[0-9a-z]*\d)(?=[0-9a-z]*[a-z])[0-9a-z]{25}\b"), "<fact id>"),  # fact ids (base 36)
    (re.compile(r"\b[0-9a-f]{32}\b"), "<uuid>"),
    (re.compile(r"\b(notebook|quickstart)-[0-9a-f]{8}\b"), r"\1-<scope>"),
    (re.compile(r"\b(127\.0\.0\.1|localhost|\[::1\]):\d+"), "<host:port>"),
    (re.compile(r"/tmp/[^\s'\"]+"), "<temp path>"),
)
_SLACK = timedelta(minutes=10)


def run_notebook(path: Path) -> Any:
    """Execute a notebook top to bottom in a fresh kernel (this process's environment); the executed notebook."""
    notebook = nbformat.read(path, as_version=4)
    NotebookClient(notebook, timeout=300, kernel_name="python3", record_timing=True,
                   resources={"metadata": {"path": str(path.parent)}}).execute()
    return notebook


def ran_between(notebook: Any) -> tuple[datetime, datetime]:
    """When the notebook ran, from the timing its cells record (a notebook run by nbclient or Jupyter)."""
    stamps = [datetime.fromisoformat(value.replace("Z", "+00:00"))
              for cell in notebook.cells if cell.cell_type == "code"
              for value in cell.get("metadata", {}).get("execution", {}).values()]
    if not stamps:
        raise AssertionError("the notebook records no execution times: run it with "
                             "python -m tests.integration.notebooks (see its docstring) and commit it")
    return min(stamps) - _SLACK, max(stamps) + _SLACK


def _times(text: str, window: tuple[datetime, datetime]) -> str:
    """Times of the run itself (inside ``window``) as ``<now>``; every other time is kept as written."""

    def replace(found: re.Match[str]) -> str:
        date, clock, zone = found.groups()
        try:
            when = datetime.fromisoformat(f"{date}T{clock or '00:00'}{'+00:00' if zone in (None, 'Z') else zone}")
        except ValueError:
            return found.group(0)
        start, end = window
        inside = start <= when <= end if clock else start.date() <= when.date() <= end.date()
        return "<now>" if inside else found.group(0)

    return _TIME.sub(replace, text)


def normalised(notebook: Any) -> list[list[str]]:
    """Each code cell's outputs as text, with what changes between runs replaced by placeholders."""
    window = ran_between(notebook)
    return [_times(_ids(_cell_text(cell)), window).splitlines() for cell in notebook.cells if cell.cell_type == "code"]


def _cell_text(cell: Any) -> str:
    shown: list[str] = []
    stream = None
    for output in cell.get("outputs", []):
        kind = output.get("output_type")
        if kind == "stream" and output.get("name") == stream:
            shown[-1] += output.get("text", "")  # one stream, however the kernel cut it into messages
        elif kind == "stream":
            shown.append(f"{output.get('name')}: {output.get('text', '')}")
        elif kind == "error":
            shown.append(f"error: {output.get('ename')}: {output.get('evalue')}")
        else:
            data = output.get("data", {})
            for mime in sorted(data):  # a picture's bytes change with the run (a timeline ends today)
                shown.append(f"{mime}: <picture>" if mime.startswith("image/") else f"{mime}: {data[mime]}")
        stream = output.get("name") if kind == "stream" else None
    return "\n".join(shown)


def _ids(text: str) -> str:
    for pattern, placeholder in _IDS:
        text = pattern.sub(placeholder, text)
    return text


def differences(committed: Any, fresh: Any) -> str:
    """What the fresh run shows that the committed notebook does not (a diff), or ""."""
    found = []
    for number, (old, new) in enumerate(zip(normalised(committed), normalised(fresh), strict=True), start=1):
        if old != new:
            found.append(f"code cell {number}:\n" + "\n".join(difflib.unified_diff(old, new, "committed", "fresh",
                                                                                   lineterm="")))
    return "\n".join(found)


def assert_committed_as_run(path: Path, fresh: Any) -> None:
    """Fail, with the differences, when the committed notebook at ``path`` shows other outputs than ``fresh``."""
    changed = differences(nbformat.read(path, as_version=4), fresh)
    assert not changed, (f"{path.name} shows other outputs than a fresh run (re-run it with "
                         f"python -m tests.integration.notebooks notebooks/{path.name}, then commit it):\n{changed}")


def main(paths: list[str]) -> None:
    """Run each notebook and write it back with its fresh outputs."""
    for name in paths:
        path = Path(name)
        notebook = run_notebook(path)
        nbformat.write(notebook, path)
        print(f"{path}: ran and written ({len(notebook.cells)} cells)")


if __name__ == "__main__":
    main(sys.argv[1:] or [str(p) for p in sorted(NOTEBOOKS.glob("*.ipynb"))])
