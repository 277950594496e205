// Neo4j form of ../resolve_keys.cypher: the hint keeps the planner on the (scope, key) unique
// index (it would otherwise scan every entity of the scope through the scope index).
MATCH (e:Entity)
USING INDEX e:Entity(scope, key)
WHERE e.scope = $scope AND e.key IN $keys
RETURN e.key AS key, null AS target
UNION ALL
MATCH (al:Alias)
WHERE al.scope = $scope AND al.key IN $keys
RETURN al.key AS key, al.target AS target
