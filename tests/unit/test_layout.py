"""The layout the architecture issue asked for stays true: a thin facade, the work behind it."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import synapse_graph

PACKAGE = Path(synapse_graph.__file__).parent


def test_the_facades_stay_thin() -> None:
    for facade in ("memory.py", "aio.py"):
        lines = len((PACKAGE / facade).read_text(encoding="utf-8").splitlines())
        assert lines <= 400, f"{facade} has {lines} lines: move the work into synapse_graph/engine/"


def test_no_module_is_a_room_of_its_own() -> None:
    for path in PACKAGE.rglob("*.py"):
        lines = len(path.read_text(encoding="utf-8").splitlines())
        assert lines <= 520, f"{path.relative_to(PACKAGE)} has {lines} lines: split it by responsibility"


def test_the_domain_never_asks_which_backend_it_runs_on() -> None:
    for path in [*(PACKAGE / "engine").glob("*.py"), *(PACKAGE / "rules").glob("*.py"), PACKAGE / "memory.py"]:
        text = path.read_text(encoding="utf-8")
        assert "dialect ==" not in text and "backend ==" not in text, path.name


def _imported(path: Path) -> set[str]:
    """The modules of ours a file imports (at any depth, type-only imports included)."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            package = node.module == "synapse_graph"  # from synapse_graph import render
            names |= {f"{node.module}.{alias.name}" for alias in node.names} if package else {node.module}
        elif isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
    return {name for name in names if name.split(".")[0] == "synapse_graph"}


def test_the_models_import_only_the_pure_rules_errors_and_rendering() -> None:
    allowed = ("synapse_graph.models", "synapse_graph.rules", "synapse_graph.errors", "synapse_graph.render")
    for path in (PACKAGE / "models").glob("*.py"):
        stray = sorted(name for name in _imported(path) if not name.startswith(allowed))
        assert stray == [], f"models/{path.name} imports {stray}: the models stay pure data"


def _layout_block() -> str:
    """The tree drawn on the architecture page (docs/architecture.md, its ``text`` block)."""
    page = (PACKAGE.parent / "docs" / "architecture.md").read_text(encoding="utf-8")
    return page.split("```text", 1)[1].split("```", 1)[0]


def test_the_architecture_page_names_every_room_of_the_package() -> None:
    block = _layout_block()
    rooms = [path.name + ("/" if path.is_dir() else "") for path in sorted(PACKAGE.iterdir())
             if path.name not in {"__init__.py", "__pycache__", "py.typed"} and not path.name.startswith(".")]
    assert [room for room in rooms if not re.search(rf"(?<![\w/]){re.escape(room)}", block)] == []


def test_every_module_the_architecture_page_names_exists() -> None:
    named = set(re.findall(r"\b(\w+\.py)\b", _layout_block()))
    present = {path.name for path in PACKAGE.rglob("*.py")}
    assert sorted(named - present) == []
