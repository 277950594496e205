// The scope's records, history and corrections included, for export: a page of $limit records after the
// record ($after_at, $after_id) that ended the page before (null: the first page).
MATCH (a:Entity {scope: $scope})-[r:FACT]->(b:Entity)
WHERE $after_at IS NULL OR r.recorded_at > $after_at OR (r.recorded_at = $after_at AND r.id > $after_id)
WITH r, a, b
ORDER BY r.recorded_at, r.id
LIMIT $limit
RETURN {{fact}} AS fact
