"""The built wheel and sdist are well-formed (``twine check``) and work when installed into a clean virtualenv:
the Cypher files, ``py.typed`` and the licence ship, and the command and the library run from the installation."""

from __future__ import annotations

import subprocess
import sys
import tarfile
import textwrap
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.ci import require

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.integration


@dataclass(frozen=True)
class Dist:
    wheel: Path
    sdist: Path


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Dist]:
    """The sdist, and the wheel built from it, as a release would build them."""
    require("build")
    out = tmp_path_factory.mktemp("dist")
    subprocess.run([sys.executable, "-m", "build", "--sdist", "--wheel", "--outdir", str(out), str(ROOT)],
                   check=True, timeout=900, capture_output=True)
    [wheel] = out.glob("synapse_graph-*.whl")
    [sdist] = out.glob("synapse_graph-*.tar.gz")
    yield Dist(wheel, sdist)


def test_twine_finds_the_distributions_well_formed(dist: Dist) -> None:
    require("twine")
    check = subprocess.run([sys.executable, "-m", "twine", "check", "--strict", str(dist.wheel), str(dist.sdist)],
                           capture_output=True, text=True, timeout=300, check=False)
    assert check.returncode == 0, check.stdout + check.stderr
    assert check.stdout.count("PASSED") == 2, check.stdout


def test_the_distributions_carry_the_queries_the_types_marker_and_the_licence(dist: Dist) -> None:
    names = zipfile.ZipFile(dist.wheel).namelist()
    shipped = {Path(n).name for n in names if n.startswith("synapse_graph/cypher/")}
    assert {p.name for p in (ROOT / "cypher").rglob("*.cypher")} <= shipped
    assert "synapse_graph/py.typed" in names
    assert any(n.endswith(".dist-info/licenses/LICENSE") for n in names)
    metadata = zipfile.ZipFile(dist.wheel).read(next(n for n in names if n.endswith(".dist-info/METADATA")))
    assert b"License-Expression: MIT" in metadata and b"Classifier: Typing :: Typed" in metadata
    assert b"Provides-Extra: tools" in metadata and b"Provides-Extra: docs" in metadata
    inspector = {n.removeprefix("synapse_graph/ui/") for n in names if n.startswith("synapse_graph/ui/")}
    assert {"templates/base.html", "static/app.js", "static/vendor/htmx-2.0.11/LICENSE",
            "static/vendor/cytoscape-3.35.0/LICENSE"} <= inspector and b"Provides-Extra: ui" in metadata
    with tarfile.open(dist.sdist) as sdist:
        members = {Path(m).relative_to(Path(m).parts[0]).as_posix() for m in sdist.getnames() if len(Path(m).parts) > 1}
    assert {"LICENSE", "CHANGELOG.md", "README.md", "mkdocs.yml", "synapse_graph/py.typed"} <= members


def test_installed_into_a_clean_venv_the_command_and_the_library_run(dist: Dist, tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    python, command = venv / "bin" / "python", venv / "bin" / "synapse-graph"
    subprocess.run([str(python), "-m", "pip", "install", "--disable-pip-version-check", "--quiet", str(dist.wheel)],
                   check=True, timeout=900)
    probe = textwrap.dedent(f"""
        import synapse_graph, synapse_graph.catalogue as c
        from synapse_graph import ConfigurationError, Memory
        assert synapse_graph.__file__.startswith({str(venv)!r}), synapse_graph.__file__
        assert str(c.cypher_root()).startswith({str(venv)!r}), c.cypher_root()
        with Memory({str(tmp_path / "db" / "m.db")!r}, scope="wheel") as memory:
            memory.upsert(("Dana", "LIVES_IN", "Paris"))
            print([f.object for f in memory.facts("Dana")])
        try:
            import synapse_graph.tools
        except ConfigurationError as error:   # no extras installed: the error names the one to install
            print(error)
    """)
    run = subprocess.run([str(python), "-c", probe], cwd=tmp_path, capture_output=True, text=True, timeout=120,
                         env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)})
    assert run.returncode == 0, run.stderr
    listed, refused = run.stdout.strip().splitlines()
    assert listed == "['Paris']"
    assert "pip install '.[tools]'" in refused
    cli = subprocess.run([str(command), "facts", "Dana", "--db", str(tmp_path / "db" / "m.db"), "--scope", "wheel",
                          "--json"], capture_output=True, text=True, timeout=120, env={"HOME": str(tmp_path)},
                         check=False)
    assert cli.returncode == 0, cli.stderr
    assert '"object": "Paris"' in cli.stdout
    ui = subprocess.run([str(command), "ui", "--db", str(tmp_path / "db" / "m.db")], capture_output=True, text=True,
                        timeout=120, env={"HOME": str(tmp_path)}, check=False)
    assert ui.returncode == 2 and "needs the 'ui' extra" in ui.stderr, ui.stderr  # no extra: one line

    # the sdist installs too (pip builds it), over the wheel's installation
    subprocess.run([str(python), "-m", "pip", "install", "--disable-pip-version-check", "--quiet", "--no-deps",
                    "--force-reinstall", str(dist.sdist)], check=True, timeout=900)
    again = subprocess.run([str(python), "-c", probe.replace('"wheel"', '"sdist"')], cwd=tmp_path,
                           capture_output=True, text=True, timeout=120, env={"PATH": "/usr/bin:/bin",
                                                                              "HOME": str(tmp_path)})
    assert again.returncode == 0 and again.stdout.splitlines()[0] == "['Paris']", again.stderr
