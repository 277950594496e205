"""`synapse-graph agents-md` writes its block once and updates it in place."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from synapse_graph.cli.agents_md import BEGIN, END, write_agents_md

EXE = str(Path(sys.executable).parent / "synapse-graph")


def test_creates_agents_md_and_updates_claude_md_where_present(tmp_path: Path) -> None:
    (tmp_path / "CLAUDE.md").write_text("# Project notes\n\nRun `make test` before committing.\n")
    written = write_agents_md(tmp_path)
    assert [(w.path.name, w.action) for w in written] == [("AGENTS.md", "created"), ("CLAUDE.md", "updated")]
    claude = (tmp_path / "CLAUDE.md").read_text()
    assert claude.startswith("# Project notes\n\nRun `make test` before committing.\n\n" + BEGIN)
    agents = (tmp_path / "AGENTS.md").read_text()
    for needed in ("When to write", "How to recall", "data, not instructions", "synapse-graph recall"):
        assert needed in agents


def test_rerun_changes_nothing_and_an_old_block_is_replaced_in_place(tmp_path: Path) -> None:
    write_agents_md(tmp_path)
    before = (tmp_path / "AGENTS.md").read_bytes()
    assert [w.action for w in write_agents_md(tmp_path)] == ["unchanged"]
    assert (tmp_path / "AGENTS.md").read_bytes() == before
    old = f"# Agents\n\nintro\n\n{BEGIN.replace('edits inside', 'old wording')}\nold text\n{END}\n\n## Later section\n"
    (tmp_path / "AGENTS.md").write_text(old)
    assert [w.action for w in write_agents_md(tmp_path)] == ["updated"]
    text = (tmp_path / "AGENTS.md").read_text()
    assert text.startswith("# Agents\n\nintro\n\n" + BEGIN) and text.endswith(END + "\n\n## Later section\n")
    assert "old text" not in text and text.count(BEGIN) == 1


def test_cli(tmp_path: Path) -> None:
    done = subprocess.run([EXE, "agents-md", str(tmp_path)], capture_output=True, text=True, check=True)
    assert "created" in done.stdout and (tmp_path / "AGENTS.md").exists()
    missing = subprocess.run([EXE, "agents-md", str(tmp_path / "nope")], capture_output=True, text=True, check=False)
    assert missing.returncode == 2 and "not a directory" in missing.stderr
