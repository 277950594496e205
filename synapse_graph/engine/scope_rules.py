"""Scope rules: quotas, single-valued predicates and the candidate threshold, stored with the scope.

Every client of a scope enforces the rules stored with it, so the CLI, an MCP server and hooks
writing one scope agree. Rules change only by an explicit call (recorded in the audit log); a
memory opened with rules that differ from the stored ones is refused instead of applying its own.
"""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from synapse_graph.engine.view import View
from synapse_graph.engine.writes import Mutation
from synapse_graph.errors import InvalidInputError, ScopeRulesConflictError
from synapse_graph.models import ScopeRules
from synapse_graph.rules.numbers import confidence, count
from synapse_graph.rules.predicates import check_predicate
from synapse_graph.rules.timeline import Provenance


def requested(**given: Any) -> dict[str, Any]:
    """The rules a caller asked for (``None``: not asked), checked."""
    asked = {k: v for k, v in given.items() if v is not None}
    if "single_valued" in asked:
        if isinstance(asked["single_valued"], str):
            raise InvalidInputError("single_valued must be a collection of predicates, e.g. ['LIVES_IN'], not a string")
        asked["single_valued"] = frozenset(check_predicate(p) for p in asked["single_valued"])
    for name in ("max_facts", "max_entities", "max_candidates"):
        if name in asked:
            asked[name] = count(asked[name], field=name)
    for name in ("candidate_below", "merge_duplicates_above"):
        if name in asked:
            asked[name] = confidence(asked[name], field=name)
    try:
        ScopeRules(**{**ScopeRules().model_dump(), **asked})
    except ValidationError as exc:
        first = exc.errors()[0]
        raise InvalidInputError(f"{'.'.join(map(str, first['loc']))}: {first['msg']}") from None
    return asked


def _mutation(view: View, rules: ScopeRules) -> Mutation:
    before = view.state.stored.model_dump(mode="json") if view.state.stored else None
    return Mutation(action="rules", provenance=Provenance(client=view.ctx.client), rules=rules,
                    detail={"rules": {"before": before, "after": rules.model_dump(mode="json")}})


def open_with(view: View, asked: dict[str, Any]) -> Mutation | None:
    """What opening a memory with ``asked`` rules does: nothing if they hold already; store them in a
    scope that has none stored; refuse if they differ from the stored ones."""
    effective = view.state.rules
    differing = {k: v for k, v in asked.items() if getattr(effective, k) != v}
    if not differing:
        return None
    if view.state.stored is not None:
        shown = ", ".join(f"{k}={_show(getattr(effective, k))} (asked {_show(v)})" for k, v in differing.items())
        raise ScopeRulesConflictError(
            f"scope {view.ctx.scope!r} stores other rules: {shown}. Every client enforces the stored rules; open "
            "the Memory without these options to use them, or change them for everyone with "
            "memory.set_rules(...).")
    return _mutation(view, effective.model_copy(update=asked))


def change(view: View, asked: dict[str, Any]) -> tuple[Mutation | None, ScopeRules]:
    """Store changed rules for the scope (the whole set, so later defaults cannot change it)."""
    rules = view.state.rules.model_copy(update=asked)
    if rules == view.state.stored:
        return None, rules
    return _mutation(view, rules), rules


def _show(value: Any) -> str:
    return str(sorted(value)) if isinstance(value, frozenset) else repr(value)
