// Counts a scope's current records by trust state, its entities and rejections, and records its store
// format: the counters that quotas read, measured once when a store of an older format is opened. The
// state moves to its relationship (format 5, fragments/scope_state_for_write); the node keeps the name.
{{scope_state_for_write}}
SET s = {scope: $scope}
WITH s, st
OPTIONAL MATCH (:Entity {scope: $scope})-[r:FACT]->()
WHERE r.expired_at IS NULL
WITH st, sum(CASE WHEN r IS NOT NULL AND {{state}} <> $candidate THEN 1 ELSE 0 END) AS facts,
     sum(CASE WHEN r IS NOT NULL AND r.status = $candidate THEN 1 ELSE 0 END) AS candidates
OPTIONAL MATCH (e:Entity {scope: $scope})
WITH st, facts, candidates, count(e) AS entities
OPTIONAL MATCH (t:Tombstone {scope: $scope})
WITH st, facts, candidates, entities, count(t) AS tombstones
WITH st, facts, candidates, entities, tombstones, st.version AS version  // read first (see writes/apply_plan.cypher)
SET st.format = $format, st.facts = facts, st.candidates = candidates, st.entities = entities,
    st.tombstones = tombstones, st.version = version + 1
RETURN st.format AS format
