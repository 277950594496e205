// Facts of the scope in the trust states $statuses, none of them the believed state (candidates, disputed: the
// review lists), held at as_of or over a period (fragments/held) as believed at $known_at: an index seek on the
// stored state (a believed record stores none, so the index holds only the few records waiting for review or
// disputed), not a walk of the scope's facts. Otherwise as facts/facts_in_scope.
{{read_clock}}
MATCH ()-[r:FACT]->()
WHERE r.status IN $statuses
WITH as_of, r, startNode(r) AS a, endNode(r) AS b
WHERE a.scope = $scope AND {{held}}
WITH r, a, b
ORDER BY r.valid_at, a.key, r.predicate, b.key, r.recorded_at
LIMIT $limit
{{links}}
RETURN {{fact}} AS fact, links
