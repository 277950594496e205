// Neo4j form of ../current_records.cypher: since_at arrives as ISO-8601 text (a bulk row, see
// backends/neo4j.py) and instants come back as epoch microseconds computed by the server
// (hydrating thousands of DATETIME values in the Python driver costs more than the query).
// Current records (not expired) of the given trust states for each key {slot, subject, predicate,
// object, since_at}: the planner's input, as one row (one value to decode, not a row per record).
// The slot index finds the key's timeline; a null object asks for every object of the (subject,
// predicate), a null since_at for the whole timeline, otherwise records that ended before since_at
// are left out (no write can touch them).
UNWIND $keys AS k
MATCH ()-[r:FACT]->()
WHERE r.slot = k.slot AND r.scope = $scope AND r.expired_at IS NULL AND r.status IN $statuses
  AND (k.since_at IS NULL OR r.invalid_at IS NULL OR r.invalid_at >= datetime(k.since_at))
WITH k, r, startNode(r) AS a, endNode(r) AS b
WHERE a.key = k.subject AND r.predicate = k.predicate AND (k.object IS NULL OR b.key = k.object)
RETURN collect({id: r.id, subject: a.key, predicate: r.predicate, object: b.key,
                valid_at: r.valid_at.epochMillis * 1000 + r.valid_at.microsecond % 1000,
                invalid_at: r.invalid_at.epochMillis * 1000 + r.invalid_at.microsecond % 1000,
                recorded_at: r.recorded_at.epochMillis * 1000 + r.recorded_at.microsecond % 1000,
                expired_at: null, confidence: r.confidence, confirmations: r.confirmations,
                source: r.source, client: r.client, model: r.model, session: r.session,
                status: r.status, flag: r.flag}) AS records
