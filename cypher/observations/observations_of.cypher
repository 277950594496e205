// Observations about every entity of the scope, as believed at $known_at (null: the current belief;
// $history: every one ever recorded), oldest first (observations_of_entities: about some entities).
// The observations are found and cut first, then their entities: otherwise both planners start from
// every entity of the scope (10 ms on FalkorDB, 20-40 ms on Neo4j at a few thousand entities, with
// no observation at all). An observation always has its entity (a purge removes both).
MATCH (o:Observation {scope: $scope})
WHERE o.entity IS NOT NULL  // always true; lets Neo4j seek its (scope, entity) index by the scope alone
  AND ($history OR ($known_at IS NULL AND o.expired_at IS NULL)
       OR (o.recorded_at <= $known_at AND (o.expired_at IS NULL OR o.expired_at > $known_at)))
WITH o
ORDER BY o.recorded_at, o.id
LIMIT $limit
MATCH (e:Entity {scope: $scope, key: o.entity})
WITH o, e
ORDER BY o.recorded_at, o.id
RETURN {{observation}} AS observation
