// Observations about the given entities ($keys), as believed at $known_at (null: the current belief;
// $history: every one ever recorded), oldest first. Each entity's observations are sought by the
// (scope, entity) index: the cost is theirs, not the scope's (observations_of lists a whole scope).
UNWIND $keys AS key
MATCH (o:Observation {scope: $scope, entity: key})
WHERE $history OR ($known_at IS NULL AND o.expired_at IS NULL)
      OR (o.recorded_at <= $known_at AND (o.expired_at IS NULL OR o.expired_at > $known_at))
WITH o
ORDER BY o.recorded_at, o.id
LIMIT $limit
MATCH (e:Entity {scope: $scope, key: o.entity})
WITH o, e
ORDER BY o.recorded_at, o.id
RETURN {{observation}} AS observation
