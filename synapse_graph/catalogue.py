"""The query catalogue: every Cypher statement lives in a named ``.cypher`` file.

``cypher/<folder>/<name>.cypher`` holds the statement, written once for all dialects, the folder
saying what it serves (``facts``, ``entities``, ``writes``, ``recall``, ``digest``, ``trust``,
``transfer``, ``erasure``, ``migrations``, ``scope``, ``schema``, ``duplicates``). Where the dialects say a
thing
differently the statement names a *phrase*, ``{{name(arguments)}}``, which ``cypher/<dialect>/phrases.cypher``
defines once per dialect (``instant(x.at)`` is ``datetime(x.at)`` on Neo4j, ``x.at`` on FalkorDB).
A file at the same path under ``cypher/<dialect>/`` holds a statement only one backend runs, or one
that differs beyond phrases (its first comment says why). ``{{name}}`` stands for a fragment: a file
``cypher/fragments/<name>.cypher`` (the one projection of an audit entry, the scope's state), or one
:mod:`synapse_graph.shapes` renders from its table of a record's fields (a fact's, an observation's, an
entity's), or ``cypher/<dialect>/fragments/<name>.cypher``, lines a dialect's statements share (recall's search
of names); a name has one of these sources; a fragment may include others and phrases.
Queries take user values only as parameters: phrase arguments and fragments are catalogue text.
Installed wheels carry the folder as ``synapse_graph/cypher``; a source checkout reads the top-level
``cypher/`` folder.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from enum import StrEnum
from functools import cache
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Any, LiteralString, cast

from synapse_graph import shapes

DIALECTS = ("falkordb", "neo4j")
FRAGMENTS = "fragments"
PHRASES = "phrases"
_FRAGMENT = re.compile(r"\{\{([a-z_]+)(?:\((.*?)\))?\}\}")
"""``{{name}}``, a fragment, or ``{{name(arguments)}}``, a phrase (arguments may hold brackets, not ``)}}``)."""
_PHRASE = re.compile(r"([a-z_]+)\(([a-z_, ]*(?:\.\.\.)?)\) =(?: (.*))?")
_EACH = "..."
"""After a phrase's last parameter (``present(node, property...)``): the phrase is said once for each of the
arguments that parameter takes (``{{present(t, subject, object)}}``), joined by a space."""


class Q(StrEnum):
    """Names of the statements the library runs (one file each)."""

    # scope: the version, counters and rules of a scope; Neo4j's lock on it
    SCOPE_STATE = "scope/scope_state"
    LOCK_SCOPE = "scope/lock_scope"
    CREATE_SCOPE = "scope/create_scope"
    # writes: what a write plan reads, and the one statement that applies it
    RESOLVE_KEYS = "writes/resolve_keys"
    CURRENT_RECORDS = "writes/current_records"
    ENTITY_RECORDS = "writes/entity_records"
    APPLY_PLAN = "writes/apply_plan"
    APPLY_FACTS = "writes/apply_facts"
    APPLY_ADDITIONS = "writes/apply_additions"
    PLAN_INPUT = "writes/plan_input"
    # facts: reads of fact records
    FACTS_BY_SLOT = "facts/facts_by_slot"
    FACTS_BY_SUBJECT = "facts/facts_by_subject"
    FACTS_BY_OBJECT = "facts/facts_by_object"
    FACTS_BY_OBJECT_SLOT = "facts/facts_by_object_slot"
    FACTS_BY_PREDICATE = "facts/facts_by_predicate"
    FACTS_IN_SCOPE = "facts/facts_in_scope"
    FACTS_IN_STATES = "facts/facts_in_states"
    RECORD_BY_ID = "facts/record_by_id"
    LINKS_OF = "facts/links_of"
    NEIGHBOURHOOD = "facts/neighbourhood"
    NEIGHBOURHOOD_HOP2 = "facts/neighbourhood_hop2"
    # entities
    ENTITY = "entities/entity"
    ENTITY_NAMES = "entities/entity_names"
    STATS = "entities/stats"
    STATS_MEASURED = "entities/stats_measured"
    GROWTH_BOUNDS = "entities/growth_bounds"
    GROWTH = "entities/growth"
    GROWTH_SLICES = "entities/growth_slices"
    ENTITIES_PAGE = "entities/entities_page"
    MATCHING_ENTITIES = "entities/matching_entities"
    MATCHING_ENTITIES_BY_GRAMS = "entities/matching_entities_by_grams"
    ENTITY_PAGE_FACTS = "entities/entity_page_facts"
    # digest: what an agent should know at the start of a session
    PINNED_FACTS = "digest/pinned_facts"
    FACTS_AROUND = "digest/facts_around"
    MOST_CONNECTED = "digest/most_connected"
    MOST_RECORDS = "digest/most_records"
    CONNECTIONS_OF = "digest/connections_of"
    # observations: free text about an entity, kept with when it was recorded
    OBSERVATIONS_OF = "observations/observations_of"
    OBSERVATIONS_OF_ENTITIES = "observations/observations_of_entities"
    EXPORT_OBSERVATIONS = "observations/export_observations"
    # sessions: private scopes of one agent session, registered by a durable scope
    SESSIONS = "sessions/sessions"
    # recall
    SEARCH_LEXICAL = "recall/search_lexical"
    SEARCH_VECTOR = "recall/search_vector"
    RECALL_EXPAND = "recall/recall_expand"
    SET_EMBEDDINGS = "recall/set_embeddings"
    MISSING_EMBEDDINGS = "recall/missing_embeddings"
    VECTOR_INDEX = "recall/vector_index"
    VECTOR_INDEX_DIMENSIONS = "recall/vector_index_dimensions"
    # duplicates: what proposals of duplicate entities read, and an unmerge's own apply
    SCOPE_ENTITIES = "duplicates/scope_entities"
    ENTITIES_BY_KEY = "duplicates/entities_by_key"
    ENTITY_LINKS = "duplicates/entity_links"
    CANDIDATE_LINKS = "duplicates/candidate_links"
    ENTITY_DEGREES = "duplicates/entity_degrees"
    DISTINCT_PAIRS = "duplicates/distinct_pairs"
    ALIAS_KEYS = "duplicates/alias_keys"
    ENTITY_TOMBSTONES = "duplicates/entity_tombstones"
    APPLY_UNMERGE = "writes/apply_unmerge"
    # changes: what the memory learned and unlearned, read from the audit log and the records' own times
    CHANGE_ENTRIES = "changes/change_entries"
    CHANGED_RECORDS = "changes/changed_records"
    RECORDS_BY_ID = "changes/records_by_id"
    CHANGED_OBSERVATIONS = "changes/changed_observations"
    NAMES_OF_KEYS = "changes/names_of_keys"
    FACTS_CHANGED_AROUND = "changes/facts_changed_around"
    FACTS_CHANGED_IN_SCOPE = "changes/facts_changed_in_scope"
    MEMORY_LEXICAL = "recall/memory_lexical"
    MEMORY_LEXICAL_SCANNED = "recall/memory_lexical_scanned"
    MEMORY_LEXICAL_EACH = "recall/memory_lexical_each"
    MEMORY_LEXICAL_ALONE = "recall/memory_lexical_alone"
    MEMORY_LEXICAL_FEW = "recall/memory_lexical_few"
    MEMORY_VECTOR_SCAN = "recall/memory_vector_scan"
    MEMORY_EMBEDDINGS = "recall/memory_embeddings"
    STATE_AND_TERM_HITS = "recall/state_and_term_hits"
    STATE_AND_TERM_HITS_FEW = "recall/state_and_term_hits_few"
    # trust: rejections and the audit log
    TOMBSTONES = "trust/tombstones"
    AUDIT_LOG = "trust/audit_log"
    # transfer: export and import
    EXPORT_ENTITIES = "transfer/export_entities"
    EXPORT_ALIASES = "transfer/export_aliases"
    EXPORT_FACTS = "transfer/export_facts"
    EXPORT_TOMBSTONES = "transfer/export_tombstones"
    EXISTING_IDS = "transfer/existing_ids"
    EXISTING_OBSERVATIONS = "transfer/existing_observations"
    AUDIT_IDS = "transfer/audit_ids"
    # erasure
    ENTRIES_NAMING = "erasure/entries_naming"
    PURGE_ENTITY = "erasure/purge_entity"
    PURGE_SCOPE = "erasure/purge_scope"
    # migrations between store formats
    SLOTLESS_FACTS = "migrations/slotless_facts"
    SET_SLOTS = "migrations/set_slots"
    FACTS_WITHOUT_SIDE_SLOTS = "migrations/facts_without_side_slots"
    SET_SIDE_SLOTS = "migrations/set_side_slots"
    RECOUNT_SCOPE = "migrations/recount_scope"
    SET_AHEAD = "migrations/set_ahead"
    SET_RECORD_COUNTS = "migrations/set_record_counts"
    MOVE_RECORD_COUNTS = "migrations/move_record_counts"
    SET_RECORD_KEYS = "migrations/set_record_keys"
    DROP_GROWTH = "migrations/drop_growth"
    COUNT_GROWTH = "migrations/count_growth"
    GROWTH_INSTANTS = "migrations/growth_instants"
    SET_SCOPE_TOKENS = "migrations/set_scope_tokens"
    SET_HISTORY_TOKENS = "migrations/set_history_tokens"
    SET_MEMORY_TOKENS = "migrations/set_memory_tokens"
    UNSTEMMED_OBSERVATIONS = "migrations/unstemmed_observations"
    SET_OBSERVATION_SEARCH_TEXTS = "migrations/set_observation_search_texts"
    UNSTEMMED_FACTS = "migrations/unstemmed_facts"
    SET_FACT_SEARCH_TEXTS = "migrations/set_fact_search_texts"
    GRAMLESS_ENTITIES = "migrations/gramless_entities"
    GRAMLESS_ALIASES = "migrations/gramless_aliases"
    GRAMLESS_OBSERVATIONS = "migrations/gramless_observations"
    SET_ENTITY_GRAMS = "migrations/set_entity_grams"
    SET_ALIAS_GRAMS = "migrations/set_alias_grams"
    SET_OBSERVATION_GRAMS = "migrations/set_observation_grams"
    # schema (one idempotent multi-statement file per dialect)
    SCHEMA = "schema/schema"


DIALECT_ONLY: dict[Q, str] = {Q.LOCK_SCOPE: "neo4j", Q.CREATE_SCOPE: "neo4j"}
"""Statements only one backend runs (FalkorDB locks a scope with a command of its own, not a statement)."""


def cypher_root() -> Traversable:
    """Where the ``.cypher`` files are: inside the package when installed, else the source tree."""
    packaged = resources.files("synapse_graph") / "cypher"
    if packaged.is_dir():
        return packaged
    return cast(Traversable, Path(__file__).resolve().parent.parent / "cypher")


def _find(root: Traversable, path: str, dialect: str) -> Traversable | None:
    for candidate in (root.joinpath(dialect, path), root.joinpath(path)):
        if candidate.is_file():
            return candidate
    return None


def _read(path: str, dialect: str, suffix: str = ".cypher") -> str:
    if dialect not in DIALECTS:
        raise ValueError(f"unknown dialect {dialect!r}; expected one of {DIALECTS}")
    root = cypher_root()
    found = _find(root, path + suffix, dialect)
    if found is None:
        raise LookupError(f"no query file {path}{suffix} for dialect {dialect!r} under {root}")
    return found.read_text(encoding="utf-8")


def _without_comments(text: str) -> str:
    return "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("//")).strip()


@cache
def query(name: Q | str, dialect: str) -> LiteralString:
    """The statement called ``name`` for ``dialect``, fragments and phrases expanded; it never contains user
    values. A phrase that says nothing in a dialect leaves no empty line."""
    text = _expand(_read(str(name), dialect).strip(), dialect)
    return "\n".join(line for line in text.split("\n") if line.strip())


def fragment(name: str, dialect: str) -> LiteralString:
    """The fragment ``{{name}}`` as ``dialect`` says it, fragments and phrases in it expanded."""
    return _expand(_fragment(name, dialect), dialect)


def _expand(text: str, dialect: str) -> str:
    def expand(match: re.Match[str]) -> str:  # a fragment or a phrase may include others
        name, arguments = match.group(1), match.group(2)
        found = _fragment(name, dialect) if arguments is None else _phrase(name, arguments, dialect)
        return _FRAGMENT.sub(expand, found)

    return _FRAGMENT.sub(expand, text)


def _fragment(name: str, dialect: str) -> str:
    """A fragment is the dialects' shared (rendered from a table, or a file of ``cypher/fragments/``) or their own
    (a file of ``cypher/<dialect>/fragments/`` in each dialect that says it): one name, one of these sources."""
    if dialect not in DIALECTS:
        raise ValueError(f"unknown dialect {dialect!r}; expected one of {DIALECTS}")
    root, file = cypher_root(), f"{name}.cypher"
    shared = [source for source, found in (("shapes.FRAGMENTS", name in shapes.FRAGMENTS),
                                           (f"{FRAGMENTS}/{file}", root.joinpath(FRAGMENTS, file).is_file())) if found]
    own = [f"{d}/{FRAGMENTS}/{file}" for d in DIALECTS if root.joinpath(d, FRAGMENTS, file).is_file()]
    if len(shared) + bool(own) > 1:
        raise ValueError(f"fragment {name!r} is defined twice: {', '.join(shared + own)}")
    if name in shapes.FRAGMENTS:
        return shapes.FRAGMENTS[name]
    return _without_comments(_read(f"{FRAGMENTS}/{name}", dialect))


@cache
def phrases(dialect: str) -> dict[tuple[str, int], tuple[tuple[str, ...], str]]:
    """A dialect's phrases, ``(name, number of parameters) -> (parameters, text)``, from its ``phrases.cypher``:
    one ``name(parameters) = text`` a line (a phrase may be defined without parameters and with; the last
    parameter may be marked :data:`_EACH`)."""
    found: dict[tuple[str, int], tuple[tuple[str, ...], str]] = {}
    for number, line in enumerate(_read(PHRASES, dialect).splitlines(), start=1):
        if not line.strip() or line.lstrip().startswith("//"):
            continue
        match = _PHRASE.fullmatch(line.rstrip())
        if match is None:
            raise ValueError(f"{dialect}/{PHRASES}.cypher line {number} is not `name(parameters) = text`: {line!r}")
        parameters = tuple(p.strip() for p in match.group(2).split(",") if p.strip())
        key = (match.group(1), len(parameters))
        if key in found or (parameters and any(n == key[0] and k for n, k in found)):
            raise ValueError(f"{dialect}/{PHRASES}.cypher line {number} defines phrase {key[0]!r} again")
        found[key] = parameters, match.group(3) or ""
    return found


def _phrase(name: str, arguments: str, dialect: str) -> str:
    defined = phrases(dialect)
    given = arguments.strip()
    arity = 0 if not given else next((n for p, n in defined if p == name and n), -1)
    if (name, arity) not in defined:
        raise LookupError(f"no phrase {name}({arguments}) for dialect {dialect!r} in {dialect}/{PHRASES}.cypher")
    parameters, text = defined[name, arity]
    values = [value.strip() for value in given.split(",", arity - 1)] if arity else []
    if len(values) != arity:
        raise LookupError(f"phrase {name} takes {arity} arguments ({', '.join(parameters)}), given {arguments!r}")
    if not parameters:
        return text
    if parameters[-1].endswith(_EACH):  # said once for each argument the last parameter takes
        *fixed, each = values
        names = (*parameters[:-1], parameters[-1].removesuffix(_EACH))
        return " ".join(_put(names, (*fixed, value.strip()), text) for value in each.split(","))
    return _put(parameters, values, text)


def _put(parameters: tuple[str, ...], values: Sequence[str], text: str) -> str:
    """The phrase's text with the arguments in for its parameters: whole words, after a dot too (``node.property``),
    never a ``$parameter``."""
    by_name = dict(zip(parameters, values, strict=True))
    pattern = r"(?<![\w$])(" + "|".join(parameters) + r")(?!\w)"
    return re.sub(pattern, lambda m: by_name[m.group(1)], text)


def statements(name: Q | str, dialect: str) -> list[LiteralString]:
    """A multi-statement file (the schema) split on ``;`` at line ends."""
    text = query(name, dialect)
    parts = [_without_comments(part) for part in text.split(";\n")]
    return [part.rstrip(";").strip() for part in parts if part.rstrip(";").strip()]


@cache
def data(name: str, dialect: str) -> Any:
    """A JSON data file beside the statements (FalkorDB's unique constraints, which it creates by command)."""
    return json.loads(_read(name, dialect, suffix=".json"))


def query_files() -> set[tuple[str, str]]:
    """Every (dialect or "", name) pair that has a statement file, fragments and Browser queries aside."""
    root = cypher_root()
    found: set[tuple[str, str]] = set()

    def walk(folder: Traversable, dialect: str, prefix: str) -> None:
        for entry in folder.iterdir():
            if entry.is_dir():
                if prefix == "" and entry.name in DIALECTS and dialect == "":
                    walk(entry, entry.name, "")
                elif entry.name not in (FRAGMENTS, "browser"):
                    walk(entry, dialect, f"{prefix}{entry.name}/")
            elif entry.name.endswith(".cypher") and prefix:
                found.add((dialect, prefix + entry.name.removesuffix(".cypher")))

    walk(root, "", "")
    return found


def fragment_names() -> set[str]:
    """Every fragment a statement can include, in any dialect: the files and those rendered from tables."""
    root = cypher_root()
    names: set[str] = set(shapes.FRAGMENTS)
    for folder in (root.joinpath(FRAGMENTS), *(root.joinpath(d, FRAGMENTS) for d in DIALECTS)):
        if folder.is_dir():
            names.update(e.name.removesuffix(".cypher") for e in folder.iterdir() if e.name.endswith(".cypher"))
    return names
