// Nearest entity names to the query embedding, as cosine similarity (FalkorDB gives distance).
CALL db.idx.vector.queryNodes('Entity', 'embedding', $k, vecf32($vector)) YIELD node, score
WITH node, score WHERE node.scope = $scope
RETURN node.key AS key, 1.0 - score AS cosine
ORDER BY cosine DESC, key
