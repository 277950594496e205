// Aliases of a scope, a page at a time after key $after, with the text their grams are made of (store format
// 11 stores them: engine/migrations.py).
MATCH (a:Alias {scope: $scope})
WHERE a.key > $after
RETURN a.key AS key, [a.name] AS texts
ORDER BY key
LIMIT $limit
