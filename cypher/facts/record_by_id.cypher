// One current record by id (review, feedback, pin), with what replaced it and what it replaced (fragments/links):
// the id index finds it, its subject's scope must be ours.
MATCH ()-[r:FACT {id: $id}]->()
WITH r, startNode(r) AS a, endNode(r) AS b
WHERE a.scope = $scope AND r.expired_at IS NULL
{{links}}
RETURN {{fact}} AS fact, links
