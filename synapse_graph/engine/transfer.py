"""Export and import: a scope as JSON Lines, and the restore path that accepts exactly that.

An export is a header, the scope's rules, entities, aliases, every fact record (history and
earlier beliefs included), observations, the session registry, rejections and the audit log. An
import checks every line before anything is written (:mod:`~synapse_graph.engine.import_lines`),
then checks what the lines refer to against the scope, and refuses, with an
:class:`~synapse_graph.errors.InvalidImportError` naming the line, whatever could make the store
lie: an alias that points nowhere, a fact about an entity neither the file nor the scope holds.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from pydantic import PrivateAttr

from synapse_graph.backends.base import Row
from synapse_graph.catalogue import Q
from synapse_graph.engine import projections, rows
from synapse_graph.engine.context import Context
from synapse_graph.engine.import_lines import EXPORT_FORMAT, ImportFile, listed_aliases, read_lines
from synapse_graph.engine.io import Op, Read, read, read_each, read_rows
from synapse_graph.engine.reads import lookup
from synapse_graph.engine.scope import ScopeState
from synapse_graph.engine.trust import AuditQuery
from synapse_graph.engine.view import View
from synapse_graph.engine.writes import Mutation
from synapse_graph.errors import ConcurrencyConflictError, InvalidImportError
from synapse_graph.instants import Instant, to_iso
from synapse_graph.models import ExportSummary
from synapse_graph.render import plural
from synapse_graph.rules.numbers import count
from synapse_graph.rules.timeline import Plan, Provenance, Record
from synapse_graph.shapes import FACT, OBSERVATION, exported, projected
from synapse_graph.shapes import read as field_value

# -- export ------------------------------------------------------------------------------------------


EXPORT_PAGE = 10_000
AUDIT_READ_ONLY = {"entity_count", "fact_count", "brief"}
"""What a read of an audit entry adds (its lists' counts): an export line carries the lists, as before."""
"""Rows an export reads per statement: its client holds one page (rows and lines) at a time, whatever the
scope's size (benchmarks/README.md, "Streamed export")."""


def export(ctx: Context) -> Iterator[Op[list[str]]]:
    """The scope as JSON Lines, an operation per page: each returns the lines of the rows it read.

    The first reads the scope's version; every later page is read in the same round trip as the version
    (after the page), and a version that moved raises ConcurrencyConflictError: versions only grow, so
    the lines an export gives all describe the one state it began in, however many pages it takes.
    Drive the operations in order (each page begins after the last row of the one before).
    """
    scope = {"scope": ctx.scope}
    first = {**scope, **_first()}
    begun: list[int] = []
    yield _head(ctx, begun)
    yield from _pages(ctx, begun, Read(Q.EXPORT_ENTITIES, {**scope, "after": None, "limit": EXPORT_PAGE}),
                      lambda row: {"after": row["entity"]["key"]},
                      lambda row: {"kind": "entity", **rows.entity(row["entity"]).model_dump(mode="json")})
    yield _page(ctx, begun, Read(Q.EXPORT_ALIASES, scope), lambda row: {"kind": "alias", **row})
    yield from _pages(ctx, begun, Read(Q.EXPORT_FACTS, first), lambda row: _next(row["fact"]),
                      lambda row: {"kind": "fact", **fact_line(rows.record(row["fact"]))})
    yield from _pages(ctx, begun, Read(Q.EXPORT_OBSERVATIONS, first),
                      lambda row: _next(row["observation"]),
                      lambda row: {"kind": "observation", **observation_line(row["observation"])})
    yield _page(ctx, begun, Read(Q.SESSIONS, {**scope, "ids": None}), _session_line)
    yield _page(ctx, begun, Read(Q.EXPORT_TOMBSTONES, scope),
                lambda row: {"kind": "rejection", **row, "rejected_at": to_iso(row["rejected_at"])})
    yield from _pages(ctx, begun, Read(Q.AUDIT_LOG, AuditQuery(limit=EXPORT_PAGE).params(ctx.scope)),
                      lambda row: {"after_at": Instant(row["entry"]["at"]), "after_id": row["entry"]["id"]},
                      lambda row: {"kind": "audit",
                                   **rows.audit(row["entry"]).model_dump(mode="json", exclude=AUDIT_READ_ONLY)})


def _first() -> dict[str, Any]:
    """The parameters of a time-ordered export read's first page."""
    return {"after_at": None, "after_id": None, "limit": EXPORT_PAGE}


def _next(row: Mapping[str, Any]) -> dict[str, Any]:
    """The cursor after a time-ordered row (a record or an observation): its (recorded_at, id)."""
    return {"after_at": Instant(row["recorded_at"]), "after_id": row["id"]}


def _every(first: Read, cursor: Callable[[Row], Mapping[str, Any]]) -> Op[list[Row]]:
    """Every row of a keyset-paged read, page after page."""
    found: list[Row] = []
    read = first
    while True:
        got = yield from read_rows(read)
        found += got
        if len(got) < read.params["limit"]:
            return found
        read = Read(read.name, {**read.params, **cursor(got[-1])})


def _head(ctx: Context, begun: list[int]) -> Op[list[str]]:
    """The header and the scope's rules; notes the version the export reads."""
    [state] = yield from read(Q.SCOPE_STATE, {"scope": ctx.scope})
    begun.append(state["state"]["version"])
    stored = rows.stored_rules(state["state"])
    lines = [_json({"kind": "header", "format": EXPORT_FORMAT, "scope": ctx.scope})]
    if stored is not None:
        lines.append(_json({"kind": "rules", **rows.rules_params(stored)}))
    return lines


def _pages(ctx: Context, begun: list[int], first: Read, cursor: Callable[[Row], Mapping[str, Any]],
           line: Callable[[Row], Mapping[str, Any]]) -> Iterator[Op[list[str]]]:
    """The pages of a keyset-paged read (``$limit`` rows each), each after the cursor of the one before."""
    read = first
    while True:
        last: list[Row] = []
        yield _page(ctx, begun, read, line, last)
        if len(last) < read.params["limit"]:
            return
        read = Read(read.name, {**read.params, **cursor(last[-1])})


def _page(ctx: Context, begun: list[int], read: Read, line: Callable[[Row], Mapping[str, Any]],
          found: list[Row] | None = None) -> Op[list[str]]:
    """The lines of one read, checked to be of the version the export began with; ``found`` gets its rows."""
    got, [state] = yield from read_each(read, Read(Q.SCOPE_STATE, {"scope": ctx.scope}))
    version = state["state"]["version"]
    if version != begun[0]:
        raise ConcurrencyConflictError(
            f"scope {ctx.scope!r} was written while it was exported (version {begun[0]}, now {version}): the "
            "lines given so far are of the earlier state; export again (or when the writers are done)")
    if found is not None:
        found.extend(got)
    return [_json(line(row)) for row in got]


def _session_line(row: Row) -> dict[str, Any]:
    session = row["session"]
    return {"kind": "session", "id": session["id"],
            **{k: None if session[k] is None else to_iso(session[k]) for k in ("registered_at", "expires_at",
                                                                              "revoked_at")}}


def fact_line(record: Record) -> dict[str, Any]:
    """A record as an export line (entities by key, instants in ISO-8601 with microseconds)."""
    values = rows.record_values(record)
    return {f.name: exported(f, values[f.name]) for f in FACT}


def observation_line(row: Mapping[str, Any]) -> dict[str, Any]:
    """An observation row as an export line (its entity by key, instants in ISO-8601 with microseconds)."""
    return {f.name: exported(f, field_value(f, row[projected(f)])) for f in OBSERVATION}


def _json(value: Mapping[str, Any]) -> str:
    return json.dumps(value, ensure_ascii=False)


# -- import: writing -------------------------------------------------------------------------------------


def import_names(ctx: Context, state: ScopeState, file: ImportFile, view: View) -> Op[Mutation]:
    """The import's first write: rules (into a scope without any), entities, aliases, observations,
    sessions, rejections and audit entries, each but those the scope holds already (so importing again
    completes or repeats an import). Checks that every alias, record and rejection refers to entities the
    file or the scope holds, before anything is written."""
    file_keys = set(file.entities)
    referenced = {k for _, r in file.records for k in (r.subject, r.object)}
    referenced |= {o["entity"] for _, o in file.observations}
    referenced |= {t[end] for _, t in file.tombstones for end in ("subject", "object")}
    listed = list(listed_aliases(file))
    asked = referenced | {a["target"] for _, a in file.aliases} | {a["key"] for _, a in file.aliases} | file_keys
    known = yield from lookup(ctx, asked | {alias_key for *_, alias_key in listed})
    in_scope_entities = {k for k, target in known.items() if k == target}
    for number, alias in file.aliases:
        if alias["target"] not in file_keys and alias["target"] not in in_scope_entities:
            raise InvalidImportError(f"alias {alias['key'][:70]!r} points to entity {alias['target'][:70]!r}, "
                                     "which neither the file nor the scope holds; nothing was written", number)
        if alias["key"] in file_keys or alias["key"] in in_scope_entities:
            raise InvalidImportError(f"alias {alias['key'][:70]!r} is also an entity; a name resolves one way "
                                     "only; nothing was written", number)
        if known.get(alias["key"], alias["target"]) != alias["target"]:
            raise InvalidImportError(f"alias {alias['key'][:70]!r} already names {known[alias['key']][:70]!r} in "
                                     "this scope; nothing was written", number)
    aliases_in_file = {a["key"] for _, a in file.aliases}
    alias_lines = {a["key"]: (number, a["target"]) for number, a in file.aliases}
    for number, key, alias_name, alias_key in listed:
        line, target = alias_lines.get(alias_key, (None, known.get(alias_key)))
        if alias_key != key and target != key:
            why = ("no alias line gives that name to it" if target is None else
                   f"which the alias of line {line} gives to {target[:70]!r}" if line is not None else
                   f"which already names {target[:70]!r} in this scope")
            raise InvalidImportError(f"entity {key[:70]!r} lists alias {alias_name[:70]!r}, {why}: a name resolves one "
                                     "way only; nothing was written", number)
    for number, observation in file.observations:
        if observation["entity"] not in file_keys and observation["entity"] not in known \
                and observation["entity"] not in aliases_in_file:
            raise InvalidImportError(f"observation {observation['id']} is about entity "
                                     f"{observation['entity'][:70]!r}, which neither the file nor the scope holds; "
                                     "add its entity line. Nothing was written", number)
    for number, record in file.records:
        for end in (record.subject, record.object):
            if end not in file_keys and end not in known and end not in aliases_in_file:
                raise InvalidImportError(f"fact {record.id} refers to entity {end[:70]!r}, which neither the file "
                                         "nor the scope holds; add its entity line. Nothing was written", number)
    for number, tombstone in file.tombstones:
        for end in (tombstone["subject"], tombstone["object"]):
            if end not in file_keys and end not in in_scope_entities:
                # A rejection is kept under the entity's own key (merges move it): any other key never matches.
                raise InvalidImportError(f"the rejection refers to entity {end[:70]!r}, which neither the file nor "
                                         "the scope holds; nothing was written", number)
    view.entities.created.update({k: e for k, e in file.entities.items() if k not in known})
    view.entities.aliases += [a for _, a in file.aliases if known.get(a["key"]) != a["target"]]
    targets = {**{a["key"]: a["target"] for _, a in file.aliases}, **known}
    present = {row["id"] for row in (yield from read(Q.EXISTING_OBSERVATIONS, {
        "scope": ctx.scope, "ids": [o["id"] for _, o in file.observations]}))} if file.observations else set()
    observe = [{**o, "entity": targets.get(o["entity"], o["entity"])} for _, o in file.observations
               if o["id"] not in present]
    # Sessions the scope registered already keep their registration: the scope's own registry decides.
    registered = {row["session"]["id"] for row in (yield from read(Q.SESSIONS, {
        "scope": ctx.scope, "ids": [s["id"] for _, s in file.sessions]}))} if file.sessions else set()
    # Rejections and audit entries the scope holds already (an import before, or this one interrupted) are
    # skipped; the others come along whatever else the scope holds (its own rules, say).
    rejected = [_rejection_identity(row) for row in (yield from read(Q.EXPORT_TOMBSTONES, {"scope": ctx.scope}))]
    logged = ({row["id"] for row in (yield from read(projections.AUDIT_IDS, {"scope": ctx.scope}))} if file.audit
              else set())
    mutation = Mutation.of(view, "import", Provenance(client=ctx.client),
                           rules=file.rules if state.stored is None else None, observe=observe,
                           sessions=[s for _, s in file.sessions if s["id"] not in registered],
                           tombstones=_new_rejections(file, rejected),
                           imported_audit=[entry for _, entry in file.audit if entry["id"] not in logged])
    if state.version > 0:
        yield from _restores(ctx, file, targets, changes=not mutation.is_empty())
    return mutation


def _rejection_identity(rejection: Mapping[str, Any]) -> tuple[Any, ...]:
    """What tells one rejection from another (they have no id): the fact, why, when and by whom."""
    return (rejection["subject"], rejection["predicate"], rejection["object"], rejection["reason"],
            int(rejection["rejected_at"]), rejection["by"])


def _new_rejections(file: ImportFile, held: list[tuple[Any, ...]]) -> list[dict[str, Any]]:
    """The file's rejections the scope does not hold (as many of each as the file has beyond the scope's)."""
    left = Counter(held)
    new = []
    for _, rejection in file.tombstones:
        identity = _rejection_identity(rejection)
        if left[identity]:
            left[identity] -= 1
        else:
            new.append(rejection)
    return new


def _restores(ctx: Context, file: ImportFile, targets: Mapping[str, str], *, changes: bool) -> Op[None]:
    """Refuse an import that would change a scope holding what this export does not hold (docs/import.md).

    An import is a restore: into a scope holding nothing but (part of) this same export, the union is the
    export, exact; on top of anything else its history would contradict what the scope believed (the same
    fact twice, two current values of a single-valued predicate), so it is refused unless it adds nothing.
    """
    ours = {r.id: fact_line(r) for _, r in file.records}
    held = [rows.record(row["fact"]) for row in (yield from _every(
        Read(Q.EXPORT_FACTS, {"scope": ctx.scope, **_first()}), lambda row: _next(row["fact"])))]
    records = sum(1 for r in held if ours.get(r.id) != fact_line(r))
    changes = changes or len(ours.keys() - {r.id for r in held}) > 0
    noted = {o["id"]: {f.name: targets.get(o[f.name], o[f.name]) if f.kind == "end" else o[f.name]
                       for f in OBSERVATION} for _, o in file.observations}
    found = yield from _every(Read(Q.EXPORT_OBSERVATIONS, {"scope": ctx.scope, **_first()}),
                              lambda row: _next(row["observation"]))
    notes = sum(1 for row in found if noted.get(row["observation"]["id"]) != {
        f.name: field_value(f, row["observation"][projected(f)]) for f in OBSERVATION})
    if changes and (records or notes):
        raise InvalidImportError(
            f"scope {ctx.scope!r} holds {plural(records, 'fact record')} and {plural(notes, 'observation')} this "
            "export does not (written since, or imported from another export): an import restores a scope exactly, "
            "so it goes into an empty scope, or one holding only this same export (importing it again completes "
            f"or repeats it). Import into a new scope, or erase this one first (purge(scope={ctx.scope!r})); "
            "nothing was written")


def version_after(view: View, mutation: Mutation) -> int:
    """The scope's version once an import's write is applied (an empty one writes nothing)."""
    return view.state.version + (0 if mutation.is_empty() else 1)


def import_records(ctx: Context, chunk: list[Record], view: View, version: int) -> Op[Mutation]:
    """One chunk of records; records whose id the scope already holds are skipped (importing twice
    changes nothing), and a key that is an alias in this scope stands for its entity. ``version``: the
    scope's version the import's previous write left; another writer since is refused."""
    if view.state.version != version:
        raise InvalidImportError(
            f"scope {ctx.scope!r} was written by another writer during the import: the rest of the export could "
            "contradict what it wrote, so it was not imported (the records imported before stay). Erase the scope "
            f"(purge(scope={ctx.scope!r})) and import again with no other writer at work")
    found = yield from read(projections.EXISTING_IDS, {"scope": ctx.scope, "ids": [r.id for r in chunk]})
    existing = {row["id"] for row in found}
    fresh = [r for r in chunk if r.id not in existing]
    keys = yield from lookup(ctx, {k for r in fresh for k in (r.subject, r.object)})
    lost = sorted({k for r in fresh for k in (r.subject, r.object)} - set(keys))
    if lost:
        raise InvalidImportError(f"entities {lost[:3]} were removed from scope {ctx.scope!r} during the import; "
                                 "import the file again")
    plan = Plan(creates=[replace(r, subject=keys[r.subject], object=keys[r.object]) for r in fresh])
    plan.created = len(plan.creates)
    view.add(plan)
    return Mutation.of(view, "import", Provenance(client=ctx.client))


class CheckedExport(ExportSummary):
    """An export checked whole (:func:`~synapse_graph.check_export`): what it holds, and its lines as read, so
    :meth:`Memory.import_ <synapse_graph.Memory.import_>` given it into the scope (and secrets mode) it was
    checked for does not read and check the file again."""

    _file: ImportFile = PrivateAttr(default_factory=ImportFile)
    _checked_for: tuple[str, str] = PrivateAttr(default=("", ""))

    @classmethod
    def of(cls, ctx: Context, file: ImportFile) -> CheckedExport:
        checked = cls(entities=len(file.entities), facts=len(file.records), observations=len(file.observations),
                      rejections=len(file.tombstones), audit_entries=len(file.audit), sessions=len(file.sessions))
        checked._file, checked._checked_for = file, (ctx.scope, ctx.secrets)
        return checked

    def read_for(self, ctx: Context) -> ImportFile:
        """The lines as read, for an import into ``ctx``'s scope; refused for another (its names and secrets
        were checked under that scope's rules)."""
        scope, secrets = self._checked_for
        if (ctx.scope, ctx.secrets) != (scope, secrets):
            raise InvalidImportError(
                f"this export was checked for scope {scope!r} with secrets={secrets!r}, not for scope {ctx.scope!r} "
                f"with secrets={ctx.secrets!r}; check it for this memory with check_export(path, scope="
                f"{ctx.scope!r}, secrets={ctx.secrets!r}), or give import_ the path or the lines")
        return self._file


def import_chunks(ctx: Context, source: Iterable[str] | str | os.PathLike[str] | CheckedExport, batch_size: int
                  ) -> tuple[ImportFile, list[list[Record]]]:
    """Read and check a whole import (unless given checked for this scope), then cut its records into chunks of
    one transaction each."""
    batch_size = count(batch_size, field="batch_size", minimum=1)
    file = source.read_for(ctx) if isinstance(source, CheckedExport) else read_lines(ctx, lines_of(source))
    records = [record for _, record in file.records]
    return file, [records[i:i + batch_size] for i in range(0, len(records), batch_size)]


def lines_of(source: Iterable[str] | str | os.PathLike[str]) -> Iterator[str]:
    """Lines of an import source: an iterable of strings, or a path to a file."""
    if isinstance(source, str | os.PathLike):
        path = Path(source)
        try:
            with path.open(encoding="utf-8") as handle:
                yield from (line.rstrip("\n") for line in handle)
        except FileNotFoundError:
            raise InvalidImportError(f"no file {str(path)[:200]!r} to import; give the path of an export") from None
        except IsADirectoryError:
            raise InvalidImportError(f"{str(path)[:200]!r} is a folder; give the path of an export file") from None
        except UnicodeDecodeError as exc:
            raise InvalidImportError(f"{str(path)[:200]!r} is not UTF-8 text (byte {exc.start}); an export is "
                                     "JSON Lines") from None
        return
    for line in source:
        if not isinstance(line, str):
            raise InvalidImportError(f"import lines must be strings, got {type(line).__name__}")
        yield line
