// Counts a scope's current records by trust state, its entities and rejections, and records its store
// format: the counters that quotas read, measured once when a store of an older format is opened.
MATCH (s:Scope {scope: $scope})
OPTIONAL MATCH (:Entity {scope: $scope})-[r:FACT]->()
WHERE r.expired_at IS NULL
WITH s, sum(CASE WHEN r IS NOT NULL AND {{state}} <> $candidate THEN 1 ELSE 0 END) AS facts,
     sum(CASE WHEN r IS NOT NULL AND r.status = $candidate THEN 1 ELSE 0 END) AS candidates
OPTIONAL MATCH (e:Entity {scope: $scope})
WITH s, facts, candidates, count(e) AS entities
OPTIONAL MATCH (t:Tombstone {scope: $scope})
WITH s, facts, candidates, entities, count(t) AS tombstones
WITH s, facts, candidates, entities, tombstones, s.version AS version  // read first (see writes/apply_plan.cypher)
SET s.format = $format, s.facts = facts, s.candidates = candidates, s.entities = entities,
    s.tombstones = tombstones, s.version = version + 1
RETURN s.format AS format
