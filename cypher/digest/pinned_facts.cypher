// The scope's pinned facts valid at as_of (believed ones only), oldest first: what a digest starts with.
{{read_clock}}
MATCH (a:Entity)-[r:FACT]->(b:Entity)
WHERE r.pinned = true AND r.scope = $scope AND {{valid_at}}
WITH r, a, b
ORDER BY r.recorded_at, r.id
LIMIT $limit
RETURN {{fact}} AS fact
