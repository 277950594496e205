"""The facade: validate -> domain rules -> catalogue -> backend, one transaction per call."""

from __future__ import annotations

import json
import os
import random
import time
import uuid
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from functools import lru_cache
from pathlib import Path
from types import TracebackType
from typing import Any, Self

from synapse_graph import recall as recall_steps
from synapse_graph.backends import Backend, open_backend
from synapse_graph.catalogue import Q
from synapse_graph.embedding import Embedder
from synapse_graph.errors import (
    ConcurrencyConflictError,
    InvalidInputError,
    InvalidNameError,
    InvalidScopeError,
    InvalidTimeError,
    QuotaExceededError,
)
from synapse_graph.models import (
    AuditEntry,
    Entity,
    EntryEntity,
    Fact,
    PurgeResult,
    Recall,
    RecalledFact,
    Stats,
    TimeInput,
    Triple,
    WriteResult,
)
from synapse_graph.rules.predicates import SAME_AS, PredicateRegistry, check_predicate
from synapse_graph.rules.recall import MAX_ENTRY_ENTITIES, content_terms, search_text
from synapse_graph.rules.redaction import SecretMode, guard
from synapse_graph.rules.slots import SLOT_FORMAT, fact_slot
from synapse_graph.rules.text import check_scope, clean_name, clean_text, name_key
from synapse_graph.rules.timeline import Plan, Provenance, Record, TimelinePlanner, Write, plan_merge
from synapse_graph.rules.timeparse import from_micros, now_micros, to_micros
from synapse_graph.rules.trust import (
    DEFAULT_CANDIDATE_BELOW,
    TIMELINE_STATES,
    TRUST_STATES,
    after_feedback,
    audit_detail,
    check_verdict,
    reading_states,
    rejection_flag,
)

TripleInput = Triple | tuple[str, str, str] | Mapping[str, Any]
_MAX_ATTEMPTS = 25
_DEFAULT_LIMIT = 100_000
EXPORT_FORMAT = "synapse-graph/1"


@dataclass
class _ScopeState:
    version: int
    facts: int
    entities: int
    last_batch: str | None
    updated_at: int
    tombstones: int | None = None
    """Rejections ever recorded in the scope (None: not counted, as in scopes older than format 2)."""
    format: int | None = None


@dataclass
class _Changes:
    """Everything one transaction will change, besides the timeline plan."""

    plan: Plan = field(default_factory=Plan)
    entities: dict[str, dict[str, Any]] = field(default_factory=dict)
    aliases: list[dict[str, Any]] = field(default_factory=list)
    alias_names: dict[str, list[str]] = field(default_factory=dict)
    retarget: list[dict[str, str]] = field(default_factory=list)
    deletes: list[str] = field(default_factory=list)
    removed_facts: int = 0
    tombstones: list[dict[str, Any]] = field(default_factory=list)
    action: str = "upsert"
    provenance: Provenance | None = None
    secrets: set[str] = field(default_factory=set)
    before: list[Record] = field(default_factory=list)
    """Records as they were before an in-place update (for the audit log)."""
    imported_audit: list[dict[str, Any]] = field(default_factory=list)

    def is_empty(self) -> bool:
        return self.plan.is_empty() and not (
            self.entities or self.aliases or self.alias_names or self.deletes or self.tombstones
        )


@dataclass(frozen=True)
class _Name:
    display: str
    key: str


