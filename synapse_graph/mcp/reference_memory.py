"""The reference MCP memory server's knowledge graph in synapse-graph's terms (pure: no I/O).

The reference server (``@modelcontextprotocol/server-memory``) keeps entities (a name, an
``entityType``, a list of observations) and relations (``from``, ``to``, a free-text
``relationType``) in a JSON Lines file. Here:

- an entity is an entity, its ``entityType`` the entity's type (set when it is created);
- an observation is an observation (``Memory.observe``): kept with when it was recorded, found
  by recall, counted in the fact quota;
- a relation is a fact valid from when it was created. Our predicates are ``UPPER_SNAKE_CASE``,
  so its predicate is the relation type in that case (``works at`` -> ``WORKS_AT``), and the
  exact text rides along as the fact's source, ``relationType: works at``, from which it is read
  back. Relation types that differ only in case, spacing or punctuation name one predicate, and
  so one relation between two entities.

:func:`read_reference` reads a reference file and :func:`translate` turns what it holds into the
writes the profile's own tools would make (``observe_many``, then ``upsert``), leaving out what the
scope holds now (lossless: every name, type, observation and relation type comes back as it was,
normalised only as the library normalises all text: Unicode NFC, surrounding whitespace trimmed,
runs of spaces in names collapsed).
"""

from __future__ import annotations

import json
from collections.abc import Collection, Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field

from synapse_graph.errors import InvalidImportError, InvalidInputError
from synapse_graph.models import Triple
from synapse_graph.rules.predicates import predicate_of
from synapse_graph.rules.redaction import SecretMode, guard
from synapse_graph.rules.text import clean_text, entity_name, name_key

RELATION_SOURCE = "relationType: "
"""How a relation's exact type is kept in its fact's source."""
MAX_RELATION_TYPE = 512 - len(RELATION_SOURCE)
MAX_ENTITY_TYPE = 64
MAX_OBSERVATION = 10_000


# -- relation types and predicates --------------------------------------------------------------------


def relation_source(relation_type: str) -> str:
    """The source a relation's fact is written with: its exact type, readable back."""
    return RELATION_SOURCE + relation_type


def relation_type_of(predicate: str, source: str | None) -> str:
    """A fact's relation type: the exact text it was created with, else its predicate in lower case."""
    if source is not None and source.startswith(RELATION_SOURCE):
        return source[len(RELATION_SOURCE):]
    return predicate.lower()


def identity(name: str, *, field: str = "name") -> tuple[str, str]:
    """A name as the store keeps it, and its identity key (raises the library's error for a bad name)."""
    display = entity_name(name, "reject", field=field)
    return display, name_key(display)


class OneValue[T]:
    """The one value each entity is given of each single-valued predicate, in one file or one call: a second
    value given with it is refused, since written together one of them would leave no trace."""

    def __init__(self, single_valued: Collection[str]) -> None:
        self._rules = frozenset(single_valued)
        self._given: dict[tuple[str, str], tuple[str, T]] = {}

    def other(self, source_key: str, predicate: str, target_key: str, given: T) -> T | None:
        """What gave the entity another value of ``predicate`` before ``given`` did, if anything (else None)."""
        if predicate not in self._rules:
            return None
        first_key, first = self._given.setdefault((source_key, predicate), (target_key, given))
        return None if first_key == target_key else first


# -- a reference store -------------------------------------------------------------------------------------


@dataclass
class ReferenceEntity:
    name: str
    entity_type: str
    observations: list[str]
    line: int = 0


@dataclass
class ReferenceRelation:
    source: str
    target: str
    relation_type: str
    line: int = 0


@dataclass
class ReferenceGraph:
    entities: list[ReferenceEntity] = field(default_factory=list)
    relations: list[ReferenceRelation] = field(default_factory=list)


def read_reference(lines: Iterable[str]) -> ReferenceGraph:
    """The entities and relations of a reference server's ``memory.jsonl``; raises
    :class:`InvalidImportError` naming the first line that is not one of them."""
    graph = ReferenceGraph()
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            item = json.loads(line)
        except json.JSONDecodeError as exc:
            raise InvalidImportError(f"not JSON ({exc.msg} at column {exc.colno}); a reference memory file holds "
                                     "one JSON object per line", number) from None
        except RecursionError:
            raise InvalidImportError("the line nests JSON too deeply to be a reference memory line", number) from None
        except ValueError:  # an integer of more digits than Python converts (4,300)
            raise InvalidImportError("the line holds a number of more digits than can be read; a reference memory "
                                     "line holds text", number) from None
        if not isinstance(item, dict):
            raise InvalidImportError("a reference memory line is a JSON object", number)
        kind = item.get("type")
        if "kind" in item and kind is None:
            raise InvalidImportError("this is a synapse-graph export, not a reference memory file: import it "
                                     "without --format (or with --format synapse-graph); nothing was written", number)
        if kind == "entity":
            observations = item.get("observations")
            if not isinstance(observations, list) or not all(isinstance(o, str) for o in observations):
                raise InvalidImportError("an entity's observations must be a list of strings", number)
            graph.entities.append(ReferenceEntity(_string(item, "name", number), _string(item, "entityType", number),
                                                  list(observations), number))
        elif kind == "relation":
            graph.relations.append(ReferenceRelation(_string(item, "from", number), _string(item, "to", number),
                                                     _string(item, "relationType", number), number))
        else:
            raise InvalidImportError(f"unknown type {str(kind)[:40]!r}; a reference memory file holds lines of "
                                     "type 'entity' and 'relation'", number)
    if not graph.entities and not graph.relations:
        raise InvalidImportError("the file holds no entity or relation: it is empty; nothing was written")
    return graph


