// Display names of entities by key.
UNWIND $keys AS k
MATCH (e:Entity {scope: $scope, key: k})
RETURN e.key AS key, e.name AS name
