// Sets the grams of aliass of a scope (computed by the caller: rules/grams.py; store format 11).
UNWIND $rows AS x
MATCH (n:Alias {scope: $scope, key: x.key})
SET n.grams = x.grams
RETURN count(n) AS updated
