// Neo4j's own: its fulltext procedures take Lucene queries over observations and facts, which hold the scope's token.
// Recall's full-text leg over the memories of a larger scope (memory_lexical asks a small one): for each stem
// of the question ($stems: letters and digits only, so they carry no Lucene syntax), the index's best $pool of
// the scope's current memories holding it, observations and fact records apart (believed, valid at $as_of;
// recorded by $known_at if given), scored and cut by fragments/lexical_cut (one row: what BM25 needs of every
// match, and the matches that can make the cut, whole). A stem matching more memories than $pool gives $pool
// of them, and its count tells BM25 it is common. The query requires the scope's token (with no weight), so the
// index keeps to the scope and cuts its best hits itself; only current memories hold the token.
UNWIND $stems AS t
CALL (t) {
  CALL db.index.fulltext.queryNodes('observation_scoped_search', '+scope_token:' + $scope_token + '^0 +search_text:' + t,
       {limit: $pool}) YIELD node
  WITH node AS o WHERE o.scope = $scope AND ($known_at IS NULL OR o.recorded_at <= $known_at)
  RETURN 'observation' AS kind, o AS m, o.search_text AS stems
  UNION ALL
  CALL db.index.fulltext.queryRelationships('fact_scoped_search', '+scope_token:' + $scope_token + '^0 +search_text:' + t,
       {limit: $pool}) YIELD relationship
  WITH relationship AS r
  WHERE {{state}} = 'believed' AND r.valid_at <= $as_of AND (r.invalid_at IS NULL OR r.invalid_at > $as_of)
    AND ($known_at IS NULL OR r.recorded_at <= $known_at)
  WITH r, startNode(r) AS a WHERE a.scope = $scope
  RETURN 'fact' AS kind, r AS m, r.search_text AS stems
}
WITH kind, m, stems, collect(t) AS hit
{{lexical_cut}}
{{memory_vector_legs}}
