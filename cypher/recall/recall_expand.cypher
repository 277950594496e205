// Facts valid at as_of around the entry entities of a recall, 1 or 2 hops, in one round trip.
// Each fact carries its hop distance and the best (lowest) rank of the entry entity it was reached
// from; the caller orders by relevance. The cut keeps the nearest, then the newest, ties broken by
// keys (not ids) so both backends keep the same facts. With a $vector, each fact's cosine to it (null
// without one, or for a record written without an embedder), and its stems for recall's ranking.
{{read_clock}}
UNWIND $entries AS entry
MATCH (centre:Entity {scope: $scope, key: entry.key})
OPTIONAL MATCH (centre)-[r1:FACT]-(n:Entity)
WHERE r1.valid_at <= as_of AND (r1.invalid_at IS NULL OR r1.invalid_at > as_of)
  AND (($known_at IS NULL AND r1.expired_at IS NULL)
       OR (r1.recorded_at <= $known_at AND (r1.expired_at IS NULL OR r1.expired_at > $known_at)))
  AND coalesce(r1.status, 'believed') IN $statuses
WITH as_of, entry, centre, collect(DISTINCT n) AS neighbours
UNWIND [centre] + CASE WHEN $hops > 1 THEN [x IN neighbours WHERE x <> centre] ELSE [] END AS hub
MATCH (hub)-[r:FACT]-(:Entity)
WHERE {{valid_at}}
WITH r, min(CASE WHEN hub = centre THEN 0 ELSE 1000 END + entry.rank) AS reach
WITH r, reach, startNode(r) AS a, endNode(r) AS b
ORDER BY reach, r.valid_at DESC, a.key, r.predicate, b.key, r.id
LIMIT $limit
RETURN {{fact}} AS fact, CASE WHEN reach >= 1000 THEN 2 ELSE 1 END AS hop, reach % 1000 AS entry_rank,
       r.search_text AS stems,
       CASE WHEN $vector IS NOT NULL AND r.embedding_model = $model THEN {{cosine(r.embedding, $vector)}} END AS cosine
