// Current records (not expired) of the given trust states for (subject, predicate[, object]) keys:
// the planner's input. A null object asks for every object of the pair.
UNWIND $pairs AS pair
MATCH (a:Entity {scope: $scope, key: pair.subject})-[r:FACT]->(b:Entity)
WHERE r.predicate = pair.predicate AND r.expired_at IS NULL AND r.status IN $statuses
  AND (pair.object IS NULL OR b.key = pair.object)
RETURN r.id AS id, a.key AS subject, r.predicate AS predicate, b.key AS object,
       r.valid_at AS valid_at, r.invalid_at AS invalid_at, r.recorded_at AS recorded_at,
       r.expired_at AS expired_at, r.confidence AS confidence, r.confirmations AS confirmations,
       r.source AS source, r.client AS client, r.model AS model, r.session AS session,
       r.status AS status, r.flag AS flag
