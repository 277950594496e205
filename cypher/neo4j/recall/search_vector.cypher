// Entity names of the scope nearest to the query embedding, as cosine similarity. An exact scan
// of the scope's entities embedded by the current model: the vector index spans every scope,
// and its global top k could all belong to other scopes and leave this one with nothing.
// vector.similarity.cosine gives (1 + cos) / 2.
MATCH (e:Entity {scope: $scope})
WHERE e.embedding IS NOT NULL AND e.embedding_model = $model
WITH e, 2.0 * vector.similarity.cosine(e.embedding, $vector) - 1.0 AS cosine
RETURN e.key AS key, cosine
ORDER BY cosine DESC, key
LIMIT $k
