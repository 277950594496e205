// Counts of one scope from its counters, which the writes that change them keep (engine/writes.py tally), and
// the few records the counters leave to be read now, each through an index: the current records ahead (whether
// they hold now depends on now: rules/timeline.py Record.ahead), the disputed ones; its aliases and current
// observations. Facts valid now: the current believed and disputed records, less those that ended before they
// were recorded (counted), less those ahead, plus those ahead that hold now, less the disputed that hold now.
// A scope of an older store format (returned) has no counters of expired and ended records: stats_measured.
{{scope_state_for_read}}
WITH s, coalesce($as_of, CASE WHEN s.updated_at > $now THEN s.updated_at ELSE $now END) AS as_of
OPTIONAL MATCH ()-[r:FACT]->()
WHERE r.ahead = true AND r.expired_at IS NULL AND startNode(r).scope = $scope
  AND coalesce(r.status, $believed) <> $candidate
WITH s, as_of, count(r) AS ahead,
     sum(CASE WHEN r IS NOT NULL AND r.valid_at <= as_of AND (r.invalid_at IS NULL OR r.invalid_at > as_of)
              THEN 1 ELSE 0 END) AS ahead_valid
OPTIONAL MATCH ()-[d:FACT]->()
WHERE d.status = $disputed AND d.expired_at IS NULL AND startNode(d).scope = $scope
WITH s, ahead, ahead_valid, count(d) AS disputed,
     sum(CASE WHEN d IS NOT NULL AND d.valid_at <= as_of AND (d.invalid_at IS NULL OR d.invalid_at > as_of)
              THEN 1 ELSE 0 END) AS disputed_valid
OPTIONAL MATCH (al:Alias {scope: $scope}) {{scope_seek(al, Alias, key)}} true
WITH s, ahead, ahead_valid, disputed, disputed_valid, count(al) AS aliases
OPTIONAL MATCH (o:Observation {scope: $scope}) {{scope_seek(o, Observation, id)}} o.expired_at IS NULL
WITH s, ahead, ahead_valid, disputed, disputed_valid, aliases, count(o) AS observations
RETURN s.format AS format, coalesce(s.entities, 0) AS entities, aliases, observations,
       coalesce(s.facts, 0) - observations AS facts,
       coalesce(s.facts, 0) - observations - coalesce(s.ended, 0) - ahead + ahead_valid - disputed_valid AS valid_now,
       coalesce(s.expired, 0) AS expired_records, coalesce(s.candidates, 0) AS candidates, disputed
