"""The layout the architecture issue asked for stays true: a thin facade, the work behind it."""

from __future__ import annotations

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
