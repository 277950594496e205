// Some entities of a scope, by key, as duplicate proposals compare them: key, name, aliases, type.
UNWIND $keys AS key
MATCH (e:Entity {scope: $scope, key: key})
RETURN e.key AS key, e.name AS name, e.aliases AS aliases, e.type AS type
