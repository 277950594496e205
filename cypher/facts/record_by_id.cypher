// One current record by id (review, feedback): the id index finds it, its subject's scope must be ours.
MATCH ()-[r:FACT {id: $id}]->()
WITH r, startNode(r) AS a, endNode(r) AS b
WHERE a.scope = $scope AND r.expired_at IS NULL
RETURN {{fact}} AS fact
