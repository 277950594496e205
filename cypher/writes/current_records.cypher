// Current records (not expired) of the given trust states for each key {slot, subject, predicate,
// object, since_at}: the planner's input, as one row (one value to decode, not a row per record).
// The slot index finds the key's timeline; a null object asks for every object of the (subject,
// predicate), a null since_at for the whole timeline, otherwise records that ended before since_at
// are left out (no write can touch them).
UNWIND $keys AS k
MATCH ()-[r:FACT]->()
WHERE r.slot = k.slot AND r.expired_at IS NULL AND {{state}} IN $statuses
  AND (k.since_at IS NULL OR r.invalid_at IS NULL OR r.invalid_at >= k.since_at)
WITH k, r, startNode(r) AS a, endNode(r) AS b
WHERE a.scope = $scope AND a.key = k.subject AND r.predicate = k.predicate AND (k.object IS NULL OR b.key = k.object)
RETURN collect({{fact}}) AS records
