// Every record touching one entity, history included (an alias merge moves them all).
MATCH (a:Entity {scope: $scope, key: $key})-[r:FACT]->(b:Entity)
RETURN {{fact}} AS fact
UNION ALL
MATCH (a:Entity)-[r:FACT]->(b:Entity {scope: $scope, key: $key})
WHERE a.key <> b.key
RETURN {{fact}} AS fact
