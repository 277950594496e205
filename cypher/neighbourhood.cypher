// Facts valid at $as_of around one entity: its own (hop 1) and, with $hops = 2,
// those of its neighbours (hop 2); nearest first, at most $limit.
MATCH (centre:Entity {scope: $scope, key: $key})
OPTIONAL MATCH (centre)-[r1:FACT]-(n:Entity)
WHERE r1.valid_at <= $as_of AND (r1.invalid_at IS NULL OR r1.invalid_at > $as_of)
  AND r1.recorded_at <= $known_at AND (r1.expired_at IS NULL OR r1.expired_at > $known_at)
  AND r1.status IN $statuses
WITH centre, collect(DISTINCT n) AS neighbours
UNWIND [centre] + CASE WHEN $hops > 1 THEN [x IN neighbours WHERE x <> centre] ELSE [] END AS hub
MATCH (hub)-[r:FACT]-(:Entity)
WHERE r.valid_at <= $as_of AND (r.invalid_at IS NULL OR r.invalid_at > $as_of)
  AND r.recorded_at <= $known_at AND (r.expired_at IS NULL OR r.expired_at > $known_at)
  AND r.status IN $statuses
WITH r, min(CASE WHEN hub = centre THEN 1 ELSE 2 END) AS hop
WITH r, hop, startNode(r) AS a, endNode(r) AS b
RETURN r.id AS id, a.name AS subject, r.predicate AS predicate, b.name AS object,
       r.valid_at AS valid_at, r.invalid_at AS invalid_at, r.recorded_at AS recorded_at,
       r.expired_at AS expired_at, r.confidence AS confidence, r.confirmations AS confirmations,
       r.source AS source, r.client AS client, r.model AS model, r.session AS session,
       r.status AS status, r.flag AS flag, hop
ORDER BY hop, valid_at, subject, predicate, object
LIMIT $limit
