// Counts of one scope, measured by walking its records: for a scope of a store format before counters of its
// expired and ended records (engine/migrations.py COUNTED_FORMAT) that was not opened for writing since.
{{read_clock}}
OPTIONAL MATCH (e:Entity {scope: $scope})
WITH as_of, count(e) AS entities
OPTIONAL MATCH (al:Alias {scope: $scope}) {{scope_seek(al, Alias, key)}} true
WITH as_of, entities, count(al) AS aliases
OPTIONAL MATCH (o:Observation {scope: $scope}) {{scope_seek(o, Observation, id)}} o.expired_at IS NULL
WITH as_of, entities, aliases, count(o) AS observations
OPTIONAL MATCH (:Entity {scope: $scope})-[r:FACT]->()
RETURN entities, aliases, observations,
       sum(CASE WHEN r IS NOT NULL AND r.expired_at IS NULL AND {{state}} <> $candidate THEN 1 ELSE 0 END) AS facts,
       sum(CASE WHEN r IS NOT NULL AND r.expired_at IS NULL AND r.valid_at <= as_of AND {{state}} = $believed
                     AND (r.invalid_at IS NULL OR r.invalid_at > as_of) THEN 1 ELSE 0 END) AS valid_now,
       sum(CASE WHEN r IS NOT NULL AND r.expired_at IS NOT NULL THEN 1 ELSE 0 END) AS expired_records,
       sum(CASE WHEN r IS NOT NULL AND r.expired_at IS NULL AND r.status = $candidate THEN 1 ELSE 0 END) AS candidates,
       sum(CASE WHEN r IS NOT NULL AND r.expired_at IS NULL AND r.status = $disputed THEN 1 ELSE 0 END) AS disputed
