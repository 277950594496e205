// Neo4j form of ../../writes/current_records.cypher: element ids (its resolve_keys returns none, so its keys
// carry none and the first sub-query reads nothing), the (scope, key) index hints, and since_at arriving as
// ISO-8601 text (an instant inside a list, see backends/neo4j.py) turned into a DATETIME.
CALL () {
  UNWIND [k IN $keys WHERE k.a IS NOT NULL] AS k
  MATCH (a) WHERE elementId(a) = k.a
  MATCH (b) WHERE elementId(b) = k.b
  WITH k, a, b
  WHERE a:Entity AND a.scope = $scope AND a.key = k.subject AND b:Entity AND b.scope = $scope AND b.key = k.object
  MATCH (a)-[r:FACT]->(b)
  WHERE r.predicate = k.predicate AND r.expired_at IS NULL AND {{state}} IN $statuses
    AND (k.since_at IS NULL OR r.invalid_at IS NULL OR r.invalid_at >= datetime(k.since_at))
  WITH DISTINCT r, a, b
  RETURN collect({{fact}}) AS by_id
}
CALL () {
  UNWIND [k IN $keys WHERE k.object IS NOT NULL AND k.a IS NULL] AS k
  MATCH (a:Entity {scope: $scope, key: k.subject})
  USING INDEX a:Entity(scope, key)
  MATCH (b:Entity {scope: $scope, key: k.object})
  USING INDEX b:Entity(scope, key)
  WITH k, a, b
  MATCH (a)-[r:FACT]->(b)
  WHERE r.predicate = k.predicate AND r.expired_at IS NULL AND {{state}} IN $statuses
    AND (k.since_at IS NULL OR r.invalid_at IS NULL OR r.invalid_at >= datetime(k.since_at))
  WITH DISTINCT r, a, b
  RETURN collect({{fact}}) AS by_pair
}
CALL () {
  UNWIND [k IN $keys WHERE k.object IS NULL] AS k
  MATCH ()-[r:FACT]->()
  WHERE r.slot = k.slot AND r.expired_at IS NULL AND {{state}} IN $statuses
    AND (k.since_at IS NULL OR r.invalid_at IS NULL OR r.invalid_at >= datetime(k.since_at))
  WITH k, r, startNode(r) AS a, endNode(r) AS b
  WHERE a.scope = $scope AND a.key = k.subject AND r.predicate = k.predicate
  WITH DISTINCT r, a, b
  RETURN collect({{fact}}) AS by_slot
}
RETURN by_id + by_pair + by_slot AS records
