// FalkorDB's own: its fulltext procedure takes RediSearch queries over one label, filtered by the scope property.
// How many of the scope's names each term matches (prefix match from 3 letters), counted up to $cap
// (rules/recall.py searched_terms). Counted in the index that searches entity names (FalkorDB: Entity),
// stopping at $cap, so a word every other name holds costs $cap index hits, not thousands.
// One branch per term slot (FalkorDB applies a LIMIT inside CALL {} once, not per row): slots up to
// rules/recall.py MAX_TERMS; a term past them, or one that matches nothing, gives no row (0 hits).
WITH $terms[0] AS t WHERE t IS NOT NULL
CALL db.idx.fulltext.queryNodes('Entity', t + CASE WHEN size(t) >= 3 THEN '*' ELSE '' END) YIELD node
WITH t, node WHERE node.scope = $scope
WITH t, node LIMIT $cap
RETURN t AS term, count(node) AS hits
UNION ALL
WITH $terms[1] AS t WHERE t IS NOT NULL
CALL db.idx.fulltext.queryNodes('Entity', t + CASE WHEN size(t) >= 3 THEN '*' ELSE '' END) YIELD node
WITH t, node WHERE node.scope = $scope
WITH t, node LIMIT $cap
RETURN t AS term, count(node) AS hits
UNION ALL
WITH $terms[2] AS t WHERE t IS NOT NULL
CALL db.idx.fulltext.queryNodes('Entity', t + CASE WHEN size(t) >= 3 THEN '*' ELSE '' END) YIELD node
WITH t, node WHERE node.scope = $scope
WITH t, node LIMIT $cap
RETURN t AS term, count(node) AS hits
UNION ALL
WITH $terms[3] AS t WHERE t IS NOT NULL
CALL db.idx.fulltext.queryNodes('Entity', t + CASE WHEN size(t) >= 3 THEN '*' ELSE '' END) YIELD node
WITH t, node WHERE node.scope = $scope
WITH t, node LIMIT $cap
RETURN t AS term, count(node) AS hits
UNION ALL
WITH $terms[4] AS t WHERE t IS NOT NULL
CALL db.idx.fulltext.queryNodes('Entity', t + CASE WHEN size(t) >= 3 THEN '*' ELSE '' END) YIELD node
WITH t, node WHERE node.scope = $scope
WITH t, node LIMIT $cap
RETURN t AS term, count(node) AS hits
UNION ALL
WITH $terms[5] AS t WHERE t IS NOT NULL
CALL db.idx.fulltext.queryNodes('Entity', t + CASE WHEN size(t) >= 3 THEN '*' ELSE '' END) YIELD node
WITH t, node WHERE node.scope = $scope
WITH t, node LIMIT $cap
RETURN t AS term, count(node) AS hits
UNION ALL
WITH $terms[6] AS t WHERE t IS NOT NULL
CALL db.idx.fulltext.queryNodes('Entity', t + CASE WHEN size(t) >= 3 THEN '*' ELSE '' END) YIELD node
WITH t, node WHERE node.scope = $scope
WITH t, node LIMIT $cap
RETURN t AS term, count(node) AS hits
UNION ALL
WITH $terms[7] AS t WHERE t IS NOT NULL
CALL db.idx.fulltext.queryNodes('Entity', t + CASE WHEN size(t) >= 3 THEN '*' ELSE '' END) YIELD node
WITH t, node WHERE node.scope = $scope
WITH t, node LIMIT $cap
RETURN t AS term, count(node) AS hits
UNION ALL
WITH $terms[8] AS t WHERE t IS NOT NULL
CALL db.idx.fulltext.queryNodes('Entity', t + CASE WHEN size(t) >= 3 THEN '*' ELSE '' END) YIELD node
WITH t, node WHERE node.scope = $scope
WITH t, node LIMIT $cap
RETURN t AS term, count(node) AS hits
UNION ALL
WITH $terms[9] AS t WHERE t IS NOT NULL
CALL db.idx.fulltext.queryNodes('Entity', t + CASE WHEN size(t) >= 3 THEN '*' ELSE '' END) YIELD node
WITH t, node WHERE node.scope = $scope
WITH t, node LIMIT $cap
RETURN t AS term, count(node) AS hits
UNION ALL
WITH $terms[10] AS t WHERE t IS NOT NULL
CALL db.idx.fulltext.queryNodes('Entity', t + CASE WHEN size(t) >= 3 THEN '*' ELSE '' END) YIELD node
WITH t, node WHERE node.scope = $scope
WITH t, node LIMIT $cap
RETURN t AS term, count(node) AS hits
UNION ALL
WITH $terms[11] AS t WHERE t IS NOT NULL
CALL db.idx.fulltext.queryNodes('Entity', t + CASE WHEN size(t) >= 3 THEN '*' ELSE '' END) YIELD node
WITH t, node WHERE node.scope = $scope
WITH t, node LIMIT $cap
RETURN t AS term, count(node) AS hits
UNION ALL
WITH $terms[12] AS t WHERE t IS NOT NULL
CALL db.idx.fulltext.queryNodes('Entity', t + CASE WHEN size(t) >= 3 THEN '*' ELSE '' END) YIELD node
WITH t, node WHERE node.scope = $scope
WITH t, node LIMIT $cap
RETURN t AS term, count(node) AS hits
UNION ALL
WITH $terms[13] AS t WHERE t IS NOT NULL
CALL db.idx.fulltext.queryNodes('Entity', t + CASE WHEN size(t) >= 3 THEN '*' ELSE '' END) YIELD node
WITH t, node WHERE node.scope = $scope
WITH t, node LIMIT $cap
RETURN t AS term, count(node) AS hits
UNION ALL
WITH $terms[14] AS t WHERE t IS NOT NULL
CALL db.idx.fulltext.queryNodes('Entity', t + CASE WHEN size(t) >= 3 THEN '*' ELSE '' END) YIELD node
WITH t, node WHERE node.scope = $scope
WITH t, node LIMIT $cap
RETURN t AS term, count(node) AS hits
UNION ALL
WITH $terms[15] AS t WHERE t IS NOT NULL
CALL db.idx.fulltext.queryNodes('Entity', t + CASE WHEN size(t) >= 3 THEN '*' ELSE '' END) YIELD node
WITH t, node WHERE node.scope = $scope
WITH t, node LIMIT $cap
RETURN t AS term, count(node) AS hits
