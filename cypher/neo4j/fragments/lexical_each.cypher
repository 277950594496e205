// Neo4j's own: its fulltext procedures take Lucene queries over observations and facts, which hold the scope's token.
// Recall's full-text leg over the memories of a larger scope (recall/memory_lexical_each, memory_lexical_alone;
// memory_lexical asks a small one): for each stem
// of the question ($stems: letters and digits only, so they carry no Lucene syntax), the scope's current
// memories holding it, observations and fact records apart (believed, valid at $as_of; recorded by $known_at if
// given), up to $cap of each as the index gives them, then, for the stems common in them, the memories holding
// two of those (one call a kind: "+(search_text:(+a +b) search_text:(+a +c) ...)"); fragments/stem_pools keeps
// $pool of each call's that are a function of the memories (a call that reached $cap gives none: Lucene's best
// hits tie on most scores and ties go by its internal document order, which a write or an import changes), and
// fragments/lexical_cut scores and cuts them (one row: what BM25 needs of every match, and the matches that can
// make the cut, whole). The query requires the scope's token (with no weight), so the index keeps to the scope;
// only current memories hold the token.
UNWIND $stems AS t
CALL (t) {
  CALL db.index.fulltext.queryNodes('observation_scoped_search', {{memory_tokens()}} + ' +search_text:' + t,
       {limit: $cap}) YIELD node
  WITH collect(node) AS pool
  RETURN 'observation' AS kind, size(pool) AS pooled,
         [o IN pool WHERE o.scope = $scope AND {{known_then(o)}}] AS found
  UNION ALL
  CALL db.index.fulltext.queryRelationships('fact_scoped_search', {{memory_tokens()}} + ' +search_text:' + t,
       {limit: $cap}) YIELD relationship
  WITH collect(relationship) AS pool
  RETURN 'fact' AS kind, size(pool) AS pooled,
         [r IN pool WHERE {{state}} = 'believed' AND r.valid_at <= $as_of AND (r.invalid_at IS NULL OR r.invalid_at > $as_of)
                          AND {{known_then(r)}} AND startNode(r).scope = $scope] AS found
}
WITH t AS stem, kind, found, pooled
WITH collect(stem) AS s, collect(kind) AS k, collect(found) AS f, collect(pooled) AS p
WITH s, k, f, p, [x IN $stems WHERE any(g IN range(0, size(s) - 1) WHERE s[g] = x AND p[g] >= $pool)] AS common
WITH s, k, f, p, reduce(q = '', i IN range(0, size(common) - 2) | reduce(a = q, j IN range(i + 1, size(common) - 1) |
       a + ' search_text:(+' + common[i] + ' +' + common[j] + ')')) AS t
CALL (t) {
  UNWIND CASE WHEN t = '' THEN [] ELSE [t] END AS q
  CALL db.index.fulltext.queryNodes('observation_scoped_search', {{memory_tokens()}} + ' +(' + q + ')',
       {limit: $cap}) YIELD node
  RETURN collect(node) AS observations
}
CALL (t) {
  UNWIND CASE WHEN t = '' THEN [] ELSE [t] END AS q
  CALL db.index.fulltext.queryRelationships('fact_scoped_search', {{memory_tokens()}} + ' +(' + q + ')',
       {limit: $cap}) YIELD relationship
  RETURN collect(relationship) AS facts
}
WITH s + [t, t] AS s, k + ['observation', 'fact'] AS k, p + [size(observations), size(facts)] AS p,
     f + [[o IN observations WHERE o.scope = $scope AND {{known_then(o)}}],
          [r IN facts WHERE {{state}} = 'believed' AND r.valid_at <= $as_of
                            AND (r.invalid_at IS NULL OR r.invalid_at > $as_of)
                            AND {{known_then(r)}} AND startNode(r).scope = $scope]] AS f
WITH s, k, f, p, [x IN f | size(x)] AS c, null AS capped
{{stem_pools}}
{{lexical_cut}}