def _string(item: Mapping[str, object], key: str, line: int) -> str:
    value = item.get(key)
    if not isinstance(value, str):
        raise InvalidImportError(f"{key} must be a string", line)
    return value


# -- as synapse-graph writes -----------------------------------------------------------------------------------


@dataclass
class Translation:
    """What a reference file writes (``Memory.observe_many``, then ``Memory.upsert``), and what it holds."""

    entities: list[tuple[str, list[str], str | None]] = field(default_factory=list)
    """Each entity of the file once: its name, the observations to add, its type (given to a new entity)."""
    relations: list[Triple] = field(default_factory=list)
    """The relations to add, as facts valid from the write, each with its relation type's text as its source."""
    implied: list[str] = field(default_factory=list)
    """Names that relations use without an entity line: they become entities without a type."""
    observations: int = 0
    skipped_observations: int = 0
    """Observations the scope holds already (same entity, same text), or repeated in the file."""
    skipped_relations: int = 0
    """Relations the scope holds already as current facts, or repeated in the file."""


def translate(graph: ReferenceGraph, *, secrets: SecretMode, held_observations: Mapping[str, set[str]] | None = None,
              held_facts: set[tuple[str, str, str]] | None = None,
              single_valued: Collection[str] = frozenset()) -> Translation:
    """The graph as synapse-graph writes, checked first (raises :class:`InvalidImportError` naming the line of the
    reference file): names, types and texts must be storable; with ``secrets="reject"`` a secret is refused rather
    than stored redacted; two entities whose names are one in synapse-graph (names are case-insensitive) are
    refused, as are two relation types that would be one relation, and two values of a ``single_valued`` predicate
    of one entity (written together, one would leave no trace). What the scope holds now is left out:
    ``held_observations`` (current texts by entity key) and ``held_facts`` ((subject key, predicate, object key)
    holding now), so loading a file again adds only what is missing (a deleted relation or observation comes back).
    """
    out = Translation()
    names: dict[str, ReferenceEntity] = {}
    entities: dict[str, tuple[str, list[str], str | None]] = {}
    for entity in graph.entities:
        with _at(entity.line):
            display, key = identity(entity.name)
            kind = clean_text(entity.entity_type, field="entityType", max_length=MAX_ENTITY_TYPE)
            texts = [_text(text, secrets) for text in entity.observations]
        first = names.get(key)
        if first is not None and (first.name != entity.name or first.entity_type != entity.entity_type):
            raise InvalidImportError(
                f"entity {entity.name[:70]!r} ({entity.entity_type!r}) and entity {first.name[:70]!r} of line "
                f"{first.line} ({first.entity_type!r}) would be one entity in synapse-graph, where names are "
                "case-insensitive; rename one of them in the file, then import again. Nothing was written",
                entity.line)
        names.setdefault(key, entity)
        _, adding, _ = entities.setdefault(key, (display, [], kind))
        held = set((held_observations or {}).get(key, set())) | set(adding)
        for checked in texts:
            if checked in held:
                out.skipped_observations += 1
                continue
            held.add(checked)
            adding.append(checked)
    out.entities = list(entities.values())
    out.observations = sum(len(texts) for _, texts, _ in out.entities)
    slots: dict[tuple[str, str, str], tuple[str, ReferenceRelation]] = {}
    implied: set[str] = set()
    values = OneValue[ReferenceRelation](single_valued)
    for relation in graph.relations:
        with _at(relation.line):
            (source, source_key), (target, target_key) = (identity(relation.source, field="from"),
                                                          identity(relation.target, field="to"))
            label = _relation_type(relation.relation_type, secrets)
        for display, key in ((source, source_key), (target, target_key)):
            if key not in entities and key not in implied:
                implied.add(key)
                out.implied.append(display)
        predicate = predicate_of(label)
        slot = (source_key, predicate, target_key)
        seen = slots.get(slot)
        if seen is not None:
            if seen[0] != label:
                raise InvalidImportError(
                    f"relation types {label[:70]!r} and {seen[0][:70]!r} (line {seen[1].line}) between the same "
                    f"entities are one relation in synapse-graph (predicate {predicate}); keep one of them in the "
                    "file, then import again. Nothing was written", relation.line)
            out.skipped_relations += 1
            continue
        slots[slot] = (label, relation)
        other = values.other(source_key, predicate, target_key, relation)
        if other is not None:
            raise InvalidImportError(
                f"relations {label[:70]!r} from {source[:70]!r} to {target[:70]!r} and to {other.target[:70]!r} (line "
                f"{other.line}): {predicate} holds one value at a time in this scope (its single-valued rules), so "
                "one of them would be lost; keep one in the file, or take the predicate out of the scope's "
                "single-valued rules, then import again. Nothing was written", relation.line)
        if held_facts is not None and slot in held_facts:
            out.skipped_relations += 1
            continue
        out.relations.append(Triple(subject=source, predicate=predicate, object=target,
                                    source=relation_source(label)))
    return out


@contextmanager
def _at(line: int) -> Iterator[None]:
    """The library's refusal of a value, as the refusal of the reference file's line that holds it."""
    try:
        yield
    except InvalidImportError:
        raise
    except InvalidInputError as exc:
        raise InvalidImportError(f"{exc}; nothing was written", line) from None


def _text(text: str, secrets: SecretMode) -> str:
    checked = clean_text(text, field="observation", max_length=MAX_OBSERVATION)
    if checked is None:
        raise InvalidInputError("an observation is empty")
    guard(checked, secrets, field="observation")  # refused here under "reject"; the write redacts otherwise
    return checked


def _relation_type(text: str, secrets: SecretMode) -> str:
    checked = clean_text(text, field="relationType", max_length=MAX_RELATION_TYPE)
    if checked is None:
        raise InvalidInputError("a relation's relationType is empty")
    guard(checked, secrets, field="relationType")
    return checked
