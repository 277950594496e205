// Current records (not expired) of the given trust states in the given slots: the planner's
// input. One index scan for the whole list of slots; of the slots not in $whole only the
// records pointing at one of $objects come back. The caller keeps the exact
// (subject, predicate[, object]) keys it asked for (a slot is a hash).
MATCH ()-[r:FACT]->()
WHERE r.slot IN $slots AND r.scope = $scope AND r.expired_at IS NULL AND r.status IN $statuses
WITH r, startNode(r) AS a, endNode(r) AS b
WHERE r.slot IN $whole OR b.key IN $objects
RETURN r.id AS id, a.key AS subject, r.predicate AS predicate, b.key AS object,
       r.valid_at AS valid_at, r.invalid_at AS invalid_at, r.recorded_at AS recorded_at,
       r.expired_at AS expired_at, r.confidence AS confidence, r.confirmations AS confirmations,
       r.source AS source, r.client AS client, r.model AS model, r.session AS session,
       r.status AS status, r.flag AS flag
