// Recall's vector and window legs (with a $vector; nothing without), as branches that end a recall/memory_lexical
// statement (its rows: leg, stem, kind, stems, memory, cosine): the scope's current observations and fact
// records (believed, valid at $as_of; recorded by $known_at if given) nearest to $vector by the cosine of their
// embeddings by $model, the best $k of each kind, whole, with their stems (an exact scan of the scope's
// memories: the vector indexes span every scope, and their global best could all be other scopes'); and the
// best $k observations valid in the window [$start, $end) the question names, when it names one (found by
// the (scope, valid_at) index).
UNION ALL
WITH $vector AS v WHERE v IS NOT NULL
MATCH (o:Observation {scope: $scope})
WHERE o.expired_at IS NULL AND o.embedding_model = $model AND ($known_at IS NULL OR o.recorded_at <= $known_at)
WITH o, {{cosine(o.embedding, $vector)}} AS cosine
ORDER BY cosine DESC, o.id
LIMIT $k
MATCH (e:Entity {scope: $scope, key: o.entity})
RETURN 'vector' AS leg, null AS stem, 'observation' AS kind, o.search_text AS stems, {{observation}} AS memory, cosine
UNION ALL
WITH $vector AS v WHERE v IS NOT NULL
MATCH (a:Entity {scope: $scope})-[r:FACT]->(b:Entity)
WHERE r.expired_at IS NULL AND r.embedding_model = $model AND {{state}} = 'believed'
  AND r.valid_at <= $as_of AND (r.invalid_at IS NULL OR r.invalid_at > $as_of)
  AND ($known_at IS NULL OR r.recorded_at <= $known_at)
WITH a, r, b, {{cosine(r.embedding, $vector)}} AS cosine
ORDER BY cosine DESC, r.id
LIMIT $k
RETURN 'vector' AS leg, null AS stem, 'fact' AS kind, r.search_text AS stems, {{fact}} AS memory, cosine
UNION ALL
WITH $vector AS v WHERE v IS NOT NULL AND $start IS NOT NULL
MATCH (o:Observation {scope: $scope})
WHERE o.valid_at >= $start AND o.valid_at < $end AND o.expired_at IS NULL AND o.embedding_model = $model
  AND ($known_at IS NULL OR o.recorded_at <= $known_at)
WITH o, {{cosine(o.embedding, $vector)}} AS cosine
ORDER BY cosine DESC, o.id
LIMIT $k
MATCH (e:Entity {scope: $scope, key: o.entity})
RETURN 'window' AS leg, null AS stem, 'observation' AS kind, o.search_text AS stems, {{observation}} AS memory, cosine
