// Store format 12: each entity's count of fact records moves from the entity node (formats 9-11) to a COUNTED
// relationship of the entity to itself (fragments/count_records), $limit entities a page; how many moved comes back
// (0: none is left).
MATCH (e:Entity {scope: $scope})
WHERE e.records IS NOT NULL
WITH e
LIMIT $limit
MERGE (e)-[c:COUNTED {scope: $scope}]->(e)
SET c.records = e.records, e.records = null
RETURN count(*) AS moved
