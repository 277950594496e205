"""Trust states, review and feedback rules, and what the audit log records."""

from __future__ import annotations

import heapq
from collections.abc import Iterable, Mapping
from typing import Any, Literal

from synapse_graph.errors import InvalidInputError
from synapse_graph.rules.timeline import Plan, Record

TrustState = Literal["believed", "candidate", "disputed"]
Verdict = Literal["helpful", "stale", "wrong"]
TRUST_STATES: tuple[TrustState, ...] = ("believed", "candidate", "disputed")
TIMELINE_STATES = ("believed", "disputed")
"""States that take part in a timeline: a candidate never closes a believed value."""
DEFAULT_CANDIDATE_BELOW = 0.6


def check_verdict(verdict: object) -> Verdict:
    if verdict == "helpful":
        return "helpful"
    if verdict == "stale":
        return "stale"
    if verdict == "wrong":
        return "wrong"
    raise InvalidInputError(f"feedback must be 'helpful', 'stale' or 'wrong', not {verdict!r}")


def reading_states(include_candidates: bool, include_disputed: bool) -> list[str]:
    """Trust states a read returns: believed facts, plus those asked for."""
    return ["believed", *(["candidate"] if include_candidates else []), *(["disputed"] if include_disputed else [])]


def after_feedback(confidence: float, status: str, verdict: Verdict) -> tuple[float, str]:
    """Confidence and state after feedback: helpful raises (and ends a dispute), stale/wrong lower and dispute."""
    if verdict == "helpful":
        return min(1.0, round(confidence + 0.1, 6)), ("believed" if status == "disputed" else status)
    factor = 0.5 if verdict == "stale" else 0.2
    return round(confidence * factor, 6), ("disputed" if status == "believed" else status)


def rejection_flag(reason: str, rejected_at_iso: str) -> str:
    return f"rejected before ({rejected_at_iso}): {reason}"


def _mutable(record: Record) -> dict[str, Any]:
    return {"confidence": record.confidence, "confirmations": record.confirmations, "status": record.status,
            "pinned": record.pinned}


def audit_detail(plan: Plan, before: Iterable[Record] = (), **extra: Any) -> dict[str, Any]:
    """What a mutation changed: ids of the records created and expired, before/after of updated ones.

    Created and expired records stay in the store (expired ones with ``expired_at``), so the
    log names them by id instead of keeping a second copy of them; an update changes a record
    in place, so its old and new confidence, confirmations and state are kept here.
    """
    previous = {r.id: r for r in before}
    detail: dict[str, Any] = {
        "created": [r.id for r in plan.creates],
        "expired": [r.id for r in plan.expires],
        "updated": [{"id": r.id, "before": _mutable(previous[r.id]) if r.id in previous else None,
                     "after": _mutable(r)} for r in plan.updates],
    }
    detail.update({k: v for k, v in extra.items() if v})
    return {k: v for k, v in detail.items() if v}


def logged_facts(detail: Mapping[str, Any]) -> list[str]:
    """The ids of the records an audit entry's detail names: created, expired and updated, sorted."""
    return sorted(_named_facts(detail))


def first_logged_facts(detail: Mapping[str, Any], first: int) -> tuple[list[str], int]:
    """The first ``first`` of :func:`logged_facts` and how many there are (a brief entry: without sorting them all)."""
    named = _named_facts(detail)
    return heapq.nsmallest(first, named), len(named)


def _named_facts(detail: Mapping[str, Any]) -> set[str]:
    def listed(key: str) -> list[Any]:
        value = detail.get(key)
        return value if isinstance(value, list) else []

    updated = [u.get("id") for u in listed("updated") if isinstance(u, Mapping)]
    return {i for i in [*listed("created"), *listed("expired"), *updated] if isinstance(i, str)}


def stored_facts(facts: Iterable[str], detail: Mapping[str, Any]) -> list[str] | None:
    """What an audit entry stores as its record ids: nothing when its detail names exactly those.

    A write's entry names each record in its detail already (created, expired, updated), so the
    log keeps one copy and reads the list back from the detail (:func:`logged_facts`); an imported
    entry whose list says more than its detail keeps its own.
    """
    kept = set(facts)
    return None if kept == _named_facts(detail) else sorted(kept)  # equal sets: equal sorted lists, unsorted


LOGGED_CHANGES = ("created", "expired", "updated", "observed", "forgotten", "entities_merged", "aliases", "rejected")
"""What an entry's detail says the write changed (what keeps an entry worth keeping after an erasure)."""


def _mentions(value: Any, banned: frozenset[str]) -> bool:
    if isinstance(value, str):
        return value in banned
    if isinstance(value, Mapping):
        return any(_mentions(v, banned) for v in value.values())
    if isinstance(value, list | tuple):
        return any(_mentions(v, banned) for v in value)
    return False


def erased_from(entities: Iterable[str], detail: Mapping[str, Any], banned: frozenset[str]
                ) -> tuple[list[str], dict[str, Any]] | None:
    """An audit entry's entity keys and detail with everything that names an erased entity left out: ``banned``
    holds its keys (its name's and its aliases') and the ids of its records and observations. An item of a list
    that names one anywhere goes, and so does any other value that does. None when nothing of another entity's
    change is left: the entry goes whole (its provenance may speak of the erased entity alone)."""
    kept_entities = [k for k in entities if k not in banned]
    kept: dict[str, Any] = {}
    for key, value in detail.items():
        if isinstance(value, list):
            items = [item for item in value if not _mentions(item, banned)]
            if items:
                kept[key] = items
        elif not _mentions(value, banned):
            kept[key] = value
    if not kept_entities or not any(kept.get(key) for key in LOGGED_CHANGES):
        return None
    return kept_entities, kept
