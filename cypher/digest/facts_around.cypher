// The facts of the given entities valid at as_of (believed ones only), the most confirmed first, then the
// most recently stored or confirmed: what a digest says about the user and the scope's central entities; each
// with what replaced it and what it replaced (fragments/links).
{{read_clock}}
UNWIND $keys AS k
MATCH (e:Entity {scope: $scope, key: k})-[r:FACT]-(:Entity)
WHERE {{valid_at}}
WITH DISTINCT r
WITH r, startNode(r) AS a, endNode(r) AS b
ORDER BY {{confirmations}} DESC, coalesce(r.confirmed_at, r.recorded_at) DESC, r.id
LIMIT $limit
{{links}}
RETURN {{fact}} AS fact, links
