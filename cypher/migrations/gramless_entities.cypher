// Entities of a scope, a page at a time after key $after, with the texts their grams are made of (store
// format 11 stores them: engine/migrations.py).
MATCH (e:Entity {scope: $scope})
WHERE e.key > $after
RETURN e.key AS key, [e.name, e.type] AS texts
ORDER BY key
LIMIT $limit
