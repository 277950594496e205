// Neo4j's own: its fulltext procedures take Lucene queries over observations and facts, which hold the scope's token.
// Recall's full-text leg over the memories of a scope that holds fewer than $pool of each kind (so every match
// comes back; memory_lexical_each asks a larger scope stem by stem): the scope's current observations and fact
// records (believed, valid at $as_of; recorded by $known_at if given) holding any stem of the question
// ($stems: letters and digits only, so they carry no Lucene syntax), as rows of the memory's kind, its stems
// (BM25 scores the memories in Python, on both backends alike: rules/stems.py), the memory whole (an
// observation without its entity's name) and the cosine of its embedding to $vector (null without one, or for
// a memory not embedded by $model). The query requires the scope's token (with no weight), so the index keeps
// to the scope; only current memories hold the token.
WITH '+scope_token:' + $scope_token + '^0 +search_text:(' + reduce(q = '', t IN $stems | q + ' ' + t) + ')' AS q
CALL (q) {
  CALL db.index.fulltext.queryNodes('observation_scoped_search', q, {limit: $pool}) YIELD node
  WITH node AS o WHERE o.scope = $scope AND ($known_at IS NULL OR o.recorded_at <= $known_at)
  RETURN 'observation' AS kind, o.search_text AS stems,
         {entity: null, entity_key: o.entity, {{observation_fields}}} AS memory,
         CASE WHEN $vector IS NOT NULL AND o.embedding_model = $model THEN {{cosine(o.embedding, $vector)}} END AS cosine
  UNION ALL
  CALL db.index.fulltext.queryRelationships('fact_scoped_search', q, {limit: $pool}) YIELD relationship
  WITH relationship AS r
  WHERE {{state}} = 'believed' AND r.valid_at <= $as_of AND (r.invalid_at IS NULL OR r.invalid_at > $as_of)
    AND ($known_at IS NULL OR r.recorded_at <= $known_at)
  WITH r, startNode(r) AS a, endNode(r) AS b WHERE a.scope = $scope
  RETURN 'fact' AS kind, r.search_text AS stems, {{fact}} AS memory,
         CASE WHEN $vector IS NOT NULL AND r.embedding_model = $model THEN {{cosine(r.embedding, $vector)}} END AS cosine
}
RETURN 'lexical' AS leg, null AS stem, kind, stems, memory, cosine
{{memory_vector_legs}}
