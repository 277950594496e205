// Hop 2 of a neighbourhood: facts valid at as_of of the given neighbours that do not touch the
// centre, each with the neighbours that found it and what replaced it and what it replaced
// (fragments/links). Each neighbour gives at most $per_neighbour facts (the first found, after the
// $skip found by an earlier read), so a hub among the neighbours costs its share, not its degree;
// the caller orders them and cuts its limit fairly.
{{read_clock}}
UNWIND $neighbours AS k
MATCH (hub:Entity {scope: $scope, key: k})
{{call(hub, as_of)}}
  MATCH (hub)-[r:FACT]-(other:Entity)
  WHERE other.key <> $centre AND {{valid_at}}
  RETURN r
  SKIP $skip
  LIMIT $per_neighbour
}
WITH r, collect(hub.key) AS via
WITH r, via, startNode(r) AS a, endNode(r) AS b
{{links}}
RETURN {{fact}} AS fact, via, links
