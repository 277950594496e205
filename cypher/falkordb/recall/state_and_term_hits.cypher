// FalkorDB's own: its term counts take RediSearch queries over one label, a branch a term slot.
// The scope's state (scope/scope_state) with whether it holds any fact record (recall reads the facts around
// the entities a question names only then: the first one found ends the search) in one row whose term is null,
// then how many of the scope's names each term of the question matches (up to $cap), a row a term that matches
// any: recall's and search's first round trip, in one statement.
{{state_and_facts_row}}
UNION ALL
WITH $terms[0] AS t WHERE t IS NOT NULL
CALL db.idx.fulltext.queryNodes('Entity', t + CASE WHEN size(t) >= 3 THEN '*' ELSE '' END) YIELD node
WITH t, node WHERE node.scope = $scope
WITH t, node LIMIT $cap
RETURN null AS state, null AS facts, t AS term, count(node) AS hits
UNION ALL
WITH $terms[1] AS t WHERE t IS NOT NULL
CALL db.idx.fulltext.queryNodes('Entity', t + CASE WHEN size(t) >= 3 THEN '*' ELSE '' END) YIELD node
WITH t, node WHERE node.scope = $scope
WITH t, node LIMIT $cap
RETURN null AS state, null AS facts, t AS term, count(node) AS hits
UNION ALL
WITH $terms[2] AS t WHERE t IS NOT NULL
CALL db.idx.fulltext.queryNodes('Entity', t + CASE WHEN size(t) >= 3 THEN '*' ELSE '' END) YIELD node
WITH t, node WHERE node.scope = $scope
WITH t, node LIMIT $cap
RETURN null AS state, null AS facts, t AS term, count(node) AS hits
UNION ALL
WITH $terms[3] AS t WHERE t IS NOT NULL
CALL db.idx.fulltext.queryNodes('Entity', t + CASE WHEN size(t) >= 3 THEN '*' ELSE '' END) YIELD node
WITH t, node WHERE node.scope = $scope
WITH t, node LIMIT $cap
RETURN null AS state, null AS facts, t AS term, count(node) AS hits
UNION ALL
WITH $terms[4] AS t WHERE t IS NOT NULL
CALL db.idx.fulltext.queryNodes('Entity', t + CASE WHEN size(t) >= 3 THEN '*' ELSE '' END) YIELD node
WITH t, node WHERE node.scope = $scope
WITH t, node LIMIT $cap
RETURN null AS state, null AS facts, t AS term, count(node) AS hits
UNION ALL
WITH $terms[5] AS t WHERE t IS NOT NULL
CALL db.idx.fulltext.queryNodes('Entity', t + CASE WHEN size(t) >= 3 THEN '*' ELSE '' END) YIELD node
WITH t, node WHERE node.scope = $scope
WITH t, node LIMIT $cap
RETURN null AS state, null AS facts, t AS term, count(node) AS hits
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
