// Neo4j's own: its fulltext procedures take Lucene queries over observations and facts, which hold the scope's token.
// Recall's full-text leg over the memories of a scope that holds fewer than $pool of each kind (so every match
// is read; memory_lexical_each asks a larger scope stem by stem): the scope's current observations and fact
// records (believed, valid at $as_of; recorded by $known_at if given) holding any stem of the question
// ($stems: letters and digits only, so they carry no Lucene syntax), scored and cut by fragments/lexical_cut
// (one row: what BM25 needs of every match, and the matches that can make the cut, whole). The query requires
// the scope's token (with no weight), so the index keeps to the scope; only current memories hold the token.
// Its first row (leg 'names') is recall/search_lexical's, as its memory: the entities and aliases the question's
// words match, in the same statement (on Neo4j each statement is a round trip of its own; the larger scope's
// memory_lexical_each goes with search_lexical).
{{names_matched}}
RETURN 'names' AS leg, null AS stem, null AS kind, null AS stems,
       collect([key, text, CASE WHEN own THEN name ELSE e.name END]) AS memory, null AS cosine
UNION ALL
WITH {{memory_tokens()}} + ' +search_text:(' + reduce(q = '', t IN $stems | q + ' ' + t) + ')' AS q
CALL (q) {
  CALL db.index.fulltext.queryNodes('observation_scoped_search', q, {limit: $pool}) YIELD node
  WITH node AS o WHERE o.scope = $scope AND {{known_then(o)}}
  RETURN 'observation' AS kind, o AS m, o.search_text AS stems
  UNION ALL
  CALL db.index.fulltext.queryRelationships('fact_scoped_search', q, {limit: $pool}) YIELD relationship
  WITH relationship AS r
  WHERE {{state}} = 'believed' AND r.valid_at <= $as_of AND (r.invalid_at IS NULL OR r.invalid_at > $as_of)
    AND {{known_then(r)}}
  WITH r, startNode(r) AS a WHERE a.scope = $scope
  RETURN 'fact' AS kind, r AS m, r.search_text AS stems
}
WITH kind, m, stems, null AS hit, null AS floor, null AS capped
{{lexical_cut}}
