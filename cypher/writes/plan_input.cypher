// The input of an upsert's plan in one round trip, read holding the scope's lock: the scope's state
// (as scope/scope_state), which of the name keys are entities (with their names) or aliases (as writes/resolve_keys),
// and the current records of each key {slot, subject, predicate, object, since_at} (as
// writes/current_records), asked as if every name were its own entity. A key whose predicate the
// scope's rules call single-valued (stored, else $single_valued, the defaults) asks for every object
// of its (subject, predicate). The planner uses these records only for the keys they cover
// (engine/view.py) and reads again for any other (a name that is an alias, a clock that went back).
// The slot index finds each key's timeline in one sub-query: a batch's read (writes/current_records)
// seeks the records between two entities instead, which a few keys do not repay (each sub-query
// costs a statement ~0.1 ms on FalkorDB).
// A record that answers several keys (one slot asked twice) comes back once.
{{scope_state_for_read}}
WITH s, coalesce(s.single_valued, $single_valued) AS single
OPTIONAL MATCH (e:Entity)
{{key_hint(e)}}
WHERE e.scope = $scope AND e.key IN $names
WITH s, single, collect(e.key) AS entities, {{node_ids(e)}} AS ids, collect(e.name) AS names
OPTIONAL MATCH (al:Alias)
WHERE al.scope = $scope AND al.key IN $names
WITH s, single, entities, ids, names, [x IN collect(al) | {key: x.key, target: x.target}] AS aliases
{{call(single)}}
  UNWIND $keys AS k
  MATCH ()-[r:FACT]->()
  WHERE r.slot = k.slot AND r.expired_at IS NULL AND {{state}} IN $statuses
    AND (k.since_at IS NULL OR r.invalid_at IS NULL OR r.invalid_at >= {{instant(k.since_at)}})
  WITH k, r, startNode(r) AS a, endNode(r) AS b, single
  WHERE a.scope = $scope AND a.key = k.subject AND r.predicate = k.predicate AND (k.object IS NULL OR k.predicate IN single OR b.key = k.object)
  WITH DISTINCT r, a, b
  RETURN collect({{fact}}) AS records
}
RETURN {version: coalesce(s.version, 0), facts: coalesce(s.facts, 0), candidates: s.candidates,
        entities: coalesce(s.entities, 0), tombstones: CASE WHEN s IS NULL THEN 0 ELSE s.tombstones END,
        format: s.format, updated_at: s.updated_at, last_batch: s.last_batch,
        max_facts: s.max_facts, max_entities: s.max_entities, max_candidates: s.max_candidates,
        single_valued: s.single_valued, candidate_below: s.candidate_below,
        merge_duplicates_above: s.merge_duplicates_above} AS state,
       entities, ids, names, aliases, records
