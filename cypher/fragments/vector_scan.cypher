// Recall's vector leg by an exact scan of the scope, as branches (rows: leg, stem, kind, stems, memory, cosine):
// for each kind of $kinds ('observation', 'fact'), the scope's current memories of it (fact records believed
// and valid at $as_of; recorded by $known_at if given) nearest to $vector by the cosine of their embeddings by
// $model, the best $k, whole, with their stems. A small scope is scanned within recall/memory_lexical (cheaper
// than the vector indexes, which other scopes' memories may crowd); a larger one only when the indexes' answer
// held too few of its memories (recall/memory_vector_scan) or hold vectors of another dimension.
// A memory's cosine is $observation_cosines[id] or $fact_cosines[id] when given (computed in process from its
// embedding, which the client keeps: engine/recall_vectors.py), else computed here from its embedding. On Neo4j,
// given $observation_top (the best of those cosines), only those observations are ranked (observations_scanned):
// the caller scans again (recall/memory_vector_scan, without it) when fewer than $k of them are eligible.
WITH {{query_vector($vector)}} AS v WHERE v IS NOT NULL AND 'observation' IN $kinds
{{observations_scanned}}
ORDER BY cosine DESC, o.id
LIMIT $k
MATCH (e:Entity {scope: $scope, key: o.entity})
RETURN 'vector' AS leg, null AS stem, 'observation' AS kind, o.search_text AS stems, {{observation}} AS memory, cosine
UNION ALL
WITH {{query_vector($vector)}} AS v WHERE v IS NOT NULL AND 'fact' IN $kinds
MATCH (a:Entity {scope: $scope})-[r:FACT]->(b:Entity)
WHERE r.embedding_model = $model AND {{state}} = 'believed'
  AND r.valid_at <= $as_of AND (r.invalid_at IS NULL OR r.invalid_at > $as_of)
  AND {{known_then(r)}}
WITH a, r, b, coalesce($fact_cosines[r.id], {{bound_cosine(r.embedding, v)}}) AS cosine
ORDER BY cosine DESC, r.id
LIMIT $k
RETURN 'vector' AS leg, null AS stem, 'fact' AS kind, r.search_text AS stems, {{fact}} AS memory, cosine
