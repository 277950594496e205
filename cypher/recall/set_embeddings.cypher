// Stores entity-name embeddings as the dialect's vector index reads them (phrase vector).
UNWIND $rows AS x
MATCH (e:Entity {scope: $scope, key: x.key})
SET e.embedding = {{vector(x.vector)}}, e.embedding_model = $model
