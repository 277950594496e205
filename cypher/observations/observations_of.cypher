// Observations about the given entities (every entity of the scope when $keys is null), as believed at
// $known_at (null: the current belief; $history: every one ever recorded), oldest first.
MATCH (o:Observation {scope: $scope})
WHERE ($keys IS NULL OR o.entity IN $keys)
  AND ($history OR ($known_at IS NULL AND o.expired_at IS NULL)
       OR (o.recorded_at <= $known_at AND (o.expired_at IS NULL OR o.expired_at > $known_at)))
WITH o  // observations first: FalkorDB otherwise hash-joins every entity of the scope (10 ms at 7.5k entities)
MATCH (e:Entity {scope: $scope, key: o.entity})
WITH o, e
ORDER BY o.recorded_at, o.id
LIMIT $limit
RETURN {{observation}} AS observation
