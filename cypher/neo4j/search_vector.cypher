// Nearest entity names to the query embedding, as cosine similarity (Neo4j gives (1 + cos) / 2).
CALL db.index.vector.queryNodes('entity_embedding', $k, $vector) YIELD node, score
WITH node, score WHERE node.scope = $scope
RETURN node.key AS key, 2.0 * score - 1.0 AS cosine
ORDER BY cosine DESC, key