class Memory:
    """A temporal knowledge-graph memory bound to one scope.

    Args:
        location: a file path (embedded FalkorDB, started and stopped by the library),
            a FalkorDB URL (``redis://``, ``falkordb://``), a Neo4j URL (``bolt://``,
            ``neo4j://``, ``neo4j+s://``), or ``None`` for ``memory.db`` in the user's
            data directory (or ``$SYNAPSE_DB``).
        scope: tenant/repo/session this memory reads and writes, e.g. ``"acme/web"``.
        max_facts: quota of currently believed facts in the scope.
        max_entities: quota of entities in the scope.
        secrets: ``"redact"`` replaces secrets in names and sources by placeholders;
            ``"reject"`` refuses them with :class:`~synapse_graph.errors.SecretRejectedError`.
        client: provenance recorded on every fact this memory writes.
        single_valued: predicates that hold one value at a time (default: a built-in
            set such as ``LIVES_IN`` and ``WORKS_AT``); extend with ``memory.predicates``.
        embedder: a local :class:`~synapse_graph.embedding.Embedder` for recall's vector leg.
        candidate_below: facts extracted by a model (written with ``model=``) below this
            confidence become candidates: recorded, not believed, until approved.

    Example:
        >>> with Memory("/tmp/demo.db", scope="demo") as memory:
        ...     memory.upsert(Triple(subject="Dana", predicate="LIVES_IN", object="Paris"))
        ...     memory.facts("Dana")
    """

    def __init__(
        self,
        location: str | os.PathLike[str] | None = None,
        *,
        scope: str = "default",
        max_facts: int = 10_000,
        max_entities: int = 5_000,
        secrets: SecretMode = "redact",
        client: str = "synapse-graph",
        single_valued: Iterable[str] | None = None,
        auth: tuple[str, str] | None = None,
        database: str | None = None,
        embedder: Embedder | None = None,
        candidate_below: float = DEFAULT_CANDIDATE_BELOW,
    ) -> None:
        self.scope = check_scope(scope)
        if max_facts < 0 or max_entities < 0:
            raise InvalidInputError("max_facts and max_entities must be >= 0")
        if secrets not in ("redact", "reject"):
            raise InvalidInputError(f"secrets must be 'redact' or 'reject', not {secrets!r}")
        self.max_facts = max_facts
        self.max_entities = max_entities
        self.secrets: SecretMode = secrets
        self.client = self._text(client, "client")
        self.predicates = PredicateRegistry() if single_valued is None else PredicateRegistry(single_valued)
        self.embedder = embedder
        if not 0.0 <= candidate_below <= 1.0:
            raise InvalidInputError(f"candidate_below must be between 0 and 1, got {candidate_below}")
        self.candidate_below = candidate_below
        self._backend: Backend = open_backend(location, auth=auth, database=database)
        try:
            self._backend.ensure_schema(None if embedder is None else embedder.dimensions)
            self._upgrade_format()
        except BaseException:
            self._backend.close()
            raise

    # -- lifecycle -------------------------------------------------------------------------------

    @property
    def backend(self) -> Backend:
        """The database connection (for tools and tests; prefer the methods here)."""
        return self._backend

    @property
    def location(self) -> str:
        return self._backend.location

    def close(self) -> None:
        """Close the connection and stop the embedded server if this was its last user."""
        self._backend.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"Memory({self.location!r}, scope={self.scope!r})"

    # -- input rules -------------------------------------------------------------------------------

    def _text(self, value: str | None, field: str, max_length: int = 512, found: set[str] | None = None
              ) -> str | None:
        if value is None:
            return None
        cleaned = clean_text(value, field=field, max_length=max_length)
        if cleaned is None:
            return None
        redacted = guard(cleaned, self.secrets, field=field)
        if found is not None:
            found.update(redacted.kinds)
        return redacted.text

    def _name(self, raw: object, field: str, found: set[str] | None = None) -> _Name:
        if not isinstance(raw, str):
            raise InvalidInputError(f"{field} must be a string, got {type(raw).__name__}")
        if "\x01" in raw:
            # FalkorDB's exact-match indexes split values at U+0001, and its unique
            # constraints crash the server on such a key: refused on every backend alike.
            raise InvalidNameError(f"{field} contains the control character U+0001, which the store cannot index; "
                                   "remove it")
        known = _checked_name(raw, self.secrets)
        if known is None:  # invalid: run the checks again to raise the error that names the field
            redacted = guard(clean_name(raw, field=field), self.secrets, field=field)
            clean_name(redacted.text, field=field)
            raise AssertionError("unreachable: the name passed its checks")  # pragma: no cover
        name, kinds = known
        if found is not None:
            found.update(kinds)
        return name

    def _scope_arg(self, scope: str | None) -> str:
        if scope is not None and scope != self.scope:
            raise InvalidScopeError(
                f"this memory is bound to scope {self.scope!r} and cannot act on scope {scope!r}; "
                f"open Memory(..., scope={scope!r}) instead"
            )
        return self.scope

    @staticmethod
    def _time(value: TimeInput | None, field: str) -> int | None:
        return None if value is None else to_micros(value, field=field)

    def _provenance(self, source: str | None, model: str | None, session: str | None,
                    found: set[str] | None = None) -> Provenance:
        return Provenance(
            source=self._text(source, "source", found=found),
            client=self.client,
            model=self._text(model, "model", 200, found=found),
            session=self._text(session, "session", 200, found=found),
        )

    # -- writes ------------------------------------------------------------------------------------

    def upsert(
        self,
        triples: TripleInput | Iterable[TripleInput],
        *,
        replace: bool = False,
        valid_at: TimeInput | None = None,
        source: str | None = None,
        model: str | None = None,
        session: str | None = None,
    ) -> WriteResult:
        """Write one or many facts in one transaction (all or nothing).

        A fact already valid over the given interval is confirmed (``confirmations``
        + 1, highest confidence kept); one whose interval overlaps or touches a stored
        interval of the same fact is merged with it. With ``replace=True``, or for a
        single-valued predicate, the subject's other values of the predicate that hold
        at the new ``valid_at`` are closed there, and a late-arriving value ends where
        the next known value begins. ``valid_at`` defaults to now. ``SAME_AS`` triples
        record aliases (see :meth:`alias`) before the other facts are written.
        """
        items = _as_triples(triples)
        batch_valid_at = self._time(valid_at, "valid_at")
        found: set[str] = set()
        provenance = self._provenance(source, model, session, found)
        writes: list[tuple[_Name, str, _Name, int | None, int | None, float, bool, Triple]] = []
        aliases: list[tuple[_Name, _Name]] = []
        for index, triple in enumerate(items):
            label = f"triple {index}" if len(items) > 1 else "triple"
            predicate = check_predicate(triple.predicate, allow_same_as=True)
            subject = self._name(triple.subject, f"{label} subject", found)
            obj = self._name(triple.object, f"{label} object", found)
            for kind, side in ((triple.subject_type, "subject"), (triple.object_type, "object")):
                self._text(kind, f"{label} {side} type", 64)  # checked even if the entity already exists
            if predicate == SAME_AS:
                aliases.append((subject, obj))
                continue
            start = self._time(triple.valid_at, f"{label} valid_at")
            end = self._time(triple.invalid_at, f"{label} invalid_at")
            start = batch_valid_at if start is None else start
            if start is not None and end is not None and end <= start:
                raise InvalidTimeError(
                    f"{label}: invalid_at must be after valid_at (validity is [valid_at, invalid_at))"
                )
            if start is None and end is not None and end <= now_micros():
                # Checked here too (not only when planning) so that a batch's aliases are not written either.
                raise InvalidTimeError(f"{label}: invalid_at must be after valid_at, which defaults to now")
            confidence = 1.0 if triple.confidence is None else triple.confidence
            if not 0.0 <= confidence <= 1.0:
                raise InvalidInputError(f"{label}: confidence must be between 0 and 1, got {confidence}")
            single = replace or self.predicates.is_single_valued(predicate)
            writes.append((subject, predicate, obj, start, end, confidence, single, triple))
        result = WriteResult()
        for canonical, alias in aliases:
            result.aliases_merged += self._alias(canonical, alias)
        if writes:
            self._transact(lambda state, now: self._plan_writes(state, writes, provenance, now, found), result)
        return result

    def _plan_writes(
        self,
        state: _ScopeState,
        writes: list[tuple[_Name, str, _Name, int | None, int | None, float, bool, Triple]],
        provenance: Provenance,
        now: int,
        found: set[str] | None = None,
    ) -> _Changes:
        changes = _Changes(provenance=provenance, secrets=set(found or ()))
        names = {n.key: n for w in writes for n in (w[0], w[2])}
        canonical = self._resolve(
            names.values(),
            changes,
            now,
            types=_declared_types(writes),
        )
        # A scope that never rejected a fact has no tombstone to look up (a concurrent rejection
        # moves the scope's version, so this write would be re-planned).
        rejected = {} if state.tombstones == 0 else self._rejections(
            {(canonical[w[0].key], w[1], canonical[w[2].key]) for w in writes})
        # A single-valued write needs every value of its (subject, predicate); any other write only
        # the records of its own fact, which keeps this read small for entities with many facts.
        # Either way only records that end at or after the write's valid_at can be touched (closed,
        # merged, confirmed, or end a late arrival), and entities this batch creates have none.
        fresh = changes.entities.keys()
        whole = {(canonical[w[0].key], w[1]) for w in writes if w[6]}
        since: dict[tuple[str, str, str | None], int] = {}
        for subject, predicate, obj, start, *_ in writes:
            pair = (canonical[subject.key], predicate)
            if pair[0] in fresh or (pair not in whole and canonical[obj.key] in fresh):
                continue
            key = (*pair, None if pair in whole else canonical[obj.key])
            begins = now if start is None else start
            since[key] = min(since.get(key, begins), begins)
        current = self._current_records(
            [(*key, begins) for key, begins in since.items()], (*TIMELINE_STATES, "candidate"))
        # Believed facts and candidates live in separate timelines: a candidate never closes a believed value.
        believed = TimelinePlanner([r for r in current if r.status != "candidate"], now=now)
        candidates = TimelinePlanner([r for r in current if r.status == "candidate"], now=now)
        for subject, predicate, obj, start, end, confidence, single, _ in writes:
            if end is not None and start is None and end <= now:
                raise InvalidTimeError("invalid_at must be after valid_at, which defaults to now")
            fact = (canonical[subject.key], predicate, canonical[obj.key])
            flag = rejected.get(fact)
            # Facts a model extracted are believed only from `candidate_below` up; direct writes always are.
            candidate = flag is not None or (provenance.model is not None and confidence < self.candidate_below)
            (candidates if candidate else believed).add(
                Write(
                    subject=fact[0],
                    predicate=predicate,
                    object=fact[2],
                    valid_at=now if start is None else start,
                    invalid_at=end,
                    confidence=confidence,
                    single_valued=single and not candidate,
                    provenance=provenance,
                    status="candidate" if candidate else "believed",
                    flag=flag,
                )
            )
        changes.plan = _combine(believed.plan(), candidates.plan())
        return changes

    def _rejections(self, facts: Iterable[tuple[str, str, str]]) -> dict[tuple[str, str, str], str]:
        """The latest rejection of each fact that was rejected before, as a flag text."""
        rows = self._backend.read(Q.TOMBSTONES, {"scope": self.scope, "facts": [
            {"subject": s, "predicate": p, "object": o} for s, p, o in sorted(facts)]})
        return {(r["subject"], r["predicate"], r["object"]): rejection_flag(r["reason"], _iso(r["rejected_at"]) or "")
                for r in rows}

    def _resolve(
        self, names: Iterable[_Name], changes: _Changes, now: int, types: Mapping[str, str | None] | None = None
    ) -> dict[str, str]:
        """Canonical entity key of each name; names never seen become new entities."""
        by_key = {n.key: n for n in names}
        canonical = self._lookup(by_key.values())
        for key, name in by_key.items():
            if key not in canonical:
                canonical[key] = key
                if key not in changes.entities:
                    kind = (types or {}).get(key)
                    changes.entities[key] = _entity_row(
                        key, name.display, None if kind is None else self._text(kind, "entity type", 64), now
                    )
        return canonical

    def _current_records(self, keys: Iterable[tuple[str, str, str | None, int | None]],
                         statuses: Iterable[str] = TIMELINE_STATES) -> list[Record]:
        """Current records of (subject, predicate, object, since) keys.

        Object None means every object; since (epoch µs) leaves out records that ended before it.
        """
        scope = self.scope
        rows = [{"slot": fact_slot(scope, s, p), "subject": s, "predicate": p, "object": o, "since_at": t}
                for s, p, o, t in keys]
        if not rows:
            return []
        [found] = self._backend.read(Q.CURRENT_RECORDS, {"scope": scope, "statuses": list(statuses), "keys": rows})
        unique = {row["id"]: row for row in found["records"]}  # a record can answer two keys of one slot
        return [_record(row) for row in unique.values()]

    def _transact(self, build: Any, result: WriteResult | None = None) -> _Changes:
        """Plan against the current state and apply atomically, re-planning if a writer intervened."""
        batch = uuid.uuid4().hex
        for attempt in range(_MAX_ATTEMPTS):
            state = self._state()
            # Belief time never goes backwards within a scope, whatever the wall clock does.
            now = max(now_micros(), state.updated_at + 1)
            changes: _Changes = build(state, now)
            if changes.is_empty():
                _count(result, changes)
                return changes
            self._check_quota(state, changes)
            if self._apply(state, changes, batch, now) or self._state().last_batch == batch:
                _count(result, changes)
                self._store_embeddings(list(changes.entities.values()))
                return changes
            time.sleep(random.uniform(0, 0.002 * (attempt + 1)))
        raise ConcurrencyConflictError(
            f"scope {self.scope!r} kept changing under {_MAX_ATTEMPTS} attempts to write; retry later"
        )

    def _state(self) -> _ScopeState:
        row = self._backend.read(Q.SCOPE_STATE, {"scope": self.scope})[0]
        return _ScopeState(row["version"], row["facts"], row["entities"], row["last_batch"], row["updated_at"] or 0,
                           row["tombstones"], row["format"])

    def _upgrade_format(self) -> None:
        """Give every fact of a scope written before store format 2 its slot (once, on open)."""
        state = self._state()
        if state.version == 0 or (state.format or 0) >= SLOT_FORMAT:
            return
        while rows := self._backend.read(Q.SLOTLESS_FACTS, {"scope": self.scope, "limit": 5_000}):
            slots = [{"id": r["id"], "slot": fact_slot(self.scope, r["subject"], r["predicate"])} for r in rows]
            self._backend.write(Q.SET_SLOTS, {"scope": self.scope, "slots": slots})
        self._backend.write(Q.MARK_FORMAT, {"scope": self.scope, "format": SLOT_FORMAT})

    def _check_quota(self, state: _ScopeState, changes: _Changes) -> None:
        facts = state.facts + changes.plan.fact_delta - changes.removed_facts
        entities = state.entities + len(changes.entities) - len(changes.deletes)
        if changes.plan.fact_delta > 0 and facts > self.max_facts:
            raise QuotaExceededError(
                f"scope {self.scope!r} would hold {facts} facts, over its quota of {self.max_facts} "
                f"({state.facts} now, +{changes.plan.fact_delta} in this write); nothing was written. "
                "Purge or retract facts, or open the memory with a larger max_facts."
            )
        if changes.entities and entities > self.max_entities:
            raise QuotaExceededError(
                f"scope {self.scope!r} would hold {entities} entities, over its quota of {self.max_entities} "
                f"({state.entities} now, +{len(changes.entities)} in this write); nothing was written. "
                "Purge entities, or open the memory with a larger max_entities."
            )

    def _apply(self, state: _ScopeState, changes: _Changes, batch: str, now: int) -> bool:
        plan = changes.plan
        params = {
            "scope": self.scope,
            "format": SLOT_FORMAT,
            "version": state.version,
            "batch": batch,
            "now": now,
            "fact_delta": plan.fact_delta - changes.removed_facts,
            "entity_delta": len(changes.entities) - len(changes.deletes),
            "entities": list(changes.entities.values()),
            "retarget": changes.retarget,
            "aliases": changes.aliases,
            "alias_names": [{"key": k, "names": v} for k, v in changes.alias_names.items()],
            "expires": [r.id for r in plan.expires],
            "updates": [
                {"id": r.id, "confirmations": r.confirmations, "confidence": r.confidence, "status": r.status}
                for r in plan.updates
            ],
            "tombstones": changes.tombstones,
            "audit": [*changes.imported_audit, self._audit_entry(changes, now)],
            "creates": [{"subject": r.subject, "object": r.object, "props": self._props(r)} for r in plan.creates],
            "deletes": changes.deletes,
        }
        return bool(self._backend.write(Q.APPLY_PLAN, params))

    def _audit_entry(self, changes: _Changes, now: int) -> dict[str, Any]:
        plan = changes.plan
        provenance = changes.provenance or Provenance(client=self.client)
        touched = {k for r in (*plan.creates, *plan.expires, *plan.updates) for k in (r.subject, r.object)}
        touched.update(changes.entities, changes.deletes, (a["target"] for a in changes.aliases),
                       (t["subject"] for t in changes.tombstones), (t["object"] for t in changes.tombstones))
        detail = audit_detail(
            plan, changes.before,
            entities_created=sorted(changes.entities), entities_deleted=changes.deletes,
            aliases=[{"alias": a["key"], "of": a["target"]} for a in changes.aliases],
            rejected=[{k: t[k] for k in ("subject", "predicate", "object", "reason")} for t in changes.tombstones],
        )
        return {
            "id": uuid.uuid4().hex, "scope": self.scope, "at": now, "action": changes.action,
            "client": provenance.client, "source": provenance.source, "model": provenance.model,
            "session": provenance.session, "entities": sorted(touched),
            "facts": sorted({r.id for r in (*plan.creates, *plan.expires, *plan.updates)}),
            "detail": json.dumps(detail, sort_keys=True), "secrets": sorted(changes.secrets),
        }

    def _props(self, record: Record) -> dict[str, Any]:
        props: dict[str, Any] = {
            "id": record.id,
            "scope": self.scope,
            "slot": fact_slot(self.scope, record.subject, record.predicate),
            "predicate": record.predicate,
            "valid_at": record.valid_at,
            "invalid_at": record.invalid_at,
            "recorded_at": record.recorded_at,
            "expired_at": record.expired_at,
            "confidence": record.confidence,
            "confirmations": record.confirmations,
            "source": record.provenance.source,
            "client": record.provenance.client,
            "model": record.provenance.model,
            "session": record.provenance.session,
            "status": record.status,
            "flag": record.flag,
        }
        return {k: v for k, v in props.items() if v is not None}

    def retract(self, subject: str, predicate: str, object: str | None = None, *, at: TimeInput | None = None) -> int:
        """End the validity of matching facts at ``at`` (default now); history keeps them.

        Returns how many facts were ended. Facts that start after ``at`` are untouched.
        """
        subject_name = self._name(subject, "subject")
        predicate = check_predicate(predicate)
        object_name = None if object is None else self._name(object, "object")
        when = self._time(at, "at")
        ended = 0

        def build(state: _ScopeState, now: int) -> _Changes:
            nonlocal ended
            changes = _Changes(action="retract")
            keys = self._lookup([subject_name] + ([object_name] if object_name else []))
            subject_key = keys.get(subject_name.key)
            object_key = None if object_name is None else keys.get(object_name.key)
            if subject_key is None or (object_name is not None and object_key is None):
                ended = 0
                return changes
            planner = TimelinePlanner(self._current_records([(subject_key, predicate, None, when)]), now=now)
            ended = planner.retract(subject_key, predicate, object_key, now if when is None else when)
            changes.plan = planner.plan()
            return changes

        self._transact(build)
        return ended

    def _lookup(self, names: Iterable[_Name]) -> dict[str, str]:
        """Canonical keys of names that exist (aliases resolved); unknown names are left out."""
        keys = sorted({n.key for n in names})
        [found] = self._backend.read(Q.RESOLVE_KEYS, {"scope": self.scope, "keys": keys})
        return {**{key: key for key in found["entities"]}, **{a["key"]: a["target"] for a in found["aliases"]}}

    def alias(self, canonical: str, alias: str) -> bool:
        """Record ``alias`` as another name of ``canonical``.

        If the alias names an entity of its own, that entity is merged into the
        canonical one: its facts move over (history included; overlapping intervals
        of the same fact united, confirmations summed, highest confidence kept) and it
        disappears as a separate node. Idempotent; chains resolve to the end
        (C -> B -> A). Returns True if an entity was merged.
        """
        return bool(self._alias(self._name(canonical, "canonical"), self._name(alias, "alias")))

    def _alias(self, canonical: _Name, alias: _Name) -> int:
        merged = 0
        if alias.key == canonical.key:
            return 0

        def build(state: _ScopeState, now: int) -> _Changes:
            nonlocal merged
            changes = _Changes(action="alias")
            target = self._resolve([canonical], changes, now)[canonical.key]
            current = self._lookup([alias])
            other = current.get(alias.key)
            merged = 0
            if other == target:
                return changes
            if other is None:
                changes.aliases.append(_alias_row(alias.key, alias.display, target))
                changes.alias_names[target] = [alias.display]
                return changes
            merged = 1
            self._plan_entity_merge(other, target, changes, now)
            if alias.key != other:
                changes.aliases.append(_alias_row(alias.key, alias.display, target))
            return changes

        self._transact(build)
        return merged

    def _plan_entity_merge(self, source: str, target: str, changes: _Changes, now: int) -> None:
        source_row = self._backend.read(Q.ENTITY, {"scope": self.scope, "key": source})[0]
        moved_from = [_record(r) for r in self._backend.read(Q.ENTITY_RECORDS, {"scope": self.scope, "key": source})]
        target_current = [
            r
            for r in (
                _record(row) for row in self._backend.read(Q.ENTITY_RECORDS, {"scope": self.scope, "key": target})
            )
            if r.expired_at is None and source not in (r.subject, r.object)
        ]
        moved = [
            replace(
                r,
                subject=target if r.subject == source else r.subject,
                object=target if r.object == source else r.object,
            )
            for r in moved_from
        ]
        changes.plan = plan_merge(target_current, moved, now=now)
        changes.removed_facts = sum(1 for r in moved_from if r.expired_at is None)
        changes.retarget.append({"from": source, "to": target})
        changes.aliases.append(_alias_row(source, source_row["name"], target))
        changes.alias_names[target] = [source_row["name"], *(source_row["aliases"] or [])]
        changes.deletes.append(source)

    def purge(self, entity: str | None = None, *, scope: str | None = None) -> PurgeResult:
        """Hard-delete an entity with all its facts and aliases, or (``scope=``) the whole scope.

        Unlike :meth:`retract` nothing is kept in history: use it for erasure requests.
        ``scope`` must be this memory's own scope.
        """
        if entity is None and scope is None:
            raise InvalidInputError("purge needs an entity name, or scope=<this memory's scope> to erase everything")
        if entity is not None and scope is not None:
            raise InvalidInputError("purge takes an entity or a scope, not both")
        if scope is not None:
            row = self._backend.write(Q.PURGE_SCOPE, {"scope": self._scope_arg(scope)})[0]
            return PurgeResult(entities=row["entities"], facts=row["facts"], aliases=row["aliases"])
        name = self._name(entity, "entity")
        key = self._lookup([name]).get(name.key)
        if key is None:
            return PurgeResult(entities=0, facts=0, aliases=0)
        now = now_micros()
        # The erased entity's name stays out of the log: the entry says what kind of thing happened.
        note = {"id": uuid.uuid4().hex, "scope": self.scope, "at": now, "action": "purge", "client": self.client,
                "entities": [], "facts": [], "detail": json.dumps({"purged": "one entity"}), "secrets": []}
        rows = self._backend.write(Q.PURGE_ENTITY, {"scope": self.scope, "key": key, "now": now, "audit": note})
        if not rows:
            return PurgeResult(entities=0, facts=0, aliases=0)
        return PurgeResult(entities=rows[0]["entities"], facts=rows[0]["facts"], aliases=rows[0]["aliases"])

    # -- reads -------------------------------------------------------------------------------------

    def facts(
        self,
        subject: str | None = None,
        predicate: str | None = None,
        object: str | None = None,
        *,
        as_of: TimeInput | None = None,
        known_at: TimeInput | None = None,
        include_history: bool = False,
        limit: int | None = None,
        include_candidates: bool = False,
        include_disputed: bool = False,
    ) -> list[Fact]:
        """Facts valid at ``as_of`` (default now), as the store believed them at ``known_at`` (default now).

        Validity is half-open: a fact with ``invalid_at == as_of`` no longer holds.
        ``include_history=True`` returns every validity interval instead. Only believed
        facts come back unless ``include_candidates``/``include_disputed`` ask for more.
        Names resolve through aliases; an unknown name gives an empty list.
        """
        predicate = None if predicate is None else check_predicate(predicate)
        at = self._time(as_of, "as_of")
        known = self._time(known_at, "known_at")
        now = now_micros()
        params: dict[str, Any] = {
            "scope": self.scope,
            "predicate": predicate,
            "as_of": None if include_history else (now if at is None else at),
            "statuses": reading_states(include_candidates, include_disputed),
            "known_at": now if known is None else known,
            "limit": _limit(limit, _DEFAULT_LIMIT),
            "subject": None,
            "object": None,
        }
        named = {f: self._name(v, f) for v, f in ((subject, "subject"), (object, "object")) if v is not None}
        if "subject" in named and predicate is not None:
            # One round trip when the names are not aliases (the usual case): a name's own key finds its
            # facts, and an alias's key finds none (its entity was merged away), so only an empty answer
            # needs the names resolved and the read repeated.
            guess = {**params, "subject": named["subject"].key,
                     "object": named["object"].key if "object" in named else None,
                     "slot": fact_slot(self.scope, named["subject"].key, predicate)}
            rows = self._backend.read(Q.FACTS_BY_SLOT, guess)
            if rows:
                return [_fact(row) for row in rows]
        keys = self._lookup(named.values()) if named else {}
        for field_name, cleaned in named.items():
            key = keys.get(cleaned.key)
            if key is None:
                return []
            params[field_name] = key
        if params["subject"] is not None and predicate is not None:
            if all(params[f] == cleaned.key for f, cleaned in named.items()):
                return []  # the guess above was the right read
            name = Q.FACTS_BY_SLOT
            params["slot"] = fact_slot(self.scope, params["subject"], predicate)
        elif params["subject"] is not None:
            name = Q.FACTS_BY_SUBJECT
        elif params["object"] is not None:
            name = Q.FACTS_BY_OBJECT
        else:
            name = Q.FACTS_IN_SCOPE
        return [_fact(row) for row in self._backend.read(name, params)]

    def history(self, subject: str, predicate: str | None = None, *, known_at: TimeInput | None = None) -> list[Fact]:
        """Every validity interval of the subject's facts, oldest first."""
        return self.facts(subject, predicate, include_history=True, known_at=known_at)

    def neighbourhood(
        self,
        entity: str,
        hops: int = 1,
        *,
        as_of: TimeInput | None = None,
        known_at: TimeInput | None = None,
        limit: int = 200,
    ) -> list[Fact]:
        """Facts valid at ``as_of`` around an entity: its own, and with ``hops=2`` its neighbours' too.

        The entity's own facts come first, then its neighbours' (each group oldest first); at
        most ``limit`` in all. When the limit cuts hop 2 short, each neighbour contributes at most
        as many facts as are left to fill (the first found), so a neighbour with a million
        facts costs no more than one with ten.
        """
        hops = _hops(hops)
        name = self._name(entity, "entity")
        at = self._time(as_of, "as_of")
        known = self._time(known_at, "known_at")
        key = self._lookup([name]).get(name.key)
        if key is None:
            return []
        now = now_micros()
        limit = _limit(limit, 10_000)
        params = {
            "scope": self.scope,
            "key": key,
            "limit": limit,
            "as_of": now if at is None else at,
            "known_at": now if known is None else known,
            "statuses": reading_states(False, False),
        }
        rows = self._backend.read(Q.NEIGHBOURHOOD, params)
        if hops == 2 and len(rows) < limit:
            neighbours = sorted({row["neighbour"] for row in rows} - {key})
            if neighbours:
                remaining = limit - len(rows)
                rows += self._backend.read(Q.NEIGHBOURHOOD_HOP2, {
                    **params, "centre": key, "neighbours": neighbours, "limit": remaining,
                    "per_neighbour": remaining,
                })
        return [_fact(row) for row in rows]

    def entity(self, name: str) -> Entity | None:
        """The entity a name or alias refers to, or None if unknown."""
        cleaned = self._name(name, "name")
        key = self._lookup([cleaned]).get(cleaned.key)
        if key is None:
            return None
        rows = self._backend.read(Q.ENTITY, {"scope": self.scope, "key": key})
        return _entity(rows[0]) if rows else None

    def stats(self) -> Stats:
        """Counts of entities, aliases and facts in this scope."""
        row = self._backend.read(Q.STATS, {"scope": self.scope, "now": now_micros(), "believed": "believed",
                                           "candidate": "candidate", "disputed": "disputed"})[0]
        return Stats(
            scope=self.scope,
            entities=row["entities"],
            aliases=row["aliases"],
            facts=row["facts"] or 0,
            valid_now=row["valid_now"] or 0,
            expired_records=row["expired_records"] or 0,
            candidates=row["candidates"] or 0,
            disputed=row["disputed"] or 0,
        )

    # -- trust: review, feedback, audit --------------------------------------------------------------

    def pending(self, *, limit: int | None = None) -> list[Fact]:
        """Candidates waiting for review (recorded, not believed), oldest first, flagged if rejected before."""
        now = now_micros()
        rows = self._backend.read(Q.FACTS_IN_SCOPE, {
            "scope": self.scope, "predicate": None, "as_of": None, "known_at": now, "statuses": ["candidate"],
            "limit": _limit(limit, _DEFAULT_LIMIT)})
        return [_fact(row) for row in rows]

    def approve(self, fact: Fact | str) -> None:
        """Believe a candidate: it joins its timeline as if written now (closing single-valued values)."""
        fact_id = _fact_id(fact)

        def build(state: _ScopeState, now: int) -> _Changes:
            record = self._candidate(fact_id)
            changes = _Changes(action="approve", provenance=record.provenance)
            planner = TimelinePlanner(self._current_records([(record.subject, record.predicate, None, None)]), now=now)
            planner.add(Write(
                subject=record.subject, predicate=record.predicate, object=record.object, valid_at=record.valid_at,
                invalid_at=record.invalid_at, confidence=record.confidence, provenance=record.provenance,
                single_valued=self.predicates.is_single_valued(record.predicate),
            ))
            changes.plan = planner.plan()
            changes.plan.expires.append(record)
            return changes

        self._transact(build)

    def reject(self, fact: Fact | str, reason: str) -> None:
        """Refuse a candidate; the same fact written again comes back as a candidate flagged with this reason."""
        fact_id = _fact_id(fact)
        why = self._text(reason, "reason", 500)
        if not why:
            raise InvalidInputError("a rejection needs a reason, e.g. reject(fact, 'the user corrected this')")

        def build(state: _ScopeState, now: int) -> _Changes:
            record = self._candidate(fact_id)
            changes = _Changes(action="reject", provenance=Provenance(client=self.client))
            changes.plan.expires.append(record)
            changes.tombstones.append({
                "scope": self.scope, "subject": record.subject, "predicate": record.predicate,
                "object": record.object, "reason": why, "rejected_at": now, "by": self.client,
            })
            return changes

        self._transact(build)

    def feedback(self, fact: Fact | str, verdict: str) -> Fact:
        """Say whether a recalled fact was ``helpful``, ``stale`` or ``wrong``.

        Helpful raises its confidence (and ends a dispute); stale or wrong lower it and
        mark it disputed, which hides it from default reads. Returns the updated fact.
        """
        fact_id = _fact_id(fact)
        judged = check_verdict(verdict)

        def build(state: _ScopeState, now: int) -> _Changes:
            record = self._record_by_id(fact_id)
            confidence, status = after_feedback(record.confidence, record.status, judged)
            changes = _Changes(action=f"feedback:{judged}", provenance=Provenance(client=self.client),
                               before=[record])
            changes.plan.updates.append(replace(record, confidence=confidence, status=status))
            return changes

        self._transact(build)
        row = self._backend.read(Q.RECORD_BY_ID, {"scope": self.scope, "id": fact_id})[0]
        return _fact({**row, "subject": row["subject_name"], "object": row["object_name"]})

    def audit(self, entity: str | None = None, *, limit: int = 100) -> list[AuditEntry]:
        """The scope's audit log, newest first; with ``entity``, only the entries that touched it."""
        key: str | None = None
        if entity is not None:
            name = self._name(entity, "entity")
            key = self._lookup([name]).get(name.key, name.key)
        rows = self._backend.read(Q.AUDIT_LOG, {"scope": self.scope, "entity": key, "limit": _limit(limit, 100)})
        return [_audit(row) for row in rows]

    def _record_by_id(self, fact_id: str) -> Record:
        rows = self._backend.read(Q.RECORD_BY_ID, {"scope": self.scope, "id": fact_id})
        if not rows:
            raise InvalidInputError(f"no current fact with id {fact_id!r} in scope {self.scope!r}")
        return _record(rows[0])

    def _candidate(self, fact_id: str) -> Record:
        record = self._record_by_id(fact_id)
        if record.status != "candidate":
            raise InvalidInputError(f"fact {fact_id!r} is {record.status}, not a candidate waiting for review")
        return record

    # -- recall ------------------------------------------------------------------------------------

    def recall(self, query: str, *, as_of: TimeInput | None = None, known_at: TimeInput | None = None,
               hops: int = 1, limit: int = 25) -> Recall:
        """Facts that answer a question in words, valid at ``as_of`` (default now), most relevant first.

        Entry entities come from the fulltext index (identifiers split as developers
        write them, prefix matching from 3 letters) and, with an ``embedder``, from the
        vector index; the two rankings are fused (RRF, k = 60, at most 8 entities) and
        the facts around them are expanded ``hops`` (1 or 2) steps. Small talk and
        questions without content words return at once without touching the database.
        """
        at, known = self._time(as_of, "as_of"), self._time(known_at, "known_at")
        hops = _hops(hops)
        limit = _limit(limit, 25)
        now = now_micros()
        result = Recall(query=_query_text(query), as_of=from_micros(now if at is None else at),
                        legs=self._legs())
        terms = content_terms(result.query)
        if not terms:
            return result.model_copy(update={"skipped": "no content words (empty question or small talk)"})
        entries = self._entry_entities(result.query, terms, MAX_ENTRY_ENTITIES)
        facts = recall_steps.expand(self._backend, self.scope, entries, hops=hops, as_of=now if at is None else at,
                                    known_at=now if known is None else known, limit=limit, terms=terms)
        return result.model_copy(update={"entities": entries, "facts": facts})

    def search_entities(self, text: str, *, limit: int = MAX_ENTRY_ENTITIES) -> list[EntryEntity]:
        """Recall's entry step alone: entities matching the text, fused from the search legs."""
        text = _query_text(text)
        terms = content_terms(text)
        return self._entry_entities(text, terms, _limit(limit, MAX_ENTRY_ENTITIES)) if terms else []

    def subgraph(self, entities: Iterable[str], hops: int = 1, *, as_of: TimeInput | None = None,
                 known_at: TimeInput | None = None, limit: int = 100) -> list[RecalledFact]:
        """Recall's expansion step alone: facts valid at ``as_of`` around the named entities."""
        at, known = self._time(as_of, "as_of"), self._time(known_at, "known_at")
        names = [self._name(e, "entity") for e in entities]
        keys = self._lookup(names)
        ordered = list(dict.fromkeys(keys[n.key] for n in names if n.key in keys))
        rows = self._backend.read(Q.ENTITY_NAMES, {"scope": self.scope, "keys": ordered})
        display = {r["key"]: r["name"] for r in rows}
        entries = [EntryEntity(name=display[k], key=k, score=1.0 / (61 + i)) for i, k in enumerate(ordered)
                   if k in display]
        now = now_micros()
        return recall_steps.expand(self._backend, self.scope, entries, hops=_hops(hops),
                                   as_of=now if at is None else at, known_at=now if known is None else known,
                                   limit=_limit(limit, 100))

    def reindex_embeddings(self, batch_size: int = 256) -> int:
        """Embed the names of entities that lack a vector from the configured embedder; returns how many."""
        if self.embedder is None:
            raise InvalidInputError("no embedder configured: open the Memory with embedder=...")
        done = 0
        while True:
            rows = self._backend.read(Q.MISSING_EMBEDDINGS, {"scope": self.scope, "model": self.embedder.name,
                                                             "limit": batch_size})
            if not rows:
                return done
            self._store_embeddings(rows)
            done += len(rows)

    def _legs(self) -> list[str]:
        return ["lexical"] if self.embedder is None else ["lexical", "vector"]

    def _entry_entities(self, text: str, terms: list[str], limit: int) -> list[EntryEntity]:
        corpus = self._state().entities
        legs = {"lexical": recall_steps.lexical_ranking(self._backend, self.scope, terms, corpus)}
        if self.embedder is not None:
            legs["vector"] = recall_steps.vector_ranking(self._backend, self.scope, self.embedder, text)
        return recall_steps.fuse(self._backend, self.scope, legs, limit)

    def _store_embeddings(self, entities: list[dict[str, Any]]) -> None:
        if self.embedder is None or not entities:
            return
        vectors = self.embedder.embed([e["name"] for e in entities])
        self._backend.write(Q.SET_EMBEDDINGS, {
            "scope": self.scope, "model": self.embedder.name,
            "rows": [{"key": e["key"], "vector": v} for e, v in zip(entities, vectors, strict=True)],
        })

    # -- export and import ---------------------------------------------------------------------------

    def export(self, *, scope: str | None = None) -> Iterator[str]:
        """The scope as JSON Lines: a header, entities, aliases, every fact record with its history,
        rejections and the audit log."""
        params = {"scope": self._scope_arg(scope)}
        yield json.dumps({"kind": "header", "format": EXPORT_FORMAT, "scope": self.scope})
        for row in self._backend.read(Q.EXPORT_ENTITIES, params):
            yield json.dumps({"kind": "entity", **_entity(row).model_dump(mode="json")})
        for row in self._backend.read(Q.EXPORT_ALIASES, params):
            yield json.dumps({"kind": "alias", **row})
        for row in self._backend.read(Q.EXPORT_FACTS, params):
            record = _record(row)
            yield json.dumps(
                {
                    "kind": "fact",
                    "id": record.id,
                    "subject": record.subject,
                    "predicate": record.predicate,
                    "object": record.object,
                    **{k: _iso(getattr(record, k)) for k in _TIME_FIELDS},
                    "confidence": record.confidence,
                    "confirmations": record.confirmations,
                    "source": record.provenance.source,
                    "client": record.provenance.client,
                    "model": record.provenance.model,
                    "session": record.provenance.session,
                    "status": record.status,
                    "flag": record.flag,
                }
            )
        for row in self._backend.read(Q.EXPORT_TOMBSTONES, params):
            yield json.dumps({"kind": "rejection", **row, "rejected_at": _iso(row["rejected_at"])})
        for row in self._backend.read(Q.AUDIT_LOG, {**params, "entity": None, "limit": 10**9}):
            yield json.dumps({"kind": "audit", **_audit(row).model_dump(mode="json")})

    def import_(
        self, lines: Iterable[str] | str | os.PathLike[str], *, batch_size: int = 2_000, progress: Any = None
    ) -> WriteResult:
        """Load an export (a path or an iterable of JSON lines) into this memory's scope, losslessly.

        Records keep their ids and all temporal fields; records whose id the scope
        already holds are skipped, so importing twice changes nothing. Rejections and
        the audit log are restored into a scope that was never written. Each chunk of
        ``batch_size`` records is one transaction. ``progress`` is called with the
        number of records written after each chunk.
        """
        source = Path(lines).read_text(encoding="utf-8").splitlines() if isinstance(lines, str | os.PathLike) else lines
        entities: list[dict[str, Any]] = []
        aliases: list[dict[str, Any]] = []
        records: list[Record] = []
        tombstones: list[dict[str, Any]] = []
        log: list[dict[str, Any]] = []
        for number, line in enumerate(source, start=1):
            if not line.strip():
                continue
            try:
                item = json.loads(line)
                kind = item["kind"]
                if kind == "entity":
                    entities.append(self._import_entity(item))
                elif kind == "alias":
                    alias_name = self._name(item["name"], "alias")
                    aliases.append(_alias_row(alias_name.key, alias_name.display,
                                              self._name(item["target"], "alias target").key))
                elif kind == "fact":
                    records.append(self._import_record(item))
                elif kind == "rejection":
                    tombstones.append({
                        "scope": self.scope, "subject": self._name(item["subject"], "subject").key,
                        "predicate": check_predicate(item["predicate"]),
                        "object": self._name(item["object"], "object").key,
                        "reason": self._text(item["reason"], "reason", 500),
                        "rejected_at": to_micros(item["rejected_at"], field="rejected_at"),
                        "by": self._text(item.get("by"), "by", 200),
                    })
                elif kind == "audit":
                    entry = AuditEntry.model_validate({k: v for k, v in item.items() if k != "kind"})
                    log.append({**entry.model_dump(), "scope": self.scope, "at": to_micros(entry.at),
                                "detail": json.dumps(entry.detail, sort_keys=True)})
                elif kind != "header":
                    raise InvalidInputError(f"unknown kind {kind!r}")
            except (KeyError, TypeError, ValueError, json.JSONDecodeError) as exc:
                raise InvalidInputError(f"import line {number} is not a valid export line: {exc}") from exc
        result = WriteResult()

        def build_entities(state: _ScopeState, now: int) -> _Changes:
            changes = _Changes(action="import")
            existing = self._lookup([_Name(e["name"], e["key"]) for e in entities]
                                    + [_Name(a["name"], a["key"]) for a in aliases])
            changes.entities = {e["key"]: e for e in entities if e["key"] not in existing}
            changes.aliases = [a for a in aliases if existing.get(a["key"]) != a["target"]]
            if state.version == 0:
                changes.tombstones, changes.imported_audit = tombstones, log
            return changes

        # A fact needs both its entities: defined by the file or already in the scope (checked before
        # anything is written; a fact whose entity is missing would otherwise be dropped while counted).
        referenced = {k for r in records for k in (r.subject, r.object)} - {e["key"] for e in entities}
        unknown = sorted(referenced - set(self._lookup([_Name(k, k) for k in referenced]))) if referenced else []
        if unknown:
            raise InvalidInputError(
                f"the import's facts refer to {len(unknown)} entities that neither the file nor scope "
                f"{self.scope!r} holds, e.g. {unknown[0][:70]!r}; add their entity lines. Nothing was written."
            )
        created = self._transact(build_entities, result)
        result.entities_created = len(created.entities)
        for start in range(0, len(records), batch_size):
            chunk = records[start : start + batch_size]

            def build_records(state: _ScopeState, now: int, chunk: list[Record] = chunk) -> _Changes:
                changes = _Changes(action="import")
                known = {
                    row["id"]
                    for row in self._backend.read(Q.EXISTING_IDS, {"scope": self.scope, "ids": [r.id for r in chunk]})
                }
                fresh = [r for r in chunk if r.id not in known]
                # A key that is an alias in this scope stands for its entity, as it does in every write.
                keys = self._lookup([_Name(k, k) for r in fresh for k in (r.subject, r.object)])
                lost = sorted({k for r in fresh for k in (r.subject, r.object)} - set(keys))
                if lost:
                    raise InvalidInputError(f"entities {lost[:3]} were removed from scope {self.scope!r} during "
                                            "the import; import the file again")
                changes.plan = Plan(creates=[replace(r, subject=keys[r.subject], object=keys[r.object])
                                             for r in fresh])
                changes.plan.created = len(changes.plan.creates)
                return changes

            self._transact(build_records, result)
            if progress is not None:
                progress(len(chunk))
        return result

    def _import_entity(self, item: Mapping[str, Any]) -> dict[str, Any]:
        name = self._name(item["name"], "entity name")
        row = _entity_row(name.key, name.display, self._text(item.get("type"), "entity type", 64),
                          to_micros(item["created_at"], field="created_at"))
        row["updated_at"] = to_micros(item["updated_at"], field="updated_at")
        # Set when the entity is created, so that its exported updated_at is kept as well.
        row["aliases"] = [self._name(a, "alias").display for a in item.get("aliases") or []]
        return row

    def _import_record(self, item: Mapping[str, Any]) -> Record:
        times = {k: None if item.get(k) is None else to_micros(item[k], field=k) for k in _TIME_FIELDS}
        valid_at, recorded_at = times["valid_at"], times["recorded_at"]
        if valid_at is None or recorded_at is None:
            raise InvalidInputError("a fact needs valid_at and recorded_at")
        confidence = float(item["confidence"])
        if not 0.0 <= confidence <= 1.0:
            raise InvalidInputError(f"confidence must be between 0 and 1, got {confidence}")
        record_id = item["id"]
        if not isinstance(record_id, str) or not record_id.isalnum() or len(record_id) > 64:
            raise InvalidInputError(f"fact id {str(record_id)[:70]!r} is not an export id")
        return Record(
            id=record_id,
            subject=self._name(item["subject"], "subject").key,
            predicate=check_predicate(item["predicate"]),
            object=self._name(item["object"], "object").key,
            valid_at=valid_at,
            invalid_at=times["invalid_at"],
            recorded_at=recorded_at,
            expired_at=times["expired_at"],
            status=_status(item.get("status")),
            flag=self._text(item.get("flag"), "flag", 600),
            confidence=confidence,
            confirmations=int(item["confirmations"]),
            provenance=Provenance(
                source=self._text(item.get("source"), "source"),
                client=self._text(item.get("client"), "client"),
                model=self._text(item.get("model"), "model", 200),
                session=self._text(item.get("session"), "session", 200),
            ),
        )


