// Observations of a scope, a page at a time after id $after, with their text: before store format 6 their
// search text held words, not stems (engine/migrations.py stems them).
MATCH (o:Observation {scope: $scope})
WHERE o.id > $after
RETURN o.id AS id, o.text AS text
ORDER BY id
LIMIT $limit
