// The scope's entities with the most fact records of any time or state (the count each entity keeps on its
// COUNTED relationship to itself: fragments/count_records), among those with at least $floor, the most first, ties
// by key: no entity has more facts valid at an instant than records, so these bound what digest/most_connected
// would find without reading every fact of the scope. The count's index finds those above the floor without
// reading the others (FalkorDB seeks it for a pattern of the relationship alone: from its entity, it scans every node).
MATCH ()-[c:COUNTED]->()
WHERE c.scope = $scope AND c.records >= $floor
WITH c, startNode(c) AS e
WHERE NOT e.key IN $except
RETURN e.key AS key, c.records AS records
ORDER BY records DESC, key
LIMIT $limit
