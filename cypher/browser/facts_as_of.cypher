// The facts graph_as_of draws, as a table with their validity: every fact valid at $as_of
// (an ISO-8601 string; a date alone means midnight UTC), as currently believed. Times are UTC;
// valid_until null = still holds.
// Keys a record stores only when they differ from the default (expired_at, status, confidence, ...) are
// read from properties(r): a store that never stored one shows no "property key does not exist" warning.
// :param scope => 'default'
// :param as_of => '2021-06-01T00:00:00Z'
WITH datetime($as_of) AS t
MATCH (s:Entity {scope: $scope})-[r:FACT]->(o:Entity)
WITH s, r, o, t, properties(r) AS fact
WHERE fact.expired_at IS NULL AND coalesce(fact.status, 'believed') = 'believed'
  AND r.valid_at <= t AND (r.invalid_at IS NULL OR r.invalid_at > t)
RETURN s.name AS subject, r.predicate AS predicate, o.name AS object,
       r.valid_at AS valid_from, r.invalid_at AS valid_until, coalesce(fact.confidence, 1.0) AS confidence
ORDER BY subject, predicate, valid_from
LIMIT 500
