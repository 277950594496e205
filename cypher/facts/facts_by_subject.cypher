// Facts of one subject (optionally one predicate or object) valid at as_of as believed at $known_at.
{{read_clock}}
MATCH (a:Entity {scope: $scope, key: $subject})-[r:FACT]->(b:Entity)
WHERE ($predicate IS NULL OR r.predicate = $predicate)
  AND ($object IS NULL OR b.key = $object)
  AND {{valid_at}}
WITH r, a, b
ORDER BY r.valid_at, r.predicate, b.key, r.recorded_at
LIMIT $limit
RETURN {{fact}} AS fact
