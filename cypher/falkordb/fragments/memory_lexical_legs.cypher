// FalkorDB's own: its fulltext procedures take RediSearch queries over one label or relationship type, whose memories
// hold the scope's token (store format 15: phrase memory_tokens), the scope property checked too.
// Recall's full-text leg over the memories of a scope that holds fewer than $pool of each kind (so every match
// is read; memory_lexical_each asks a larger scope stem by stem): the scope's current observations and fact
// records (believed, valid at $as_of; recorded by $known_at if given) holding any stem of the question
// ($stems: letters and digits only, so they carry no query syntax), scored and cut by fragments/lexical_cut (one
// row: what BM25 needs of every match, and the matches that can make the cut, whole). Its first rows (leg 'names')
// are recall/search_lexical's, as their memory: the entities and aliases the question's words match, in the same
// statement (a round trip fewer; the larger scope's memory_lexical_each goes with search_lexical).
{{entities_matched}}
RETURN 'names' AS leg, null AS stem, null AS kind, null AS stems, collect([key, text, name]) AS memory, null AS cosine
UNION ALL
{{aliases_matched}}
RETURN 'names' AS leg, null AS stem, null AS kind, null AS stems, collect([key, text, e.name]) AS memory, null AS cosine
UNION ALL
WITH reduce(q = '', t IN $stems | q + CASE WHEN q = '' THEN '' ELSE ' | ' END + t) AS q
CALL { WITH q
  CALL db.idx.fulltext.queryNodes('Observation', '(' + q + ')' + {{memory_tokens()}}) YIELD node
  WITH node AS o
  WHERE o.scope = $scope AND {{known_then(o)}}
  WITH o LIMIT $pool
  RETURN 'observation' AS kind, o AS m, o.search_text AS stems, null AS hit
  UNION ALL
  WITH q
  CALL db.idx.fulltext.queryRelationships('FACT', '(' + q + ')' + {{memory_tokens()}}) YIELD relationship
  WITH relationship AS r
  WHERE {{state}} = 'believed' AND r.valid_at <= $as_of
    AND (r.invalid_at IS NULL OR r.invalid_at > $as_of) AND {{known_then(r)}}
  WITH r, startNode(r) AS a WHERE a.scope = $scope
  WITH r LIMIT $pool
  RETURN 'fact' AS kind, r AS m, r.search_text AS stems, null AS hit
}
WITH kind, m, stems, hit, null AS floor, null AS capped
{{lexical_cut}}