_TIME_FIELDS = ("valid_at", "invalid_at", "recorded_at", "expired_at")


def _declared_types(writes: Iterable[tuple[_Name, str, _Name, Any, Any, Any, Any, Triple]]) -> dict[str, str | None]:
    """Entity types a batch declares; a mention without a type never erases one given elsewhere."""
    types: dict[str, str | None] = {}
    for subject, _, obj, *_, triple in writes:
        for name, kind in ((subject, triple.subject_type), (obj, triple.object_type)):
            if kind is not None or name.key not in types:
                types[name.key] = kind if kind is not None else types.get(name.key)
    return types


@lru_cache(maxsize=65_536)
def _checked_name(raw: str, mode: SecretMode) -> tuple[_Name, tuple[str, ...]] | None:
    """A name cleaned and redacted, with the kinds of secrets removed; None if it is invalid.

    Cached: a batch names the same entities many times, and the rules are pure.
    """
    try:
        redacted = guard(clean_name(raw), mode, field="name")
        display = clean_name(redacted.text)
    except InvalidInputError:
        return None
    return _Name(display, name_key(display)), redacted.kinds


def _entity_row(key: str, name: str, kind: str | None, now: int) -> dict[str, Any]:
    return {"key": key, "name": name, "type": kind, "created_at": now, "updated_at": now,
            "search_text": search_text(name, kind)}


