// One entity by its key.
MATCH (e:Entity {scope: $scope, key: $key})
RETURN e.name AS name, e.key AS key, e.aliases AS aliases, e.type AS type,
       e.created_at AS created_at, e.updated_at AS updated_at
