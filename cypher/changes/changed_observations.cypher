// Observations of the scope by id ($ids, the ones audit entries name), history included.
UNWIND $ids AS id
MATCH (o:Observation {scope: $scope, id: id})
MATCH (e:Entity {scope: $scope, key: o.entity})
RETURN {{observation}} AS observation
