"""Optional dependencies (the package's extras): a missing one is one error naming the extra to install."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from synapse_graph.errors import MissingExtraError


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
            f"{needed_by} needs the {extra!r} extra (No module named {exc.name!r}); install it from your clone "
            f"of synapse-graph: pip install '.[{extra}]' into this environment, or pipx install --force "
            f"'.[{extra}]' for the command (docs/install.md)"
        ) from exc
