// Which of the given observation ids the scope already holds (imports skip them).
UNWIND $ids AS id
MATCH (o:Observation {scope: $scope, id: id})
RETURN DISTINCT id
