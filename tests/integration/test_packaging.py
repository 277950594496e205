"""An installed (not editable) wheel carries its Cypher files and works."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_installed_wheel_finds_its_queries_and_runs_them(tmp_path: Path) -> None:
    wheel_dir = tmp_path / "wheel"
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "-w", str(wheel_dir), str(ROOT)],
                   check=True, timeout=600)
    [wheel] = wheel_dir.glob("synapse_graph-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    shipped = {Path(n).name for n in names if n.startswith("synapse_graph/cypher/")}
    assert {p.name for p in (ROOT / "cypher").rglob("*.cypher")} <= shipped

    site = tmp_path / "site"
    subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "--quiet", "--target", str(site), str(wheel)],
                   check=True, timeout=600)
    probe = textwrap.dedent(f"""
        import synapse_graph, synapse_graph.catalogue as c
        from synapse_graph import Memory
        assert synapse_graph.__file__.startswith({str(site)!r}), synapse_graph.__file__
        assert str(c.cypher_root()).startswith({str(site)!r}), c.cypher_root()
        with Memory({str(tmp_path / "db" / "m.db")!r}, scope="wheel") as memory:
            memory.upsert(("Dana", "LIVES_IN", "Paris"))
            print([f.object for f in memory.facts("Dana")])
    """)
    run = subprocess.run([sys.executable, "-c", probe], cwd=tmp_path, capture_output=True, text=True, timeout=120,
                         env={"PYTHONPATH": str(site), "PATH": "/usr/bin:/bin"})
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "['Paris']"
