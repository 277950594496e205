// FalkorDB's own: the first six term slots of fragments/term_hits (all of them in recall/state_and_term_hits_few):
// a branch a slot, each counting the scope's names that $terms[i] matches (up to $cap, prefix match from 3
// letters), a row a term that matches any (a LIMIT in a CALL {} applies once, not per row: hence the slots).
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
