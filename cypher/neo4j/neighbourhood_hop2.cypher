// Neo4j form of ../neighbourhood_hop2.cypher (CALL (hub) scope clause instead of an importing WITH).
// Hop 2 of a neighbourhood: facts valid at $as_of of the given neighbours that do not touch the
// centre, oldest first, at most $limit. Each neighbour contributes at most $per_neighbour facts
// (the first found), so a hub among the neighbours costs $per_neighbour, not its degree.
UNWIND $neighbours AS k
MATCH (hub:Entity {scope: $scope, key: k})
CALL (hub) {
  MATCH (hub)-[r:FACT]-(other:Entity)
  WHERE other.key <> $centre
    AND r.valid_at <= $as_of AND (r.invalid_at IS NULL OR r.invalid_at > $as_of)
    AND r.recorded_at <= $known_at AND (r.expired_at IS NULL OR r.expired_at > $known_at)
    AND r.status IN $statuses
  RETURN r
  LIMIT $per_neighbour
}
WITH DISTINCT r
WITH r, startNode(r) AS a, endNode(r) AS b
RETURN r.id AS id, a.name AS subject, r.predicate AS predicate, b.name AS object,
       r.valid_at AS valid_at, r.invalid_at AS invalid_at, r.recorded_at AS recorded_at,
       r.expired_at AS expired_at, r.confidence AS confidence, r.confirmations AS confirmations,
       r.source AS source, r.client AS client, r.model AS model, r.session AS session,
       r.status AS status, r.flag AS flag
ORDER BY valid_at, subject, predicate, object, id
LIMIT $limit
