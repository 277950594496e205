// Recall's vector and window legs (with a $vector; nothing without), as branches that end a recall/memory_lexical
// statement (its rows: leg, stem, kind, stems, memory, cosine).
// The vector leg: the scope's current observations and fact records (believed, valid at $as_of; recorded by
// $known_at if given) nearest to $vector by the cosine of their embeddings by $model, the best $k of each kind,
// whole, with their stems. The memories' vector indexes (recall/vector_index) give the nearest $fetch of every
// scope's ($fetch > $k: others' are among them), of which the scope's are kept and ranked by their exact
// cosines. When fewer than $k of the scope's were in a full answer (other scopes' memories crowded it) and the
// scope holds more (counted up to $k, and only then), a row of leg 'short' and no memory says so for that kind,
// and the caller scans the scope (recall/memory_vector_scan); the count runs only then (an UNWIND of no row
// when not crowded: Neo4j plans a WHERE on crowded after the seek of the scope's memories, read on every recall).
// With $fetch 0 the indexes are not asked: the kinds in $kinds are scanned here instead (a small scope; or the
// indexes hold vectors of another dimension).
// The window leg: the best $k observations valid in the window [$start, $end) the question names, when it names
// one, by exact cosines (a range of the (scope, valid_at) index: bounded by the window).
// A memory's cosine is taken from $observation_cosines or $fact_cosines where they hold its id (fragments/vector_scan).
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
