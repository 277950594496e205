// One entity by its key.
MATCH (e:Entity {scope: $scope, key: $key})
RETURN {{entity}} AS entity
