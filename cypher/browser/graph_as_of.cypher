// The scope's graph as of $as_of (an ISO-8601 string; a date alone means midnight UTC):
// every fact valid then, as currently believed (not expired; trust state believed).
// Returns paths, so Browser draws the graph; facts_as_of lists the same facts with their validity.
// Run `:config autoComplete: false` once first: Browser's "Connect result nodes" setting would
// also draw every other FACT record between the entities shown, superseded ones and facts that
// did not hold at $as_of.
// Keys a record stores only when they differ from the default (expired_at, status, confidence, ...) are
// read from properties(r): a store that never stored one shows no "property key does not exist" warning.
// :param scope => 'default'
// :param as_of => '2021-06-01T00:00:00Z'
WITH datetime($as_of) AS t
MATCH p = (:Entity {scope: $scope})-[r:FACT]->(:Entity)
WITH p, r, t, properties(r) AS fact
WHERE fact.expired_at IS NULL AND coalesce(fact.status, 'believed') = 'believed'
  AND r.valid_at <= t AND (r.invalid_at IS NULL OR r.invalid_at > t)
RETURN p
ORDER BY r.predicate, r.valid_at
LIMIT 500
