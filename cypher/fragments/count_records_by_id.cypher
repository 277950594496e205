// fragments/count_records for entities this write found, sought by their node ids (read holding the scope's
// lock, as writes/apply_plan's creates_by_id): a seek by id instead of one of the entity index per row (~1,450
// rows a batch of 1,000 facts at 100k, ~8 of the statement's ~50 ms of operators on FalkorDB). A row x is
// [key, delta, node id]; the node is checked to be that entity.
UNWIND $counts_by_id AS x
MATCH (n) WHERE {{node_id(n)}} = x[2]
WITH n, x
WHERE n:Entity AND n.scope = $scope AND n.key = x[0]
{{count_increment}}
