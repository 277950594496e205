// FalkorDB's own: how many of the scope's names each term of $terms matches, as branches of term slots: the
// first six (fragments/first_term_slots), then ten more (questions hold at most 16 terms).
{{first_term_slots}}
UNION ALL
WITH $terms[6] AS t WHERE t IS NOT NULL
CALL db.idx.fulltext.queryNodes('Entity', t + CASE WHEN size(t) >= 3 THEN '*' ELSE '' END) YIELD node
WITH t, node WHERE node.scope = $scope
WITH t, node LIMIT $cap
RETURN null AS state, null AS facts, t AS term, count(node) AS hits
UNION ALL
WITH $terms[7] AS t WHERE t IS NOT NULL
CALL db.idx.fulltext.queryNodes('Entity', t + CASE WHEN size(t) >= 3 THEN '*' ELSE '' END) YIELD node
WITH t, node WHERE node.scope = $scope
WITH t, node LIMIT $cap
RETURN null AS state, null AS facts, t AS term, count(node) AS hits
UNION ALL
WITH $terms[8] AS t WHERE t IS NOT NULL
CALL db.idx.fulltext.queryNodes('Entity', t + CASE WHEN size(t) >= 3 THEN '*' ELSE '' END) YIELD node
WITH t, node WHERE node.scope = $scope
WITH t, node LIMIT $cap
RETURN null AS state, null AS facts, t AS term, count(node) AS hits
UNION ALL
WITH $terms[9] AS t WHERE t IS NOT NULL
CALL db.idx.fulltext.queryNodes('Entity', t + CASE WHEN size(t) >= 3 THEN '*' ELSE '' END) YIELD node
WITH t, node WHERE node.scope = $scope
WITH t, node LIMIT $cap
RETURN null AS state, null AS facts, t AS term, count(node) AS hits
UNION ALL
WITH $terms[10] AS t WHERE t IS NOT NULL
CALL db.idx.fulltext.queryNodes('Entity', t + CASE WHEN size(t) >= 3 THEN '*' ELSE '' END) YIELD node
WITH t, node WHERE node.scope = $scope
WITH t, node LIMIT $cap
RETURN null AS state, null AS facts, t AS term, count(node) AS hits
UNION ALL
WITH $terms[11] AS t WHERE t IS NOT NULL
CALL db.idx.fulltext.queryNodes('Entity', t + CASE WHEN size(t) >= 3 THEN '*' ELSE '' END) YIELD node
WITH t, node WHERE node.scope = $scope
WITH t, node LIMIT $cap
RETURN null AS state, null AS facts, t AS term, count(node) AS hits
UNION ALL
WITH $terms[12] AS t WHERE t IS NOT NULL
CALL db.idx.fulltext.queryNodes('Entity', t + CASE WHEN size(t) >= 3 THEN '*' ELSE '' END) YIELD node
WITH t, node WHERE node.scope = $scope
WITH t, node LIMIT $cap
RETURN null AS state, null AS facts, t AS term, count(node) AS hits
UNION ALL
WITH $terms[13] AS t WHERE t IS NOT NULL
CALL db.idx.fulltext.queryNodes('Entity', t + CASE WHEN size(t) >= 3 THEN '*' ELSE '' END) YIELD node
WITH t, node WHERE node.scope = $scope
WITH t, node LIMIT $cap
RETURN null AS state, null AS facts, t AS term, count(node) AS hits
UNION ALL
WITH $terms[14] AS t WHERE t IS NOT NULL
CALL db.idx.fulltext.queryNodes('Entity', t + CASE WHEN size(t) >= 3 THEN '*' ELSE '' END) YIELD node
WITH t, node WHERE node.scope = $scope
WITH t, node LIMIT $cap
RETURN null AS state, null AS facts, t AS term, count(node) AS hits
UNION ALL
WITH $terms[15] AS t WHERE t IS NOT NULL
CALL db.idx.fulltext.queryNodes('Entity', t + CASE WHEN size(t) >= 3 THEN '*' ELSE '' END) YIELD node
WITH t, node WHERE node.scope = $scope
WITH t, node LIMIT $cap
RETURN null AS state, null AS facts, t AS term, count(node) AS hits
