// Hop 2 of a neighbourhood: facts valid at as_of of the given neighbours that do not touch the
// centre, oldest first, at most $limit. Each neighbour contributes at most $per_neighbour facts
// (the first found), so a hub among the neighbours costs $per_neighbour, not its degree.
{{read_clock}}
UNWIND $neighbours AS k
MATCH (hub:Entity {scope: $scope, key: k})
CALL {
  WITH hub, as_of
  MATCH (hub)-[r:FACT]-(other:Entity)
  WHERE other.key <> $centre AND {{valid_at}}
  RETURN r
  LIMIT $per_neighbour
}
WITH DISTINCT r
WITH r, startNode(r) AS a, endNode(r) AS b
ORDER BY r.valid_at, a.key, r.predicate, b.key, r.id
LIMIT $limit
RETURN {{fact}} AS fact
