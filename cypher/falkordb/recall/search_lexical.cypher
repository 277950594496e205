// Fulltext candidates for recall: entities and aliases whose words match the terms
// (prefix match from 3 letters). Terms are pre-split words of letters and digits only,
// so they cannot carry query syntax. Ranking happens in Python (BM25) for both backends.
WITH reduce(q = '', t IN $terms | q + CASE WHEN q = '' THEN '' ELSE ' | ' END
            + t + CASE WHEN size(t) >= 3 THEN '*' ELSE '' END) AS q
CALL db.idx.fulltext.queryNodes('Entity', q) YIELD node
WITH node WHERE node.scope = $scope
RETURN node.key AS key, node.search_text AS text
LIMIT $limit
UNION ALL
WITH reduce(q = '', t IN $terms | q + CASE WHEN q = '' THEN '' ELSE ' | ' END
            + t + CASE WHEN size(t) >= 3 THEN '*' ELSE '' END) AS q
CALL db.idx.fulltext.queryNodes('Alias', q) YIELD node
WITH node WHERE node.scope = $scope
RETURN node.target AS key, node.search_text AS text
LIMIT $limit
UNION ALL
WITH reduce(q = '', t IN $terms | q + CASE WHEN q = '' THEN '' ELSE ' | ' END
            + t + CASE WHEN size(t) >= 3 THEN '*' ELSE '' END) AS q
CALL db.idx.fulltext.queryNodes('Observation', q) YIELD node
WITH node WHERE node.scope = $scope AND node.expired_at IS NULL
RETURN node.entity AS key, node.search_text AS text
LIMIT $limit
