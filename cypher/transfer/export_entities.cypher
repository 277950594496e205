// Every entity of the scope, for export.
MATCH (e:Entity {scope: $scope})
WITH e
ORDER BY e.key
RETURN {{entity}} AS entity
