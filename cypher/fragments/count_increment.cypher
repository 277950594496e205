// The increment of an entity's count of fact records by a row x = [key, delta, ...] on its COUNTED relationship
// to itself, once the entity n is found: fragments/count_records finds it by its key, count_records_by_id by its
// node id.
MERGE (n)-[c:COUNTED {scope: $scope}]->(n)
SET c.records = coalesce(c.records, 0) + x[1]