def _alias_row(key: str, name: str, target: str) -> dict[str, Any]:
    return {"key": key, "name": name, "target": target, "search_text": search_text(name)}


_TRIPLE_FIELDS = ("subject", "predicate", "object")


def _as_triples(triples: TripleInput | Iterable[TripleInput]) -> list[Triple]:
    if isinstance(triples, Triple | Mapping) or (
        isinstance(triples, tuple)
        and len(triples) == 3
        and not any(isinstance(x, Triple | Mapping | tuple | list) for x in triples)
    ):
        items: list[Any] = [triples]
    else:
        items = list(triples)
    result: list[Triple] = []
    for item in items:
        try:
            if isinstance(item, Triple):
                result.append(item)
                continue
            fields = dict(item) if isinstance(item, Mapping) else dict(zip(_TRIPLE_FIELDS, item, strict=True))
            if "predicate" in fields and not isinstance(fields["predicate"], str):
                check_predicate(fields["predicate"])  # raises InvalidPredicateError, not "not a triple"
            result.append(Triple(**fields))
        except InvalidInputError:
            raise
        except (TypeError, ValueError) as exc:
            raise InvalidInputError(f"not a triple: {str(item)[:100]!r} ({exc})") from None
    return result


def _hops(hops: int) -> int:
    if hops not in (1, 2) or isinstance(hops, bool):
        raise InvalidInputError(f"hops must be 1 or 2, got {hops!r}")
    return hops


