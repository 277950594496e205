// Every observation of the scope, history included, for export.
MATCH (o:Observation {scope: $scope})
MATCH (e:Entity {scope: $scope, key: o.entity})
WITH o, e
ORDER BY o.recorded_at, o.id
RETURN {{observation}} AS observation
