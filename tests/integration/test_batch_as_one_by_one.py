"""A batch is the same write as its facts one by one (issue 34: a batch's short ways must not change an outcome): new
facts between new and known entities, a single-valued value closing a stored one, a value arriving late, a fact
stored already and one given twice, side by side in one batch, leave the records, the history and the changes (with
the verdicts the batch's entry stores, and judged when read) that the same facts written one at a time leave, on
both backends. (Not two values of one timeline: one by one, the first is stored, then closed.)"""

from __future__ import annotations

import json
import uuid
from datetime import UTC, datetime
from typing import Any

from synapse_graph import Memory, Triple
from tests.integration.helpers import raw_cypher

KNOWN = [  # every fact with its valid_at: a default (the write's instant) differs write by write
        Triple(subject="Dana", predicate="LIVES_IN", object="Paris", valid_at="2019-01-01"),
         Triple(subject="Dana", predicate="WORKS_AT", object="Acme", valid_at="2020-01-01"),
         Triple(subject="Eve", predicate="WORKS_AT", object="Initech", valid_at="2021-01-01"),
         Triple(subject="Bob", predicate="KNOWS", object="Carol", valid_at="2017-01-01")]
BATCH = [Triple(subject="Dana", predicate="LIVES_IN", object="London", valid_at="2022-09-15"),  # closes Paris
         Triple(subject="Frank", predicate="KNOWS", object="Grace", valid_at="2023-01-01"),  # new entities
         Triple(subject="Bob", predicate="KNOWS", object="Dana", valid_at="2023-01-01"),  # known ones
         Triple(subject="Dana", predicate="WORKS_AT", object="Acme", valid_at="2020-01-01"),  # stored already
         Triple(subject="Eve", predicate="WORKS_AT", object="Globex", valid_at="2020-01-01"),  # late: ends at Initech
         Triple(subject="Frank", predicate="LIKES", object="Tea", valid_at="2023-01-01"),
         Triple(subject="Frank", predicate="LIKES", object="Tea", valid_at="2023-01-01")]  # twice in the batch


def _records(memory: Memory) -> list[tuple[Any, ...]]:
    """Every fact record, history included, without its id and belief times (two writes differ there)."""
    names: dict[str, str] = {}
    facts: list[dict[str, Any]] = []
    for line in map(json.loads, memory.export()):
        if line.get("kind") == "entity":
            names[line["key"]] = line["name"]
        elif line.get("kind") == "fact":
            facts.append(line)
    return sorted([(names[f["subject"]], f["predicate"], names[f["object"]], f["valid_at"], f["invalid_at"],
                   f["expired_at"] is None, f["confidence"], f["confirmations"], f["status"]) for f in facts], key=str)


def _changes(memory: Memory, since: datetime) -> list[tuple[Any, ...]]:
    def said(fact: Any) -> tuple[Any, ...]:
        return () if fact is None else (fact.subject, fact.predicate, fact.object, fact.valid_at, fact.invalid_at)

    return sorted([(c.kind, *said(c.fact), c.why or "", *said(c.superseded_by), *(said(b) for b in c.before))
                  for c in memory.changes(since, limit=1_000).changes], key=str)


def test_a_mixed_batch_leaves_what_its_facts_one_by_one_leave(plain: Memory, backend_settings: dict[str, Any]
                                                              ) -> None:
    settings = dict(backend_settings)
    with Memory(settings.pop("location"), scope=f"test-{uuid.uuid4().hex[:12]}", **settings) as alone:
        try:
            start = datetime.now(UTC)
            for memory in (plain, alone):
                memory.upsert(KNOWN)
            written = datetime.now(UTC)
            result = plain.upsert(BATCH)
            for triple in BATCH:
                alone.upsert(triple)
            assert (result.created, result.confirmed, result.closed) == (5, 2, 1)
            assert _records(plain) == _records(alone)
            assert len(_records(plain)) == 10
            stored = raw_cypher(plain, "MATCH (x:Audit {scope: $scope}) WHERE x.verdicts IS NOT NULL "
                                       "RETURN x.verdicts AS verdicts", scope=plain.scope)
            assert {"a", "e", "x"} <= set("".join(row["verdicts"] for row in stored))
            changes = _changes(plain, written)
            assert changes == _changes(alone, written)
            assert _changes(plain, start) == _changes(alone, start)
            assert sorted(c[0] for c in changes) == ["added"] * 5 + ["ended"]
            raw_cypher(plain, "MATCH (x:Audit {scope: $scope}) WHERE x.verdicts IS NOT NULL SET x.verdicts = null, "
                              "x.verdict_records = null, x.verdict_before = null, x.verdict_by = null, "
                              "x.verdict_why = null, x.verdict_values = null RETURN count(x) AS n", scope=plain.scope)
            assert _changes(plain, written) == changes  # the stored verdicts are what reading judges
        finally:
            alone.purge(scope=alone.scope)
