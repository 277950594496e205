// Stores entity-name embeddings (a LIST<FLOAT> is what Neo4j's vector index reads).
UNWIND $rows AS x
MATCH (e:Entity {scope: $scope, key: x.key})
SET e.embedding = x.vector, e.embedding_model = $model
