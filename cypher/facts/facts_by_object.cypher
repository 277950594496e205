// Facts pointing at one object held at as_of or over a period (fragments/held) as believed at $known_at,
// each with what replaced it and what it replaced (with a predicate: facts/facts_by_object_slot).
{{read_clock}}
MATCH (a:Entity)-[r:FACT]->(b:Entity {scope: $scope, key: $object})
WHERE {{held}}
WITH r, a, b
ORDER BY r.valid_at, r.predicate, a.key, r.recorded_at
LIMIT $limit
{{links}}
RETURN {{fact}} AS fact, links
