// The audit log of the scope, newest first; with $entities, only the entries that touched one of them.
MATCH (x:Audit {scope: $scope})
WHERE $entities IS NULL OR any(k IN x.entities WHERE k IN $entities)
WITH x
ORDER BY x.at DESC, x.id
LIMIT $limit
RETURN {{audit}} AS entry
