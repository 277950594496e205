// How the scope grew over recorded time (Memory.growth). Points are the instants $since + i * $width,
// i = 0, 1, ...; each fact record, entity and observation is counted by the first point at or after it
// was recorded (made) and the first point at or after it was expired (gone; null: never), both as point
// numbers. A point then holds what was made at or before it and not gone by it. Times are in epoch
// microseconds relative to $since (a plain integer here, not an instant).
MATCH (:Entity {scope: $scope})-[r:FACT]->()
WITH CASE WHEN r.status = $candidate THEN 'candidates' ELSE 'facts' END AS kind,
     {{micros(r.recorded_at)}} - $since AS made, {{micros(r.expired_at)}} - $since AS gone
RETURN kind,
       CASE WHEN made <= 0 THEN 0 ELSE (made + $width - 1) / $width END AS made,
       CASE WHEN gone IS NULL THEN null WHEN gone <= 0 THEN 0 ELSE (gone + $width - 1) / $width END AS gone,
       count(*) AS n
UNION ALL
MATCH (e:Entity {scope: $scope})
WITH {{micros(e.created_at)}} - $since AS made
RETURN 'entities' AS kind, CASE WHEN made <= 0 THEN 0 ELSE (made + $width - 1) / $width END AS made,
       null AS gone, count(*) AS n
UNION ALL
MATCH (o:Observation {scope: $scope}) {{scope_seek(o, Observation, id)}} true
WITH {{micros(o.recorded_at)}} - $since AS made, {{micros(o.expired_at)}} - $since AS gone
RETURN 'observations' AS kind,
       CASE WHEN made <= 0 THEN 0 ELSE (made + $width - 1) / $width END AS made,
       CASE WHEN gone IS NULL THEN null WHEN gone <= 0 THEN 0 ELSE (gone + $width - 1) / $width END AS gone,
       count(*) AS n
