// The scope's entities with the most facts valid at as_of (believed ones only), ties by key.
{{read_clock}}
MATCH (e:Entity {scope: $scope})-[r:FACT]-(:Entity)
WHERE NOT e.key IN $except AND {{valid_at}}
WITH e, count(DISTINCT r) AS degree
ORDER BY degree DESC, e.key
LIMIT $limit
RETURN e.key AS key, e.name AS name, degree
