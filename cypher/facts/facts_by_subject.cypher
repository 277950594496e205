// Facts of one subject (optionally one object) held at as_of or over a period (fragments/held) as believed
// at $known_at, each with what replaced it and what it replaced.
{{read_clock}}
MATCH (a:Entity {scope: $scope, key: $subject})-[r:FACT]->(b:Entity)
WHERE ($predicate IS NULL OR r.predicate = $predicate)
  AND ($object IS NULL OR b.key = $object)
  AND {{held}}
WITH r, a, b
ORDER BY r.valid_at, r.predicate, b.key, r.recorded_at
LIMIT $limit
{{links}}
RETURN {{fact}} AS fact, links
