// Fulltext candidates for recall: entities and aliases whose words match the terms
// (prefix match from 3 letters). Terms are pre-split words of letters and digits only,
// so they cannot carry Lucene syntax. The index orders its matches (best first) and only the
// best $limit of each leg leave the database, one row per leg; ranking happens in Python
// (BM25 over these candidates) for both backends.
WITH reduce(q = '', t IN $terms | q + CASE WHEN q = '' THEN '' ELSE ' OR ' END
            + t + CASE WHEN size(t) >= 3 THEN '*' ELSE '' END) AS q
CALL db.index.fulltext.queryNodes('entity_search', q) YIELD node, score
WITH node, score WHERE node.scope = $scope
WITH coalesce(node.target, node.key) AS key, node.search_text AS text, score
ORDER BY score DESC, key
LIMIT $limit
RETURN collect([key, text]) AS found
UNION ALL
WITH reduce(q = '', t IN $terms | q + CASE WHEN q = '' THEN '' ELSE ' OR ' END
            + t + CASE WHEN size(t) >= 3 THEN '*' ELSE '' END) AS q
CALL db.index.fulltext.queryNodes('observation_search', q) YIELD node, score
WITH node, score WHERE node.scope = $scope AND node.expired_at IS NULL
WITH node.entity AS key, node.search_text AS text, score
ORDER BY score DESC, key
LIMIT $limit
RETURN collect([key, text]) AS found
