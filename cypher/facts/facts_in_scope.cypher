// All facts of the scope held at as_of or over a period (fragments/held) as believed at $known_at, each
// with what replaced it and what it replaced (one predicate: facts/facts_by_predicate).
{{read_clock}}
MATCH (a:Entity {scope: $scope})-[r:FACT]->(b:Entity)
WHERE {{held}}
WITH r, a, b
ORDER BY r.valid_at, a.key, r.predicate, b.key, r.recorded_at
LIMIT $limit
{{links}}
RETURN {{fact}} AS fact, links
