// Every record of the scope, history and corrections included, for export.
MATCH (a:Entity {scope: $scope})-[r:FACT]->(b:Entity)
RETURN r.id AS id, a.key AS subject, r.predicate AS predicate, b.key AS object,
       r.valid_at AS valid_at, r.invalid_at AS invalid_at, r.recorded_at AS recorded_at,
       r.expired_at AS expired_at, r.confidence AS confidence, r.confirmations AS confirmations,
       r.source AS source, r.client AS client, r.model AS model, r.session AS session,
       r.status AS status, r.flag AS flag
ORDER BY recorded_at, id
