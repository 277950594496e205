// Store format 10: the scope's records counted by kind and by the instants they were made and gone at (epoch
// microseconds; gone: null while held), from which engine/migrations.py counts its growth counters.
MATCH (:Entity {scope: $scope})-[r:FACT]->()
RETURN CASE WHEN r.status = $candidate THEN 'candidates' ELSE 'facts' END AS kind,
       {{micros(r.recorded_at)}} AS made, {{micros(r.expired_at)}} AS gone, count(*) AS n
UNION ALL
MATCH (e:Entity {scope: $scope})
RETURN 'entities' AS kind, {{micros(e.created_at)}} AS made, null AS gone, count(*) AS n
UNION ALL
MATCH (o:Observation {scope: $scope}) {{scope_seek(o, Observation, id)}} true
RETURN 'observations' AS kind, {{micros(o.recorded_at)}} AS made, {{micros(o.expired_at)}} AS gone, count(*) AS n
