// Neo4j's own: its fulltext procedure takes Lucene queries over entities and aliases, which hold the scope's token.
// How many of the scope's names each term matches (prefix match from 3 letters), counted up to $cap
// (rules/recall.py searched_terms). Counted in the index that searches entity names (Neo4j: entities and
// aliases), which keeps to the scope by its token and stops at $cap, so a word every other name holds
// costs $cap index hits, not thousands. A term that matches nothing gives no row (0 hits).
UNWIND $terms AS t
CALL (t) {
  CALL db.index.fulltext.queryNodes('entity_scoped_search',
       '+scope_token:' + $scope_token + '^0 +search_text:' + t + CASE WHEN size(t) >= 3 THEN '*' ELSE '' END,
       {limit: $cap}) YIELD node
  WITH node WHERE node.scope = $scope
  RETURN count(node) AS hits
}
WITH t, hits WHERE hits > 0
RETURN t AS term, hits
