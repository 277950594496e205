// Facts of one predicate in the scope held at as_of or over a period (fragments/held) as believed at
// $known_at: an index seek on the predicate's slot (rules/slots.py), not a walk of the scope's facts; each
// with what replaced it and what it replaced. The edge is sought alone, its ends read after (an end matched
// by the scope first would walk the scope's entities on FalkorDB).
{{read_clock}}
MATCH ()-[r:FACT]->()
WHERE r.predicate_slot = $predicate_slot AND r.predicate = $predicate
WITH as_of, r, startNode(r) AS a, endNode(r) AS b
WHERE a.scope = $scope AND {{held}}
WITH r, a, b
ORDER BY r.valid_at, a.key, r.predicate, b.key, r.recorded_at
LIMIT $limit
{{links}}
RETURN {{fact}} AS fact, links
