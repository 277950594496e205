// Entity names of the scope nearest to the query embedding, as cosine similarity. An exact scan
// of the scope's entities embedded by the current model: the vector index spans every scope,
// and its global top k could all belong to other scopes and leave this one with nothing.
WITH {{query_vector($vector)}} AS v
MATCH (e:Entity {scope: $scope})
WHERE e.embedding IS NOT NULL AND e.embedding_model = $model
WITH e, {{bound_cosine(e.embedding, v)}} AS cosine
RETURN e.key AS key, cosine
ORDER BY cosine DESC, key
LIMIT $k
