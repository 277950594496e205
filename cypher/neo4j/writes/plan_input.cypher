// Neo4j form of ../../writes/plan_input.cypher: the (scope, key) index hint of resolve_keys, the
// current records read by the Neo4j form of fragments/current_of_keys.
{{scope_state_for_read}}
WITH s, coalesce(s.single_valued, $single_valued) AS single
OPTIONAL MATCH (e:Entity)
USING INDEX e:Entity(scope, key)
WHERE e.scope = $scope AND e.key IN $names
WITH s, single, collect(e.key) AS entities, collect(elementId(e)) AS ids
OPTIONAL MATCH (al:Alias)
WHERE al.scope = $scope AND al.key IN $names
WITH s, single, entities, ids, [x IN collect(al) | {key: x.key, target: x.target}] AS aliases
{{current_of_keys}}
RETURN {version: coalesce(s.version, 0), facts: coalesce(s.facts, 0), candidates: s.candidates,
        entities: coalesce(s.entities, 0), tombstones: CASE WHEN s IS NULL THEN 0 ELSE s.tombstones END,
        format: s.format, updated_at: s.updated_at, last_batch: s.last_batch,
        max_facts: s.max_facts, max_entities: s.max_entities, max_candidates: s.max_candidates,
        single_valued: s.single_valued, candidate_below: s.candidate_below} AS state,
       entities, ids, aliases, by_id + by_pair + by_slot AS records
