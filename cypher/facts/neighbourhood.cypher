// The facts of one entity (a name's key or an alias of it) valid at as_of as believed at $known_at
// (hop 1), oldest first, at most $limit, each with the key of the entity at its other end (where
// hop 2 goes next), how many facts that entity has (hop 2 sizes its shares from it) and the centre's
// own key, and what replaced each fact and what it replaced (fragments/links, as the facts reads give them).
// Only the rows kept by the limit read their ends and links.
{{read_clock}}
OPTIONAL MATCH (alias:Alias {scope: $scope, key: $key})
WITH as_of, coalesce(alias.target, $key) AS key
MATCH (centre:Entity {scope: $scope, key: key})-[r:FACT]-(n:Entity)
WHERE {{valid_at}}
WITH DISTINCT centre, r, n
ORDER BY r.valid_at, r.id
LIMIT $limit
WITH centre, r, n, startNode(r) AS a, endNode(r) AS b
{{links}}
RETURN {{fact}} AS fact, links, n.key AS neighbour, {{degree(n)}} AS degree, centre.key AS centre
