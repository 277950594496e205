// Recall's vector leg by an exact scan of the scope (fragments/vector_scan: the kinds in $kinds) and its window
// leg, as branches (a part of fragments/memory_vector_legs; all of recall/memory_lexical_scanned's).
UNION ALL
{{vector_scan}}
UNION ALL
WITH {{query_vector($vector)}} AS v WHERE v IS NOT NULL AND $start IS NOT NULL
MATCH (o:Observation {scope: $scope})
WHERE o.valid_at >= $start AND o.valid_at < $end AND o.embedding_model = $model AND {{known_then(o)}}
WITH o, coalesce($observation_cosines[o.id], {{bound_cosine(o.embedding, v)}}) AS cosine
ORDER BY cosine DESC, o.id
LIMIT $k
MATCH (e:Entity {scope: $scope, key: o.entity})
RETURN 'window' AS leg, null AS stem, 'observation' AS kind, o.search_text AS stems, {{observation}} AS memory, cosine
