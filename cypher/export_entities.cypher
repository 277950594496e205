// Every entity of the scope, for export.
MATCH (e:Entity {scope: $scope})
RETURN e.name AS name, e.key AS key, e.aliases AS aliases, e.type AS type,
       e.created_at AS created_at, e.updated_at AS updated_at
ORDER BY key
