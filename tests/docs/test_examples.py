"""Every code block of the README and of the docs site runs as written, in order, page by page."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest

from synapse_graph import Memory
from tests.docs.pages import PARSED, ROOT, RUN, SHOWN, fences, pages, run_page

pytestmark = pytest.mark.integration
NEO4J_PAGE = "<!-- docs-test: neo4j -->"
"""Marks a page whose blocks use Neo4j: it gets the test server's credentials in its environment, and a scope
of its own (``$SYNAPSE_SCOPE``) that is purged afterwards."""


class Hidden(dict[str, str]):
    """Environment values that a failing test's traceback must not print (the server's password)."""

    def __repr__(self) -> str:
        return f"Hidden({sorted(self)})"


@pytest.mark.parametrize("path", pages(), ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_block_of_the_page_runs_as_written_in_order(path: Path, tmp_path: Path,
                                                          request: pytest.FixtureRequest) -> None:
    languages = fences(path)
    unknown = sorted({language for language in languages if language not in RUN | PARSED | SHOWN})
    assert not unknown, (f"{path.name}: code blocks in {unknown}: give each block a language this test runs "
                         f"({', '.join(sorted(RUN | PARSED))}) or shows ({', '.join(sorted(SHOWN))})")
    extra = Hidden()
    settings = None
    if NEO4J_PAGE in path.read_text(encoding="utf-8"):
        settings = request.getfixturevalue("neo4j_settings")
        user, password = settings["auth"]
        extra.update(SYNAPSE_NEO4J_URL=settings["location"], SYNAPSE_NEO4J_USER=user, SYNAPSE_NEO4J_PASSWORD=password,
                     SYNAPSE_SCOPE=f"docs-{uuid.uuid4().hex[:12]}")
    try:
        page = run_page(path, tmp_path, extra)
    finally:
        if settings is not None:  # the shared server keeps nothing of the page
            with Memory(settings["location"], scope=extra["SYNAPSE_SCOPE"], auth=settings["auth"]) as memory:
                memory.purge(scope=extra["SYNAPSE_SCOPE"])
    runnable = [language for language in languages if language in RUN | PARSED]
    assert sum(page.ran.values()) + len(page.skipped) >= len(runnable) or not runnable, (page.ran, page.skipped)
    if page.skipped:
        print("\n".join(["not run:", *page.skipped]))
