"""Optional dependencies (the package's extras): a missing one is one error naming the extra to install."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from synapse_graph.errors import MissingExtraError


def install_hint(extra: str) -> str:
    """How to install an extra. The name ``synapse-graph`` on PyPI belongs to an unrelated project, so the hint
    installs from a clone of this repository, never ``pip install synapse-graph[...]``."""
    return (f"install it from your clone of synapse-graph: pip install '.[{extra}]' into this environment, "
            f"or pipx install --force '.[{extra}]' for the command (docs/install.md)")


@contextmanager
def needs_extra(extra: str, needed_by: str) -> Iterator[None]:
    """Turn a missing third-party module imported inside the block into :class:`MissingExtraError`.

    >>> with needs_extra("neo4j", "a Neo4j database"):
    ...     import neo4j  # doctest: +SKIP
    """
    try:
        yield
    except ModuleNotFoundError as exc:
        if (exc.name or "").partition(".")[0] in ("", "synapse_graph"):
            raise  # our own module missing is a broken installation, not an extra
        raise MissingExtraError(
            f"{needed_by} needs the {extra!r} extra (No module named {exc.name!r}); {install_hint(extra)}"
        ) from exc
