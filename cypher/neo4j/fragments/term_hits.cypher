// Neo4j's own: how many of the scope's names each term of $terms matches (up to $cap), a row a term that
// matches any; its Lucene queries hold the scope's token.
UNWIND $terms AS t
CALL (t) {
  CALL db.index.fulltext.queryNodes('entity_scoped_search',
       '+scope_token:' + $scope_token + '^0 +search_text:' + t + CASE WHEN size(t) >= 3 THEN '*' ELSE '' END,
       {limit: $cap}) YIELD node
  WITH node WHERE node.scope = $scope
  RETURN count(node) AS hits
}
WITH t, hits WHERE hits > 0
RETURN null AS state, null AS facts, t AS term, hits
