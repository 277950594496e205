"""Checking an export without a store: what ``synapse-graph import`` does before it opens (or creates) one."""

from __future__ import annotations

import os
from collections.abc import Iterable

from synapse_graph.backends.base import DEFAULT_LOCK_TIMEOUT_S
from synapse_graph.engine.import_lines import read_lines
from synapse_graph.engine.settings import check_settings
from synapse_graph.engine.transfer import CheckedExport, lines_of


def check_export(source: Iterable[str] | str | os.PathLike[str], *, scope: str = "default",
                 secrets: str = "redact") -> CheckedExport:
    """Check every line of an export (a path or an iterable of JSON lines) as :meth:`Memory.import_` does
    before it writes, with no store: raises :class:`~synapse_graph.InvalidImportError` naming the first line
    that could make the store lie, else returns what the export holds (an :class:`ExportSummary`). ``scope``
    and ``secrets`` are those of the memory it is for: given to that memory's ``import_``, the result is imported
    without reading the file again. What the lines refer to in the scope (an alias of an entity it holds) is
    checked by the import itself."""
    ctx = check_settings(scope=scope, secrets=secrets, client="synapse-graph", embedder=None,
                         lock_timeout=DEFAULT_LOCK_TIMEOUT_S)
    return CheckedExport.of(ctx, read_lines(ctx, lines_of(source)))
