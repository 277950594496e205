// The scope's entities, for export: a page of $limit entities after the key $after that ended the page
// before (null: the first page).
MATCH (e:Entity {scope: $scope})
WHERE $after IS NULL OR e.key > $after
WITH e
ORDER BY e.key
LIMIT $limit
RETURN {{entity}} AS entity
