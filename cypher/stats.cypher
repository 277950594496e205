// Counts of one scope, measured (not the counters kept for quotas).
OPTIONAL MATCH (e:Entity {scope: $scope})
WITH count(e) AS entities
OPTIONAL MATCH (al:Alias {scope: $scope})
WITH entities, count(al) AS aliases
OPTIONAL MATCH (:Entity {scope: $scope})-[r:FACT]->()
RETURN entities, aliases,
       sum(CASE WHEN r IS NOT NULL AND r.expired_at IS NULL THEN 1 ELSE 0 END) AS facts,
       sum(CASE WHEN r IS NOT NULL AND r.expired_at IS NULL AND r.valid_at <= $now AND r.status = $believed
                     AND (r.invalid_at IS NULL OR r.invalid_at > $now) THEN 1 ELSE 0 END) AS valid_now,
       sum(CASE WHEN r IS NOT NULL AND r.expired_at IS NOT NULL THEN 1 ELSE 0 END) AS expired_records,
       sum(CASE WHEN r IS NOT NULL AND r.expired_at IS NULL AND r.status = $candidate THEN 1 ELSE 0 END) AS candidates,
       sum(CASE WHEN r IS NOT NULL AND r.expired_at IS NULL AND r.status = $disputed THEN 1 ELSE 0 END) AS disputed
