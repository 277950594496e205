// One current record by id, with its entities' keys and names (review and feedback).
MATCH (a:Entity)-[r:FACT {id: $id}]->(b:Entity)
WHERE r.scope = $scope AND r.expired_at IS NULL
RETURN r.id AS id, a.key AS subject, r.predicate AS predicate, b.key AS object,
       a.name AS subject_name, b.name AS object_name,
       r.valid_at AS valid_at, r.invalid_at AS invalid_at, r.recorded_at AS recorded_at,
       r.expired_at AS expired_at, r.confidence AS confidence, r.confirmations AS confirmations,
       r.source AS source, r.client AS client, r.model AS model, r.session AS session,
       r.status AS status, r.flag AS flag
