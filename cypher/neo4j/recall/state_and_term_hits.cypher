// Neo4j's own: its term counts take Lucene queries holding the scope's token.
// The scope's state (scope/scope_state) with whether it holds any fact record (recall reads the facts around
// the entities a question names only then: the first one found ends the search) in one row whose term is null,
// then how many of the scope's names each term of the question matches (up to $cap), a row a term that matches
// any: recall's and search's first round trip, in one statement.
{{state_and_facts_row}}
UNION ALL
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
