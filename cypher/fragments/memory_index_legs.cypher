// Recall's vector legs by the memories' vector indexes (a part of fragments/memory_vector_legs): branches that
// ask the indexes for the nearest $fetch of every scope's memories of each kind and keep the scope's best $k (with
// $fetch 0, none: a scanned scope's recall/memory_lexical_scanned leaves them out). See memory_vector_legs.
UNION ALL
WITH $vector AS v WHERE v IS NOT NULL AND $fetch > 0
{{nearest_observations($fetch, $vector)}}
WITH count(o) AS fetched, collect(CASE WHEN o.scope = $scope AND o.embedding_model = $model
                                        AND {{known_then(o)}} THEN o END) AS kept
WITH kept, $fetch > 0 AND size(kept) < $k AND fetched >= $fetch AS crowded
{{call(crowded)}}
  UNWIND CASE WHEN crowded THEN [true] ELSE [] END AS counting
  MATCH (o:Observation {scope: $scope}) {{scope_seek(o, Observation, id)}}
  o.embedding_model = $model AND {{known_then(o)}}
  WITH o LIMIT $k
  RETURN count(o) AS held
}
WITH kept, held > size(kept) AS short, {{query_vector($vector)}} AS v
UNWIND CASE WHEN short THEN [null] ELSE kept END AS o
WITH o, short, CASE WHEN short THEN null ELSE {{bound_cosine(o.embedding, v)}} END AS cosine
ORDER BY cosine DESC, o.id
LIMIT $k
OPTIONAL MATCH (e:Entity {scope: $scope, key: o.entity})
RETURN CASE WHEN short THEN 'short' ELSE 'vector' END AS leg, null AS stem, 'observation' AS kind,
       o.search_text AS stems, CASE WHEN short THEN null ELSE {{observation}} END AS memory, cosine
UNION ALL
WITH $vector AS v WHERE v IS NOT NULL AND $fetch > 0
{{nearest_facts($fetch, $vector)}}
WITH count(r) AS fetched, collect(CASE WHEN startNode(r).scope = $scope
                                             AND r.embedding_model = $model AND {{state}} = 'believed'
                                             AND r.valid_at <= $as_of AND (r.invalid_at IS NULL OR r.invalid_at > $as_of)
                                             AND {{known_then(r)}} THEN r END) AS kept
WITH kept, $fetch > 0 AND size(kept) < $k AND fetched >= $fetch AS crowded
{{call(crowded)}}
  UNWIND CASE WHEN crowded THEN [true] ELSE [] END AS counting
  MATCH (:Entity {scope: $scope})-[r:FACT]->(:Entity)
  WHERE r.embedding_model = $model AND {{state}} = 'believed'
    AND r.valid_at <= $as_of AND (r.invalid_at IS NULL OR r.invalid_at > $as_of)
    AND {{known_then(r)}}
  WITH r LIMIT $k
  RETURN count(r) AS held
}
WITH kept, held > size(kept) AS short, {{query_vector($vector)}} AS v
UNWIND CASE WHEN short THEN [null] ELSE kept END AS r
WITH r, short, CASE WHEN short THEN null ELSE {{bound_cosine(r.embedding, v)}} END AS cosine
ORDER BY cosine DESC, r.id
LIMIT $k
WITH r, short, cosine, startNode(r) AS a, endNode(r) AS b
RETURN CASE WHEN short THEN 'short' ELSE 'vector' END AS leg, null AS stem, 'fact' AS kind, r.search_text AS stems,
       CASE WHEN short THEN null ELSE {{fact}} END AS memory, cosine
