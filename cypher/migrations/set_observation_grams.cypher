// Sets the grams of observations of a scope (computed by the caller: rules/grams.py; store format 11).
UNWIND $rows AS x
MATCH (n:Observation {scope: $scope, id: x.key})
SET n.grams = x.grams
RETURN count(n) AS updated
