// The scope's observations, history included, for export: a page of $limit observations after the one
// ($after_at, $after_id) that ended the page before (null: the first page).
MATCH (o:Observation {scope: $scope})
WHERE $after_at IS NULL OR o.recorded_at > $after_at OR (o.recorded_at = $after_at AND o.id > $after_id)
MATCH (e:Entity {scope: $scope, key: o.entity})
WITH o, e
ORDER BY o.recorded_at, o.id
LIMIT $limit
RETURN {{observation}} AS observation
