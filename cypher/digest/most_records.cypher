// The scope's entities with the most fact records of any time or state (their relationship count, read
// without walking them), the most first, ties by key: no entity has more facts valid at an instant than
// records, so these bound what digest/most_connected would find without reading every fact of the scope.
MATCH (e:Entity {scope: $scope})
WHERE NOT e.key IN $except
WITH e, {{degree(e)}} AS records
ORDER BY records DESC, e.key
LIMIT $limit
RETURN e.key AS key, records
