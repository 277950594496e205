// Neo4j form of ../current_records.cypher: since_at arrives as ISO-8601 text (a bulk row, see
// backends/neo4j.py) and instants come back as epoch microseconds computed by the server
// (hydrating thousands of DATETIME values in the Python driver costs more than the query).
// Current records (not expired) of the given trust states for each key {slot, subject, predicate,
// object, since_at}: the planner's input. The slot index finds the key's timeline; a null object
// asks for every object of the (subject, predicate), a null since_at for the whole timeline,
// otherwise records that ended before since_at are left out (no write can touch them).
UNWIND $keys AS k
MATCH ()-[r:FACT]->()
WHERE r.slot = k.slot AND r.scope = $scope AND r.expired_at IS NULL AND r.status IN $statuses
  AND (k.since_at IS NULL OR r.invalid_at IS NULL OR r.invalid_at >= datetime(k.since_at))
WITH k, r, startNode(r) AS a, endNode(r) AS b
WHERE a.key = k.subject AND r.predicate = k.predicate AND (k.object IS NULL OR b.key = k.object)
RETURN r.id AS id, a.key AS subject, r.predicate AS predicate, b.key AS object,
       r.valid_at.epochMillis * 1000 + r.valid_at.microsecond % 1000 AS valid_at,
       r.invalid_at.epochMillis * 1000 + r.invalid_at.microsecond % 1000 AS invalid_at,
       r.recorded_at.epochMillis * 1000 + r.recorded_at.microsecond % 1000 AS recorded_at,
       null AS expired_at, r.confidence AS confidence, r.confirmations AS confirmations,
       r.source AS source, r.client AS client, r.model AS model, r.session AS session,
       r.status AS status, r.flag AS flag
