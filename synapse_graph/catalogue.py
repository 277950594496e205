"""The query catalogue: every Cypher statement lives in a named ``.cypher`` file.

``cypher/<name>.cypher`` holds the statement shared by all dialects; a file in
``cypher/<dialect>/`` overrides it for that backend only. Queries take user values
only as parameters. Installed wheels carry the folder as ``synapse_graph/cypher``;
a source checkout reads the top-level ``cypher/`` folder.
"""

from __future__ import annotations

from enum import StrEnum
from functools import cache
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import LiteralString, cast

DIALECTS = ("falkordb", "neo4j")


class Q(StrEnum):
    """Names of the statements the library runs (one file each)."""

    SCHEMA = "schema"
    SCOPE_STATE = "scope_state"
    RESOLVE_KEYS = "resolve_keys"
    CURRENT_RECORDS = "current_records"
    ENTITY_RECORDS = "entity_records"
    APPLY_PLAN = "apply_plan"
    FACTS_BY_SUBJECT = "facts_by_subject"
    FACTS_BY_SLOT = "facts_by_slot"
    FACTS_BY_OBJECT = "facts_by_object"
    FACTS_IN_SCOPE = "facts_in_scope"
    NEIGHBOURHOOD = "neighbourhood"
    NEIGHBOURHOOD_HOP2 = "neighbourhood_hop2"
    ENTITY = "entity"
    STATS = "stats"
    PURGE_ENTITY = "purge_entity"
    PURGE_SCOPE = "purge_scope"
    EXPORT_ENTITIES = "export_entities"
    EXPORT_ALIASES = "export_aliases"
    EXPORT_FACTS = "export_facts"
    EXISTING_IDS = "existing_ids"
    ENTITY_NAMES = "entity_names"
    SEARCH_LEXICAL = "search_lexical"
    SEARCH_VECTOR = "search_vector"
    SET_EMBEDDINGS = "set_embeddings"
    MISSING_EMBEDDINGS = "missing_embeddings"
    VECTOR_INDEX = "vector_index"
    RECALL_EXPAND = "recall_expand"
    RECORD_BY_ID = "record_by_id"
    TOMBSTONES = "tombstones"
    AUDIT_LOG = "audit_log"
    EXPORT_TOMBSTONES = "export_tombstones"
    SLOTLESS_FACTS = "slotless_facts"
    SET_SLOTS = "set_slots"
    MARK_FORMAT = "mark_format"


def cypher_root() -> Traversable:
    """Where the ``.cypher`` files are: inside the package when installed, else the source tree."""
    packaged = resources.files("synapse_graph") / "cypher"
    if packaged.is_dir():
        return packaged
    return cast(Traversable, Path(__file__).resolve().parent.parent / "cypher")


@cache
def query(name: Q | str, dialect: str) -> LiteralString:
    """The statement called ``name`` for ``dialect``; its text never contains user values."""
    if dialect not in DIALECTS:
        raise ValueError(f"unknown dialect {dialect!r}; expected one of {DIALECTS}")
    root = cypher_root()
    for candidate in (root / dialect / f"{name}.cypher", root / f"{name}.cypher"):
        if candidate.is_file():
            return candidate.read_text(encoding="utf-8").strip()
    raise LookupError(f"no query file {name}.cypher for dialect {dialect!r} under {root}")


def statements(name: Q | str, dialect: str) -> list[LiteralString]:
    """A multi-statement file (the schema) split on ``;`` at line ends."""
    text = query(name, dialect)
    return [part.strip() for part in text.split(";\n") if part.strip().rstrip(";")]


def query_files() -> set[tuple[str, str]]:
    """Every (dialect or "", name) pair that has a file, for the catalogue test."""
    root = cypher_root()
    found: set[tuple[str, str]] = set()
    for entry in root.iterdir():
        if entry.is_file() and entry.name.endswith(".cypher"):
            found.add(("", entry.name.removesuffix(".cypher")))
        elif entry.is_dir() and entry.name in DIALECTS:
            found.update(
                (entry.name, f.name.removesuffix(".cypher")) for f in entry.iterdir() if f.name.endswith(".cypher")
            )
    return found
