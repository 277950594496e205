// Every record touching one entity, history included (for alias merges).
MATCH (a:Entity {scope: $scope, key: $key})-[r:FACT]->(b:Entity)
RETURN r.id AS id, a.key AS subject, r.predicate AS predicate, b.key AS object,
       r.valid_at AS valid_at, r.invalid_at AS invalid_at, r.recorded_at AS recorded_at,
       r.expired_at AS expired_at, r.confidence AS confidence, r.confirmations AS confirmations,
       r.source AS source, r.client AS client, r.model AS model, r.session AS session,
       r.status AS status, r.flag AS flag
UNION ALL
MATCH (a:Entity)-[r:FACT]->(b:Entity {scope: $scope, key: $key})
WHERE a.key <> b.key
RETURN r.id AS id, a.key AS subject, r.predicate AS predicate, b.key AS object,
       r.valid_at AS valid_at, r.invalid_at AS invalid_at, r.recorded_at AS recorded_at,
       r.expired_at AS expired_at, r.confidence AS confidence, r.confirmations AS confirmations,
       r.source AS source, r.client AS client, r.model AS model, r.session AS session,
       r.status AS status, r.flag AS flag
