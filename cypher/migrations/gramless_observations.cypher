// Observations of a scope, a page at a time after id $after, with the text their grams are made of (store
// format 11 stores them: engine/migrations.py).
MATCH (o:Observation {scope: $scope})
WHERE o.id > $after
RETURN o.id AS key, [o.text] AS texts
ORDER BY key
LIMIT $limit
