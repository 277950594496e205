// The scope's pinned facts valid at as_of (believed ones only), oldest first: what a digest starts with; each
// with what replaced it and what it replaced (fragments/links).
// The pinned index finds them (few records are pinned); the subject's scope must be ours.
{{read_clock}}
MATCH ()-[r:FACT]->()
WHERE r.pinned = true AND {{valid_at}}
WITH r, startNode(r) AS a, endNode(r) AS b
WHERE a.scope = $scope
WITH r, a, b
ORDER BY r.recorded_at, r.id
LIMIT $limit
{{links}}
RETURN {{fact}} AS fact, links
