// Neo4j form of ../resolve_keys.cypher: the hint keeps the planner on the (scope, key) unique
// index (it would otherwise scan every entity of the scope through the scope index).
OPTIONAL MATCH (e:Entity)
USING INDEX e:Entity(scope, key)
WHERE e.scope = $scope AND e.key IN $keys
WITH collect(e.key) AS entities, collect(elementId(e)) AS ids
OPTIONAL MATCH (al:Alias)
WHERE al.scope = $scope AND al.key IN $keys
RETURN entities, ids, [x IN collect(al) | {key: x.key, target: x.target}] AS aliases
