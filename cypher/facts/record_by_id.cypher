// One current record by id (review, feedback).
MATCH (a:Entity)-[r:FACT {id: $id}]->(b:Entity)
WHERE r.scope = $scope AND r.expired_at IS NULL
RETURN {{fact}} AS fact
