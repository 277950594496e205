// Facts of one subject and predicate (their slot) valid at $as_of (any time when null) as believed
// at $known_at: an index seek on the slot, whatever the subject's degree.
MATCH (a:Entity)-[r:FACT]->(b:Entity)
WHERE r.slot = $slot AND r.scope = $scope AND a.key = $subject AND r.predicate = $predicate
  AND ($object IS NULL OR b.key = $object)
  AND ($as_of IS NULL OR (r.valid_at <= $as_of AND (r.invalid_at IS NULL OR r.invalid_at > $as_of)))
  AND r.recorded_at <= $known_at AND (r.expired_at IS NULL OR r.expired_at > $known_at)
  AND r.status IN $statuses
RETURN r.id AS id, a.name AS subject, r.predicate AS predicate, b.name AS object,
       r.valid_at AS valid_at, r.invalid_at AS invalid_at, r.recorded_at AS recorded_at,
       r.expired_at AS expired_at, r.confidence AS confidence, r.confirmations AS confirmations,
       r.source AS source, r.client AS client, r.model AS model, r.session AS session,
       r.status AS status, r.flag AS flag
ORDER BY valid_at, predicate, object, recorded_at
LIMIT $limit
