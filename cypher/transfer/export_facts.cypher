// Every record of the scope, history and corrections included, for export.
MATCH (a:Entity {scope: $scope})-[r:FACT]->(b:Entity)
WITH r, a, b
ORDER BY r.recorded_at, r.id
RETURN {{fact}} AS fact