def _query_text(query: object) -> str:
    if not isinstance(query, str):
        raise InvalidInputError(f"a recall query must be a string, got {type(query).__name__}")
    if len(query) > 4_000:
        raise InvalidInputError(f"a recall query is limited to 4000 characters, got {len(query)}")
    try:  # echoed in the result: text that cannot be encoded would break every reader of it (JSON, the CLI)
        query.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise InvalidInputError(f"a recall query is not valid Unicode text (unpaired surrogate): {exc.reason}"
                                ) from None
    return query


def _limit(limit: int | None, default: int) -> int:
    if limit is None:
        return default
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
        raise InvalidInputError(f"limit must be a positive integer, got {limit!r}")
    return limit


def _count(result: WriteResult | None, changes: _Changes) -> None:
    if result is None:
        return
    result.created += changes.plan.created
    result.confirmed += changes.plan.confirmed
    result.closed += changes.plan.closed
    result.entities_created += len(changes.entities)


def _record(row: Mapping[str, Any]) -> Record:
    return Record(
        id=row["id"],
        subject=row["subject"],
        predicate=row["predicate"],
        object=row["object"],
        valid_at=row["valid_at"],
        invalid_at=row["invalid_at"],
        recorded_at=row["recorded_at"],
        expired_at=row["expired_at"],
        confidence=float(row["confidence"]),
        confirmations=int(row["confirmations"]),
        provenance=Provenance(source=row["source"], client=row["client"], model=row["model"], session=row["session"]),
        status=row.get("status") or "believed",
        flag=row.get("flag"),
    )


