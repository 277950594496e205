// Neo4j form of ../../entities/growth.cypher: the instants stored as DATETIME become epoch microseconds
// (epochSeconds is floored and microsecond never negative, so instants before 1970 are exact too).
MATCH (:Entity {scope: $scope})-[r:FACT]->()
WITH CASE WHEN r.status = $candidate THEN 'candidates' ELSE 'facts' END AS kind,
     r.recorded_at.epochSeconds * 1000000 + r.recorded_at.microsecond - $since AS made,
     r.expired_at.epochSeconds * 1000000 + r.expired_at.microsecond - $since AS gone
RETURN kind,
       CASE WHEN made <= 0 THEN 0 ELSE (made + $width - 1) / $width END AS made,
       CASE WHEN gone IS NULL THEN null WHEN gone <= 0 THEN 0 ELSE (gone + $width - 1) / $width END AS gone,
       count(*) AS n
UNION ALL
MATCH (e:Entity {scope: $scope})
WITH e.created_at.epochSeconds * 1000000 + e.created_at.microsecond - $since AS made
RETURN 'entities' AS kind, CASE WHEN made <= 0 THEN 0 ELSE (made + $width - 1) / $width END AS made,
       null AS gone, count(*) AS n
UNION ALL
MATCH (o:Observation {scope: $scope})
WITH o.recorded_at.epochSeconds * 1000000 + o.recorded_at.microsecond - $since AS made,
     o.expired_at.epochSeconds * 1000000 + o.expired_at.microsecond - $since AS gone
RETURN 'observations' AS kind,
       CASE WHEN made <= 0 THEN 0 ELSE (made + $width - 1) / $width END AS made,
       CASE WHEN gone IS NULL THEN null WHEN gone <= 0 THEN 0 ELSE (gone + $width - 1) / $width END AS gone,
       count(*) AS n
