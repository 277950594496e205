"""Trust: review of candidates (approve, reject), feedback on facts, and reading the audit log."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, TypedDict

from synapse_graph.catalogue import Q
from synapse_graph.engine import inputs, reads, rows
from synapse_graph.engine.context import Context
from synapse_graph.engine.io import Op, read
from synapse_graph.engine.view import View
from synapse_graph.engine.writes import Mutation
from synapse_graph.errors import InvalidInputError, NotFoundError
from synapse_graph.instants import Instant
from synapse_graph.models import AuditEntry, Fact, TimeInput
from synapse_graph.rules.cursors import audit_cursor, read_audit_cursor
from synapse_graph.rules.timeline import Provenance, Record, TimelinePlanner, Write
from synapse_graph.rules.trust import TIMELINE_STATES, Verdict, after_feedback


def record_by_id(ctx: Context, fact_id: str) -> Op[tuple[Record, Fact]]:
    """A current record by id, as the planner and as the user see it."""
    found = yield from read(Q.RECORD_BY_ID, {"scope": ctx.scope, "id": fact_id, "known_at": None,
                                              "candidate": "candidate"})
    if not found:
        raise NotFoundError(f"no current fact with id {fact_id!r} in scope {ctx.scope!r}; it may have been "
                            "superseded (its successor has a new id) or purged: read the facts again")
    return rows.record(found[0]["fact"]), rows.fact(found[0]["fact"], found[0]["links"])


def _candidate(ctx: Context, fact_id: str) -> Op[Record]:
    record, _ = yield from record_by_id(ctx, fact_id)
    if record.status != "candidate":
        raise InvalidInputError(f"fact {fact_id!r} is {record.status}, not a candidate waiting for review")
    return record


def approve(view: View, fact_id: str) -> Op[tuple[Mutation | None, None]]:
    """Believe a candidate: it joins its timeline as if written now (closing single-valued values), with
    the confirmations it gathered as a candidate."""
    record = yield from _candidate(view.ctx, fact_id)
    current = yield from view.current([(record.subject, record.predicate, None, None)], TIMELINE_STATES)
    planner = TimelinePlanner(current, now=view.now)
    planner.add(Write(
        subject=record.subject, predicate=record.predicate, object=record.object, valid_at=record.valid_at,
        invalid_at=record.invalid_at, confidence=record.confidence, provenance=record.provenance,
        single_valued=record.predicate in view.state.rules.single_valued, confirmations=record.confirmations,
    ))
    plan = planner.plan()
    plan.expires.append(record)
    view.add(plan)
    # The entry names the reviewer as its client; what was approved keeps its own provenance (source, model).
    return Mutation.of(view, "approve", replace(record.provenance, client=view.ctx.client)), None


def reject(view: View, fact_id: str, reason: str) -> Op[tuple[Mutation | None, None]]:
    """Refuse a candidate and leave a tombstone: the same fact written again comes back as a flagged candidate."""
    record = yield from _candidate(view.ctx, fact_id)
    view.plan.expires.append(record)
    tombstone = {"scope": view.ctx.scope, "subject": record.subject, "predicate": record.predicate,
                 "object": record.object, "reason": reason, "rejected_at": view.now, "by": view.ctx.client}
    return Mutation.of(view, "reject", Provenance(client=view.ctx.client), tombstones=[tombstone]), None


def feedback(view: View, fact_id: str, verdict: Verdict) -> Op[tuple[Mutation, Fact]]:
    """Raise or lower a fact's confidence; stale or wrong mark it disputed. Returns the mutation and the
    fact as this write leaves it (read under the scope's lock: a later writer cannot turn it into a miss)."""
    record, fact = yield from record_by_id(view.ctx, fact_id)
    confidence, status = after_feedback(record.confidence, record.status, verdict)
    view.plan.updates.append(replace(record, confidence=confidence, status=status))  # type: ignore[arg-type]
    mutation = Mutation.of(view, f"feedback:{verdict}", Provenance(client=view.ctx.client), before=[record])
    return mutation, fact.model_copy(update={"confidence": confidence, "status": status})


def pin(view: View, fact_id: str, pinned: bool) -> Op[tuple[Mutation | None, Fact]]:
    """Pin a fact (it comes first in the digest) or unpin it; a fact already so changes nothing.
    Returns the mutation (None if nothing changed) and the fact as this write leaves it."""
    record, fact = yield from record_by_id(view.ctx, fact_id)
    if record.pinned == pinned:
        return None, fact
    view.plan.updates.append(replace(record, pinned=pinned))
    mutation = Mutation.of(view, "pin" if pinned else "unpin", Provenance(client=view.ctx.client), before=[record])
    return mutation, fact.model_copy(update={"pinned": pinned})


def pending(ctx: Context, limit: int, statuses: list[str]) -> Op[list[Fact]]:
    """Current records in these trust states (candidates waiting for review, disputed facts), oldest first."""
    return (yield from reads.facts(ctx, reads.FactQuery(history=True, statuses=tuple(statuses), limit=limit)))


class AuditFilters(TypedDict, total=False):
    """The filters of ``Memory.audit`` besides ``entity``: each one given narrows the log."""

    action: str
    """An action (``upsert``, ``approve``...) or a kind of one: ``feedback`` matches ``feedback:wrong``."""
    client: str
    session: str
    since: TimeInput
    """Entries at or after this time."""
    until: TimeInput
    """Entries before this time."""
    after: AuditEntry | str
    """The last entry of the page before (or its cursor, ``rules.cursors.audit_cursor``)."""


@dataclass(frozen=True)
class AuditQuery:
    """A checked question about the audit log (see ``Memory.audit``); None: no such filter."""

    entities: list[str] | None = None
    """Keys of the entity asked about and of its aliases."""
    action: str | None = None
    client: str | None = None
    session: str | None = None
    since: Instant | None = None
    until: Instant | None = None
    after: tuple[int, str] | None = None
    """(at, id) of the last entry of the page before."""
    limit: int = 100
    brief: int | None = None
    """Each entry in brief: the first ``brief`` entities and records it touched, and their counts."""

    def params(self, scope: str) -> dict[str, Any]:
        return {"scope": scope, "entities": self.entities, "action": self.action, "client": self.client,
                "session": self.session, "since": self.since, "until": self.until,
                "after_at": None if self.after is None else Instant(self.after[0]),
                "after_id": None if self.after is None else self.after[1], "limit": self.limit, "brief": self.brief}


def audit_query(limit: int, filters: dict[str, Any], brief: int | None = None) -> AuditQuery:
    """The filters of ``Memory.audit`` checked (names, kinds, lengths, cursor), before anything is read."""
    unknown = sorted(set(filters) - set(AuditFilters.__annotations__))
    if unknown:
        raise InvalidInputError(f"audit has no filter {unknown[0]!r}; its filters are entity, "
                                f"{', '.join(AuditFilters.__annotations__)}")
    after = filters.get("after")
    if isinstance(after, AuditEntry):
        after = audit_cursor(after.at, after.id)
    elif after is not None and not isinstance(after, str):
        raise InvalidInputError(f"after must be an AuditEntry or its cursor, not {type(after).__name__}")
    return AuditQuery(
        limit=limit, brief=None if brief is None else inputs.limit(brief, 0, "brief"),
        action=inputs.filter_text(filters.get("action"), "action"),
        client=inputs.filter_text(filters.get("client"), "client"),
        session=inputs.filter_text(filters.get("session"), "session"),
        since=inputs.time(filters.get("since"), "since"), until=inputs.time(filters.get("until"), "until"),
        after=None if after is None else read_audit_cursor(after))


def audit(ctx: Context, ask: AuditQuery) -> Op[list[AuditEntry]]:
    """The audit log, newest first, narrowed by the question's filters."""
    found = yield from read(Q.AUDIT_LOG, ask.params(ctx.scope))
    return [rows.audit(row["entry"], ask.brief) for row in found]
