// Which of the given record ids the scope already holds (imports skip them).
UNWIND $ids AS id
MATCH ()-[r:FACT {id: id}]->()
WHERE startNode(r).scope = $scope
RETURN DISTINCT id
