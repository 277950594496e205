// Facts pointing at one object valid at as_of as believed at $known_at.
{{read_clock}}
MATCH (a:Entity)-[r:FACT]->(b:Entity {scope: $scope, key: $object})
WHERE ($predicate IS NULL OR r.predicate = $predicate)
  AND {{valid_at}}
WITH r, a, b
ORDER BY r.valid_at, r.predicate, a.key, r.recorded_at
LIMIT $limit
RETURN {{fact}} AS fact
