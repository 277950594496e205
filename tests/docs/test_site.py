"""The documentation site builds in strict mode, lists every page, and the README's links lead somewhere."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tests.ci import require
from tests.docs.pages import DOCS, ROOT

pytestmark = pytest.mark.integration


def nav_pages(node: object) -> list[str]:
    if isinstance(node, str):
        return [node]
    if isinstance(node, list):
        return [page for item in node for page in nav_pages(item)]
    if isinstance(node, dict):
        return [page for value in node.values() for page in nav_pages(value)]
    return []


def test_the_site_builds_in_strict_mode_with_the_api_reference(tmp_path: Path) -> None:
    require("mkdocs")
    require("mkdocstrings_handlers.python")
    site = tmp_path / "site"
    build = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--config-file",
                            str(ROOT / "mkdocs.yml"), "--site-dir", str(site)], cwd=ROOT, capture_output=True,
                           text=True, timeout=300, env={**os.environ, "NO_MKDOCS_2_WARNING": "1"}, check=False)
    assert build.returncode == 0, build.stderr[-4000:]
    api = (site / "api" / "index.html").read_text(encoding="utf-8")
    for anchor in ("synapse_graph.Memory.upsert", "synapse_graph.AsyncMemory.recall", "synapse_graph.tools.call",
                   "synapse_graph.errors.SynapseError"):
        assert f'id="{anchor}"' in api, anchor
    assert "Write one or many" in api  # Memory.upsert's docstring, rendered
    assert (site / "agent-hosts" / "index.html").exists() and (site / "function-calling" / "index.html").exists()


def test_every_page_is_in_the_navigation() -> None:
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    listed = nav_pages(config["nav"])
    pages = sorted(p.relative_to(DOCS).as_posix() for p in DOCS.glob("**/*.md"))
    assert sorted(set(listed)) == pages, "add each docs/*.md page to the nav of mkdocs.yml (and nothing else)"
    assert len(listed) == len(set(listed))


def test_the_readme_links_lead_to_files_of_the_repository_and_stays_short() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    links = re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", readme)
    local = [link for link in links if "://" not in link and not link.startswith("mailto:")]
    assert any(link.startswith("docs/") for link in local)
    missing = [link for link in local if not (ROOT / link).exists()]
    assert missing == []
    assert len(readme.splitlines()) <= 300, "the README is the first screen: move detail into docs/"
