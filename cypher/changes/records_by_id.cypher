// Fact records of the scope by id ($ids: the records audit entries stored verdicts for), as lists of values
// (fragments/fact_values); a record not found (purged, deleted by a merge) is left out.
UNWIND $ids AS id
MATCH ()-[r:FACT {id: id}]->()
WITH r, startNode(r) AS a, endNode(r) AS b
WHERE a.scope = $scope
RETURN collect({{fact_values}}) AS records
