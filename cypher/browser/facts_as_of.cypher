// The facts graph_as_of draws, as a table with their validity: every fact valid at $as_of
// (an ISO-8601 string; a date alone means midnight UTC), as currently believed. Times are UTC;
// valid_until null = still holds.
// :param scope => 'default'
// :param as_of => '2021-06-01T00:00:00Z'
WITH datetime($as_of) AS t
MATCH (s:Entity {scope: $scope})-[r:FACT]->(o:Entity)
WHERE r.expired_at IS NULL AND coalesce(r.status, 'believed') = 'believed'
  AND r.valid_at <= t AND (r.invalid_at IS NULL OR r.invalid_at > t)
RETURN s.name AS subject, r.predicate AS predicate, o.name AS object,
       r.valid_at AS valid_from, r.invalid_at AS valid_until, coalesce(r.confidence, 1.0) AS confidence
ORDER BY subject, predicate, valid_from
LIMIT 500
