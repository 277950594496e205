// Stores entity-name embeddings (FalkorDB needs the vecf32 type for its vector index).
UNWIND $rows AS x
MATCH (e:Entity {scope: $scope, key: x.key})
SET e.embedding = vecf32(x.vector), e.embedding_model = $model
