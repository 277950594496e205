// Neo4j's own: its fulltext procedures take Lucene queries over observations and facts, which hold the scope's token.
// Recall's full-text leg over the memories of a larger scope (memory_lexical asks a small one): for each stem
// of the question ($stems: letters and digits only, so they carry no Lucene syntax), up to $pool of the scope's
// current memories holding it, observations and fact records apart (believed, valid at $as_of; recorded by
// $known_at if given), scored and cut by fragments/lexical_cut (one row: what BM25 needs of every match, and the
// matches that can make the cut, whole). A stem matching more memories than $pool gives $pool of them, and its
// count tells BM25 it is common. Which $pool: the shortest (the size of their search text; BM25 ranks the
// shorter of the memories holding a stem once higher), then the smallest id: a function of the memories alone,
// never the index's order (Lucene's best hits tie on most scores and ties go by its internal document order,
// which a write or an import changes: the answer changed with it, issue 28). The query requires the scope's
// token (with no weight), so the index keeps to the scope; only current memories hold the token.
UNWIND $stems AS t
CALL (t) {
  CALL db.index.fulltext.queryNodes('observation_scoped_search',
       '+scope_token:' + $scope_token + '^0 +search_text:' + t) YIELD node
  WITH node AS o WHERE o.scope = $scope AND ($known_at IS NULL OR o.recorded_at <= $known_at)
  WITH o ORDER BY size(o.search_text), o.id LIMIT $pool
  RETURN 'observation' AS kind, o AS m, o.search_text AS stems
  UNION ALL
  CALL db.index.fulltext.queryRelationships('fact_scoped_search',
       '+scope_token:' + $scope_token + '^0 +search_text:' + t) YIELD relationship
  WITH relationship AS r
  WHERE {{state}} = 'believed' AND r.valid_at <= $as_of AND (r.invalid_at IS NULL OR r.invalid_at > $as_of)
    AND ($known_at IS NULL OR r.recorded_at <= $known_at)
  WITH r, startNode(r) AS a WHERE a.scope = $scope
  WITH r ORDER BY size(r.search_text), r.id LIMIT $pool
  RETURN 'fact' AS kind, r AS m, r.search_text AS stems
}
WITH kind, m, stems, collect(t) AS hit
{{lexical_cut}}
{{memory_vector_legs}}
