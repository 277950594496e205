// Neo4j form of ../../writes/plan_input.cypher: the (scope, key) index hint and no node ids, as in
// resolve_keys, and since_at arriving as ISO-8601 text (an instant inside a list) turned into a DATETIME.
{{scope_state_for_read}}
WITH s, coalesce(s.single_valued, $single_valued) AS single
OPTIONAL MATCH (e:Entity)
USING INDEX e:Entity(scope, key)
WHERE e.scope = $scope AND e.key IN $names
WITH s, single, collect(e.key) AS entities, [] AS ids
OPTIONAL MATCH (al:Alias)
WHERE al.scope = $scope AND al.key IN $names
WITH s, single, entities, ids, [x IN collect(al) | {key: x.key, target: x.target}] AS aliases
CALL (single) {
  UNWIND $keys AS k
  MATCH ()-[r:FACT]->()
  WHERE r.slot = k.slot AND r.expired_at IS NULL AND {{state}} IN $statuses
    AND (k.since_at IS NULL OR r.invalid_at IS NULL OR r.invalid_at >= datetime(k.since_at))
  WITH k, r, startNode(r) AS a, endNode(r) AS b, single
  WHERE a.scope = $scope AND a.key = k.subject AND r.predicate = k.predicate AND (k.object IS NULL OR k.predicate IN single OR b.key = k.object)
  WITH DISTINCT r, a, b
  RETURN collect({{fact}}) AS records
}
RETURN {version: coalesce(s.version, 0), facts: coalesce(s.facts, 0), candidates: s.candidates,
        entities: coalesce(s.entities, 0), tombstones: CASE WHEN s IS NULL THEN 0 ELSE s.tombstones END,
        format: s.format, updated_at: s.updated_at, last_batch: s.last_batch,
        max_facts: s.max_facts, max_entities: s.max_entities, max_candidates: s.max_candidates,
        single_valued: s.single_valued, candidate_below: s.candidate_below} AS state,
       entities, ids, aliases, records
