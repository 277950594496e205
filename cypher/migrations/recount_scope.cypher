// Counts a scope's current records by trust state, its entities and rejections, and records its store
// format: the counters that quotas read, measured once when a store of an older format is opened. The
// state moves to its relationship (format 5, fragments/scope_state_for_write); the node keeps the name.
{{scope_state_for_write}}
SET s = {scope: $scope}
WITH s, st
OPTIONAL MATCH (:Entity {scope: $scope})-[r:FACT]->()
WITH st, sum(CASE WHEN r IS NOT NULL AND r.expired_at IS NULL AND {{state}} <> $candidate THEN 1 ELSE 0 END) AS facts,
     sum(CASE WHEN r IS NOT NULL AND r.expired_at IS NULL AND r.status = $candidate THEN 1 ELSE 0 END) AS candidates,
     sum(CASE WHEN r IS NOT NULL AND r.expired_at IS NOT NULL THEN 1 ELSE 0 END) AS expired,
     sum(CASE WHEN r IS NOT NULL AND r.expired_at IS NULL AND {{state}} <> $candidate AND r.invalid_at IS NOT NULL
                   AND r.ahead IS NULL THEN 1 ELSE 0 END) AS ended
// Current observations count with the facts, as writes count them (engine/writes.py Mutation.counts).
OPTIONAL MATCH (o:Observation {scope: $scope}) {{scope_seek(o, Observation, id)}} o.expired_at IS NULL
WITH st, facts, candidates, expired, ended, count(o) AS observations
WITH st, facts + observations AS facts, candidates, expired, ended
OPTIONAL MATCH (e:Entity {scope: $scope})
WITH st, facts, candidates, expired, ended, count(e) AS entities
OPTIONAL MATCH (t:Tombstone {scope: $scope}) {{scope_seek(t, Tombstone, subject, predicate, object)}} true
WITH st, facts, candidates, expired, ended, entities, count(t) AS tombstones
WITH st, facts, candidates, expired, ended, entities, tombstones, st.version AS version  // read first (apply_plan)
SET st.format = $format, st.facts = facts, st.candidates = candidates, st.entities = entities,
    st.tombstones = tombstones, st.expired = expired, st.ended = ended, st.version = version + 1
RETURN st.format AS format