def _status(value: object) -> str:
    if value is None:
        return "believed"
    if value not in TRUST_STATES:
        raise InvalidInputError(f"unknown trust state {value!r}; expected one of {TRUST_STATES}")
    return str(value)


def _fact_id(fact: Fact | str) -> str:
    fact_id = fact.id if isinstance(fact, Fact) else fact
    if not isinstance(fact_id, str) or not fact_id.isalnum() or len(fact_id) > 64:
        raise InvalidInputError(f"not a fact id: {str(fact_id)[:70]!r}; pass a Fact or its id")
    return fact_id


def _audit(row: Mapping[str, Any]) -> AuditEntry:
    return AuditEntry(
        id=row["id"], at=from_micros(row["at"]), action=row["action"], client=row["client"], source=row["source"],
        model=row["model"], session=row["session"], entities=list(row["entities"] or []),
        facts=list(row["facts"] or []), detail=json.loads(row["detail"] or "{}"), secrets=list(row["secrets"] or []),
    )


def _combine(*plans: Plan) -> Plan:
    combined = Plan()
    for plan in plans:
        combined.creates += plan.creates
        combined.expires += plan.expires
        combined.updates += plan.updates
        combined.created += plan.created
        combined.confirmed += plan.confirmed
        combined.closed += plan.closed
    return combined


def _fact(row: Mapping[str, Any]) -> Fact:
    return Fact(
        id=row["id"],
        subject=row["subject"],
        predicate=row["predicate"],
        object=row["object"],
        valid_at=from_micros(row["valid_at"]),
        invalid_at=None if row["invalid_at"] is None else from_micros(row["invalid_at"]),
        recorded_at=from_micros(row["recorded_at"]),
        expired_at=None if row["expired_at"] is None else from_micros(row["expired_at"]),
        confidence=float(row["confidence"]),
        confirmations=int(row["confirmations"]),
        source=row["source"],
        client=row["client"],
        model=row["model"],
        session=row["session"],
        status=row.get("status") or "believed",
        flag=row.get("flag"),
    )


def _entity(row: Mapping[str, Any]) -> Entity:
    return Entity(
        name=row["name"],
        key=row["key"],
        aliases=list(row["aliases"] or []),
        type=row["type"],
        created_at=from_micros(row["created_at"]),
        updated_at=from_micros(row["updated_at"]),
    )


def _iso(micros: int | None) -> str | None:
    return None if micros is None else from_micros(micros).isoformat()
