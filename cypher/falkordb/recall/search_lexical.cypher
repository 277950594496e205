// FalkorDB's own: its fulltext procedure takes RediSearch queries over one label, filtered by the scope property.
// Fulltext candidates for recall: entities and aliases whose words match the terms
// (prefix match from 3 letters). Terms are pre-split words of letters and digits only,
// so they cannot carry query syntax. The index orders its matches (best first) and only the
// best $limit of each leg leave the database, one row per leg, as [key, text, the entity's name];
// ranking happens in Python (BM25 over these candidates) for both backends. Entities are searched
// for $entity_terms: the question's terms, less those too common to find anything the rarer ones do
// not (rules/recall.py searched_terms), as this index lists every match before it can sort them.
// (Observations are memories of their own: recall searches them apart, recall/memory_lexical.)
WITH reduce(q = '', t IN $entity_terms | q + CASE WHEN q = '' THEN '' ELSE ' | ' END
            + t + CASE WHEN size(t) >= 3 THEN '*' ELSE '' END) AS q
CALL db.idx.fulltext.queryNodes('Entity', q) YIELD node, score
WITH node, score WHERE node.scope = $scope
WITH node.key AS key, node.search_text AS text, node.name AS name, score
ORDER BY score DESC, key
LIMIT $limit
RETURN collect([key, text, name]) AS found
UNION ALL
WITH reduce(q = '', t IN $terms | q + CASE WHEN q = '' THEN '' ELSE ' | ' END
            + t + CASE WHEN size(t) >= 3 THEN '*' ELSE '' END) AS q
CALL db.idx.fulltext.queryNodes('Alias', q) YIELD node, score
WITH node, score WHERE node.scope = $scope
WITH node.target AS key, node.search_text AS text, score
ORDER BY score DESC, key
LIMIT $limit
MATCH (e:Entity {scope: $scope, key: key})
RETURN collect([key, text, e.name]) AS found
