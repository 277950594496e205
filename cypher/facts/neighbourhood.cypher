// The facts of one entity valid at as_of as believed at $known_at (hop 1), oldest first, at most
// $limit, each with the key of the entity at its other end (where hop 2 goes next).
{{read_clock}}
MATCH (centre:Entity {scope: $scope, key: $key})-[r:FACT]-(n:Entity)
WHERE {{valid_at}}
WITH DISTINCT r, n
WITH r, n, startNode(r) AS a, endNode(r) AS b
ORDER BY r.valid_at, a.key, r.predicate, b.key, r.id
LIMIT $limit
RETURN {{fact}} AS fact, n.key AS neighbour
