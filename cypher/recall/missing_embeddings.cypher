// What lacks an embedding from the current $model, for backfilling a page at a time ($limit of each kind):
// entity names, current observations and current fact records (what each embeds: rules/stems.py fact_sentence).
MATCH (e:Entity {scope: $scope})
WHERE e.embedding IS NULL OR e.embedding_model IS NULL OR e.embedding_model <> $model
WITH e ORDER BY e.key LIMIT $limit
RETURN 'entity' AS kind, e.key AS id, e.name AS text, null AS predicate, null AS object
UNION ALL
MATCH (o:Observation {scope: $scope}) {{scope_seek(o, Observation, id)}} o.expired_at IS NULL AND (o.embedding_model IS NULL OR o.embedding_model <> $model)
WITH o ORDER BY o.id LIMIT $limit
RETURN 'observation' AS kind, o.id AS id, o.text AS text, null AS predicate, null AS object
UNION ALL
MATCH (a:Entity {scope: $scope})-[r:FACT]->(b:Entity)
WHERE r.expired_at IS NULL AND (r.embedding_model IS NULL OR r.embedding_model <> $model)
WITH a, r, b ORDER BY r.id LIMIT $limit
RETURN 'fact' AS kind, r.id AS id, a.name AS text, r.predicate AS predicate, b.name AS object
