// The page of entities e found (each once), oldest first (created_at, then key), cut at $limit before their
// observations held at $known_at (null: the current ones) are read: a page costs its own entities.
WITH e
ORDER BY e.created_at, e.key
LIMIT $limit
OPTIONAL MATCH (o:Observation {scope: $scope, entity: e.key})
WHERE ($known_at IS NULL AND o.expired_at IS NULL)
   OR (o.recorded_at <= $known_at AND (o.expired_at IS NULL OR o.expired_at > $known_at))
WITH e, collect(o) AS notes
RETURN {{entity}} AS entity, [o IN notes | {{observation}}] AS observations
ORDER BY e.created_at, e.key
