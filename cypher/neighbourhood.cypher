// The facts of one entity valid at $as_of as believed at $known_at (hop 1), oldest first, at
// most $limit, each with the key of the entity at its other end (where hop 2 goes next).
MATCH (centre:Entity {scope: $scope, key: $key})-[r:FACT]-(n:Entity)
WHERE r.valid_at <= $as_of AND (r.invalid_at IS NULL OR r.invalid_at > $as_of)
  AND r.recorded_at <= $known_at AND (r.expired_at IS NULL OR r.expired_at > $known_at)
  AND r.status IN $statuses
WITH DISTINCT r, n
WITH r, n, startNode(r) AS a, endNode(r) AS b
RETURN r.id AS id, a.name AS subject, r.predicate AS predicate, b.name AS object,
       r.valid_at AS valid_at, r.invalid_at AS invalid_at, r.recorded_at AS recorded_at,
       r.expired_at AS expired_at, r.confidence AS confidence, r.confirmations AS confirmations,
       r.source AS source, r.client AS client, r.model AS model, r.session AS session,
       r.status AS status, r.flag AS flag, n.key AS neighbour
ORDER BY valid_at, subject, predicate, object, id
LIMIT $limit
