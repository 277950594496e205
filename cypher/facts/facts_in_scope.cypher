// All facts of the scope valid at as_of as believed at $known_at.
{{read_clock}}
MATCH (a:Entity {scope: $scope})-[r:FACT]->(b:Entity)
WHERE ($predicate IS NULL OR r.predicate = $predicate)
  AND {{valid_at}}
WITH r, a, b
ORDER BY r.valid_at, a.key, r.predicate, b.key, r.recorded_at
LIMIT $limit
RETURN {{fact}} AS fact
