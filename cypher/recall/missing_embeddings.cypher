// Entities without an embedding from the current model, for backfilling.
MATCH (e:Entity {scope: $scope})
WHERE e.embedding IS NULL OR e.embedding_model IS NULL OR e.embedding_model <> $model
RETURN e.key AS key, e.name AS name
ORDER BY key
LIMIT $limit
