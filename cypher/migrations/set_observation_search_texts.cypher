// Sets the search text of observations (computed by the caller: rules/stems.py).
UNWIND $rows AS x
MATCH (o:Observation {scope: $scope, id: x.id})
SET o.search_text = x.search_text
RETURN count(o) AS updated
