// A page of the scope's entities, oldest first (created_at, then key), after the cursor ($after_at, $after_key;
// both null on the first page), those that existed at $known_at (null: now), each with the observations it held
// then. The page is cut before the observations are read: a page costs its own entities, not the scope's.
MATCH (e:Entity {scope: $scope})
WHERE ($known_at IS NULL OR e.created_at <= $known_at)
  AND ($after_at IS NULL OR e.created_at > $after_at OR (e.created_at = $after_at AND e.key > $after_key))
WITH e
ORDER BY e.created_at, e.key
LIMIT $limit
OPTIONAL MATCH (o:Observation {scope: $scope, entity: e.key})
WHERE ($known_at IS NULL AND o.expired_at IS NULL)
   OR (o.recorded_at <= $known_at AND (o.expired_at IS NULL OR o.expired_at > $known_at))
WITH e, collect(o) AS notes
RETURN {{entity}} AS entity, [o IN notes | {{observation}}] AS observations
ORDER BY e.created_at, e.key
