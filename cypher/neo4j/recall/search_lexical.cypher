// Fulltext candidates for recall: entities and aliases whose words match the terms
// (prefix match from 3 letters). Terms are pre-split words of letters and digits only,
// so they cannot carry Lucene syntax. Ranking happens in Python (BM25) for both backends.
WITH reduce(q = '', t IN $terms | q + CASE WHEN q = '' THEN '' ELSE ' OR ' END
            + t + CASE WHEN size(t) >= 3 THEN '*' ELSE '' END) AS q
CALL db.index.fulltext.queryNodes('entity_search', q) YIELD node
WITH node WHERE node.scope = $scope
RETURN coalesce(node.target, node.key) AS key, node.search_text AS text
LIMIT $limit
UNION ALL
WITH reduce(q = '', t IN $terms | q + CASE WHEN q = '' THEN '' ELSE ' OR ' END
            + t + CASE WHEN size(t) >= 3 THEN '*' ELSE '' END) AS q
CALL db.index.fulltext.queryNodes('observation_search', q) YIELD node
WITH node WHERE node.scope = $scope AND node.expired_at IS NULL
RETURN node.entity AS key, node.search_text AS text
LIMIT $limit
